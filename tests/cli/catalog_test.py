#!/usr/bin/env python3
"""cli.catalog: every rule id fusecert's code can emit has an entry in
rules/catalog.yaml (which SARIF's rules[] and helpUri come from), and the
catalog names no rule the code cannot emit. The ids are read from the source,
never listed here:
  - docaudit's rules: builtin_rule_ids() in docaudit/ruleset.cpp;
  - the guards' obligation ids (a guard's diagnostic carries its obligation id):
    kObligations in verifier/guards/obligations.h, a prefix entry as its
    first instance (P3.reduce_into_state.out0, TV.result0);
  - every literal id of the input., output., cert., solver., hook., shell.,
    kernels., verify. and TV. families, and the rule argument of every
    diag::error/warning/remark/make and fail_with call, in verifier/,
    tools/, shell/, support/ and docaudit/.
A reported id belongs to a catalog id when it equals it or extends it at a
'.' or a digit (support/diag/sarif.h, find_rule). Each entry's doc must be a
heading of a file under docs/.
Usage: catalog_test.py SOURCE_DIR
"""
import os
import re
import sys

import yaml

SRC = sys.argv[1]
failures = []


def read(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return f.read()


def headings(md_path):
    out = set()
    for line in open(md_path, encoding="utf-8"):
        m = re.match(r"^#+\s+(.*)$", line)
        if m:
            t = m.group(1).strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", t).replace(" ", "-"))
    return out


emitted = {}  # id -> where it was found


def add(rule, where):
    if rule:
        emitted.setdefault(rule, where)


# docaudit's rules.
body = re.search(r"builtin_rule_ids\(\)\s*\{(.*?)return ids;", read("docaudit/ruleset.cpp"), re.S)
if not body:
    sys.exit("FAIL: builtin_rule_ids() not found in docaudit/ruleset.cpp")
for r in re.findall(r'"([^"]+)"', body.group(1)):
    add(r, "docaudit/ruleset.cpp builtin_rule_ids()")

# The guards' obligation table.
n = 0
for rid, prefix in re.findall(r'^\s*\{"([^"]+)",\s*(true|false),', read("verifier/guards/obligations.h"), re.M):
    add(rid + "0" if prefix == "true" else rid, "verifier/guards/obligations.h kObligations")
    n += 1
if n < 10:
    sys.exit(f"FAIL: read only {n} obligations from verifier/guards/obligations.h")

# Literal ids and diag:: call rule arguments in the code.
family = re.compile(r'"((?:input|output|cert|solver|hook|shell|kernels|verify|TV)\.[A-Za-z0-9_.-]+)"')
# (the rule is the argument before the message: a literal followed by a comma)
call = re.compile(r'diag::(?:error|warning|remark)\([^;"]*?,\s*"([^"]*)"\s*,|diag::make\([^;"]*?,[^;"]*?,\s*"([^"]*)"\s*,|fail_with\((?:"[^"]*"|[^;"])*?,\s*"([^"]*)"\s*,', re.S)
tool_emitted = set()  # ids emitted outside docaudit/ (fusecert's own diagnostics)
for top in ("verifier", "tools", "shell", "support", "docaudit", "kernels"):  # kernels: the runner's own
    for root, _, files in os.walk(os.path.join(SRC, top)):
        for fn in files:
            if not fn.endswith((".cpp", ".h")):
                continue
            path = os.path.join(root, fn)
            rel = os.path.relpath(path, SRC)
            text = open(path, encoding="utf-8", errors="replace").read()
            found = family.findall(text) + [a or b or c for a, b, c in call.findall(text)]
            for r in found:
                add(r, rel)
                if r and top != "docaudit":
                    tool_emitted.add(r)

catalog = yaml.safe_load(read("rules/catalog.yaml"))["rules"]


def owner(rule):
    best = None
    for cid in catalog:
        if rule == cid or (rule.startswith(cid) and (rule[len(cid)] == "." or rule[len(cid)].isdigit())):
            if best is None or len(cid) > len(best):
                best = cid
    return best


for rule, where in sorted(emitted.items()):
    if owner(rule) is None:
        failures.append(f"{rule} (emitted in {where}) has no entry in rules/catalog.yaml")

owned = {owner(r) for r in emitted}
for cid in sorted(catalog):
    if cid not in owned:
        failures.append(f"rules/catalog.yaml: {cid} is emitted nowhere in the code (a stale or misspelt id)")
    doc = catalog[cid].get("doc", "")
    file, _, anchor = doc.partition("#")
    md = os.path.join(SRC, "docs", file)
    if not os.path.isfile(md) or not anchor or anchor not in headings(md):
        failures.append(f"rules/catalog.yaml: {cid}: doc {doc!r} is no heading of a file under docs/")

# docs/diagnostics.md's rule-id table names every id of fusecert's own
# diagnostics (emitted outside docaudit/, other than an obligation id: those
# are listed in docs/certificates.md, docaudit's in docs/docaudit.md), and
# names no id the catalog lacks.
obligation_owned = set()
for rid, prefix in re.findall(r'^\s*\{"([^"]+)",\s*(true|false),', read("verifier/guards/obligations.h"), re.M):
    obligation_owned.add(owner(rid + "0" if prefix == "true" else rid))
section = re.search(r"^### Rule ids\n(.*?)^#", read("docs/diagnostics.md"), re.S | re.M)
if not section:
    sys.exit("FAIL: docs/diagnostics.md has no '### Rule ids' section")
in_table = set()
for row in re.findall(r"^\|([^|\n]*)\|", section.group(1), re.M):
    in_table.update(re.findall(r"`([A-Za-z0-9_.-]+)`", row))
if len(in_table) < 10:
    sys.exit(f"FAIL: read only {len(in_table)} ids from the rule table of docs/diagnostics.md")
for cid in sorted({owner(r) for r in tool_emitted} - obligation_owned - {None}):
    if cid not in in_table:
        failures.append(f"docs/diagnostics.md: the rule table lacks {cid} (emitted in {emitted[cid] if cid in emitted else 'the code'})")
for t in sorted(in_table):
    if t not in catalog:
        failures.append(f"docs/diagnostics.md: the rule table names {t}, which rules/catalog.yaml does not know")

for f in failures:
    print("FAIL:", f)
print(f"{len(emitted)} emitted rule ids, {len(catalog)} catalog entries, {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
