#!/usr/bin/env python3
"""docs/ci/github-actions.yml runs as copied (issue #22).

1. It validates against SchemaStore's GitHub workflow schema (vendored in
   fixtures/schemas/, provenance in its README) with python3-jsonschema.
2. The properties the schema cannot see, each checked by name:
   - no placeholder: fusecert comes from the submodule the set-up adds, never
     from a repository name written into the file;
   - fusecert reaches the run-only jobs as the .deb of the build job (cached
     per fusecert revision), and they install that package only: no
     install-deps.sh, no build, no -dev package;
   - every upload-sarif step has checkout_path, and its job may write
     security events, read contents and read actions (private repositories);
   - the set-up is given in three numbered steps.
3. A workflow broken on purpose fails the schema (the check can fail).

Usage: workflow_schema_test.py SRCDIR
"""
import json
import re
import sys

import jsonschema
import yaml

SRC = sys.argv[1]
WORKFLOW = f"{SRC}/docs/ci/github-actions.yml"
SCHEMA = f"{SRC}/fixtures/schemas/github-workflow.json"


class Yaml12Loader(yaml.SafeLoader):
    """YAML as GitHub reads it: `on`, `yes`, `no` are strings (YAML 1.2), only true/false are booleans."""


Yaml12Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


text = open(WORKFLOW, encoding="utf-8").read()
wf = yaml.load(text, Loader=Yaml12Loader)
schema = json.load(open(SCHEMA, encoding="utf-8"))
validator = jsonschema.Draft7Validator(schema)
for e in validator.iter_errors(wf):
    fails.append(f"schema: {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}")

# The schema check can fail: a step with both `uses` and `run`, a job with no runs-on.
broken = yaml.load(text, Loader=Yaml12Loader)
broken["jobs"]["docs"]["steps"][0]["uses"] = "actions/checkout@v4"
del broken["jobs"]["certify"]["runs-on"]
check(len(list(validator.iter_errors(broken))) >= 2, "a broken workflow passed the schema")

jobs = wf["jobs"]
check(set(jobs) == {"build", "docs", "certify", "merge"}, f"jobs: {sorted(jobs)}")

# No placeholder repository: nothing is checked out by name.
for name, job in jobs.items():
    for s in job.get("steps", []):
        if str(s.get("uses", "")).startswith("actions/checkout"):
            check("repository" not in s.get("with", {}), f"{name}: checks out a named repository (a placeholder)")
check("fusecert/fusecert" not in text, "the placeholder fusecert/fusecert is still in the workflow")
check("FUSECERT_REF" not in text, "FUSECERT_REF (a ref of a placeholder repository) is still in the workflow")

# The build job: the submodule, a cache of the .deb keyed on its files, cpack.
build = jobs["build"]
steps = build["steps"]
checkout = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
check(checkout and checkout[0].get("with", {}).get("submodules") is True, "build: checkout without submodules")
cache = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache")]
check(cache and "hashFiles" in cache[0]["with"]["key"] and "FUSECERT_DIR" in cache[0]["with"]["key"],
      "build: the .deb is not cached on the fusecert submodule's files")
build_runs = "\n".join(s.get("run", "") for s in steps)
check("cpack" in build_runs and "install-deps.sh" in build_runs, "build: no install-deps + cpack")
built = [s for s in steps if "cpack" in s.get("run", "")]
check(built and "cache-hit" in built[0].get("if", ""), "build: the package is rebuilt even on a cache hit")
check(any(str(s.get("uses", "")).startswith("actions/upload-artifact") and s["with"]["name"] == "fusecert-deb"
          for s in steps), "build: the .deb is not uploaded")

# Run-only jobs: the .deb and run-time packages only.
for name in ("docs", "certify", "merge"):
    job = jobs[name]
    check(job["needs"] == ("certify" if name == "merge" else "build"), f"{name}: needs {job['needs']!r}")
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    check("install-deps.sh" not in runs, f"{name}: runs install-deps.sh (build and test packages)")
    check("build.sh" not in runs and "cmake" not in runs, f"{name}: builds fusecert")
    check(not re.search(r"\S+-dev\b", runs), f"{name}: installs a -dev package")
    check(re.search(r"apt-get install[^\n]*fusecert-deb/fusecert_\*\.deb", runs) is not None,
          f"{name}: does not install the fusecert .deb")
    check(any(str(s.get("uses", "")).startswith("actions/download-artifact") and s["with"].get("name") == "fusecert-deb"
              for s in job["steps"]), f"{name}: does not download the .deb")
    check("bin/fusecert" not in runs and "FUSECERT_RULES_DIR" not in runs,
          f"{name}: runs a copied binary or points it at a source tree")
    for s in job["steps"]:
        if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif"):
            w = s.get("with", {})
            check(w.get("checkout_path"), f"{name}: upload-sarif without checkout_path")
            check(w.get("category"), f"{name}: upload-sarif without a category")
            perms = job.get("permissions", {})
            for k, v in (("security-events", "write"), ("contents", "read"), ("actions", "read")):
                check(perms.get(k) == v, f"{name}: permissions.{k} is {perms.get(k)!r}, needs {v!r}")
            check(s.get("if") == "always()", f"{name}: SARIF not uploaded when the check fails")
check(wf.get("permissions", {}).get("contents") == "read", "the workflow's default permissions are not read-only")

# Three set-up steps, numbered, in the header.
header = text.split("\nname:")[0]
for n in (1, 2, 3):
    check(re.search(rf"^#\s+{n}\. ", header, re.M), f"set-up step {n} missing from the header")
check(not re.search(r"^#\s+4\. ", header, re.M), "more than three set-up steps")
check(len(jobs["certify"]["strategy"]["matrix"]["shard"]) == int(wf["env"]["SHARDS"]),
      "SHARDS differs from the matrix length")

for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else f"{len(fails)} failed")
sys.exit(1 if fails else 0)
