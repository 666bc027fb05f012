#!/usr/bin/env python3
"""CTest mutation.manifest: the mutation harness must not rot. Checks that
tests/mutation/mutants.py is well-formed (fields, unique ids), that every
patch still applies to the current tree (its `old` text occurs exactly once
in its file, and `new` differs), and, given a build tree, that every mutant's
test regex selects at least one CTest test there. Applies nothing, builds
nothing: seconds.

  check_manifest.py ROOT [--build BUILD_DIR]
  check_manifest.py ROOT --selftest    # each kind of rot above is reported
"""
import argparse, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = {"id", "file", "breaks", "old", "new", "tests"}
OPTIONAL = {"equivalent", "lit"}
ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")


def problems(mutants, root, test_names=None):
    out, seen = [], set()
    for k, m in enumerate(mutants):
        where = "mutant %d (%s)" % (k, m.get("id", "?") if isinstance(m, dict) else "?")
        if not isinstance(m, dict):
            out.append(where + ": not a dict")
            continue
        missing, extra = FIELDS - m.keys(), m.keys() - FIELDS - OPTIONAL
        if missing or extra:
            out.append(where + ": missing %s, unknown %s" % (sorted(missing), sorted(extra)))
            continue
        if not all(isinstance(m[f], str) for f in m):
            out.append(where + ": every field is a string")
            continue
        if not ID.match(m["id"]):
            out.append(where + ": id is not area.what (lower case, dots)")
        if m["id"] in seen:
            out.append(where + ": duplicate id")
        seen.add(m["id"])
        if not m["breaks"].strip() or not m["old"]:
            out.append(where + ": empty breaks or old text")
        if m["old"] == m["new"]:
            out.append(where + ": new text equals old text (no mutation)")
        if "equivalent" in m and not m["equivalent"].strip():
            out.append(where + ": an equivalent mutant says why")
        path = os.path.join(root, m["file"])
        if os.path.isabs(m["file"]) or ".." in m["file"].split("/") or not os.path.isfile(path):
            out.append(where + ": no file %s in the checkout" % m["file"])
        else:
            n = open(path, encoding="utf-8").read().count(m["old"])
            if n != 1:
                out.append(where + ": patch does not apply to %s (old text found %d times, needs 1)" % (m["file"], n))
        try:
            rx = re.compile(m["tests"])
        except re.error as e:
            out.append(where + ": tests regex: %s" % e)
            continue
        if test_names is not None and not any(rx.search(t) for t in test_names):
            out.append(where + ": tests regex %r selects no CTest test" % m["tests"])
    return out


def ctest_names(build):
    r = subprocess.run(["ctest", "--test-dir", build, "-N"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    names = re.findall(r"^\s*Test\s+#\d+: (\S+)", r.stdout, re.M)
    if r.returncode != 0 or not names:
        sys.exit("ctest -N in %s listed no tests:\n%s" % (build, r.stdout[-2000:]))
    return names


def selftest(root):
    """The check can fail: one good mutant passes, and each broken variant of
    it is reported."""
    good = dict(id="self.good", file="tests/mutation/mutants.py", breaks="nothing",
                old="MUTANTS = [", new="MUTANTS = [][",
                tests=r"^mutation\.")
    names = ["mutation.manifest"]
    cases = {
        "ok": ([good], 0),
        "old text gone": ([dict(good, old="no such text in the file")], 1),
        "old text twice": ([dict(good, old="dict(")], 1),
        "no such file": ([dict(good, file="verifier/no_such_file.cpp")], 1),
        "outside the tree": ([dict(good, file="../x.cpp")], 1),
        "duplicate id": ([good, dict(good)], 1),
        "bad id": ([dict(good, id="NoDots")], 1),
        "no-op patch": ([dict(good, new=good["old"])], 1),
        "bad regex": ([dict(good, tests="(")], 1),
        "regex selects nothing": ([dict(good, tests="^nothing$")], 1),
        "missing field": ([{k: v for k, v in good.items() if k != "breaks"}], 1),
        "unknown field": ([dict(good, targets="x")], 1),
        "empty equivalence": ([dict(good, equivalent=" ")], 1),
    }
    failed = 0
    for name, (ms, want) in cases.items():
        got = len(problems(ms, root, names))
        if got != want:
            print("selftest %s: %d problems, expected %d" % (name, got, want))
            failed += 1
    print("selftest: %d cases, %d wrong" % (len(cases), failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--build")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest(a.root)
    sys.path.insert(0, HERE)
    from mutants import MUTANTS
    names = ctest_names(a.build) if a.build else None
    bad = problems(MUTANTS, a.root, names)
    for p in bad:
        print("error: " + p)
    print("%d mutants, %d problems" % (len(MUTANTS), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
