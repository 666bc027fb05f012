#!/usr/bin/env python3
"""cli.catalog: every rule id fusecert's code can emit has an entry in
rules/catalog.yaml (which SARIF's rules[] and helpUri come from), and the
catalog names no rule the code cannot emit. The ids are read from the source,
never listed here:
  - docaudit's rules: builtin_rule_ids() in docaudit/ruleset.cpp;
  - the guards' obligation ids (a guard's diagnostic carries its obligation id):
    kObligations in verifier/guards/obligations.h, a prefix entry as its
    first instance (P3.reduce_into_state.out0, TV.result0);
  - every literal id of the input., cert. and TV. families, and the rule
    argument of every diag::error/warning/remark/make call, in verifier/,
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
family = re.compile(r'"((?:input|cert|TV)\.[A-Za-z0-9_.-]+)"')
# (the rule is the argument before the message: a literal followed by a comma)
call = re.compile(r'diag::(?:error|warning|remark)\([^;"]*?,\s*"([^"]*)"\s*,|diag::make\([^;"]*?,[^;"]*?,\s*"([^"]*)"\s*,', re.S)
for top in ("verifier", "tools", "shell", "support", "docaudit"):
    for root, _, files in os.walk(os.path.join(SRC, top)):
        for fn in files:
            if not fn.endswith((".cpp", ".h")):
                continue
            path = os.path.join(root, fn)
            rel = os.path.relpath(path, SRC)
            text = open(path, encoding="utf-8", errors="replace").read()
            for r in family.findall(text):
                add(r, rel)
            for a, b in call.findall(text):
                add(a or b, rel)

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

for f in failures:
    print("FAIL:", f)
print(f"{len(emitted)} emitted rule ids, {len(catalog)} catalog entries, {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
