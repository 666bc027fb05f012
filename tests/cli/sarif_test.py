#!/usr/bin/env python3
"""Every SARIF file fusecert writes is SARIF 2.1.0 that code scanning uses well (issue #22).

Runs the real binary on fixtures and collects the SARIF of: docs, certify of
one file, certify of a tree (results.sarif) and of a merge, check-cert and
validate. Each file must validate against the SARIF 2.1.0 schema
(fixtures/schemas/sarif-2.1.0-rtm.5.json, python3-jsonschema) and carry,
checked field by field:
  - stable ruleIds: one id per rule of the catalog, the instance (an output,
    a candidate) in result.properties.instance, never in the id;
  - rules[] entries with shortDescription, fullDescription, help and a helpUri
    that names a heading of fusecert's docs;
  - partialFingerprints, different for different results;
  - columnKind utf16CodeUnits, with startColumn the UTF-16 column of the byte
    column that the text form of the same run prints (a line with non-ASCII
    text before the finding tells the two apart);
  - %SRCROOT%-relative, percent-encoded artifact URIs (no absolute path);
  - tool name and version, and the solvers / libraries in tool.extensions.

Usage: sarif_test.py FUSECERT SRCDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import jsonschema

BIN, SRC = sys.argv[1], sys.argv[2]
SCHEMA = json.load(open(os.path.join(SRC, "fixtures/schemas/sarif-2.1.0-rtm.5.json"), encoding="utf-8"))
VALIDATOR = jsonschema.Draft4Validator(SCHEMA)
fails = []
UTF16_SEEN = set()  # outputs where a UTF-16 column differed from the byte column and was right


def check(cond, msg):
    if not cond:
        fails.append(msg)


def run(args, cwd, want=None):
    p = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    if want is not None:
        check(p.returncode in want, f"{' '.join(args)}: exit {p.returncode}, want {want}: {p.stderr[-400:]}")
    return p


def headings(md_path):
    """GitHub-style anchors of a Markdown file's headings."""
    out = set()
    for line in open(md_path, encoding="utf-8"):
        m = re.match(r"^#+\s+(.*)$", line)
        if m:
            t = m.group(1).strip().lower()
            t = re.sub(r"[^\w\- ]", "", t).replace(" ", "-")
            out.add(t)
    return out


def text_columns(text):
    """{(file, line): [byte columns]} from the text form `file:line:col: severity:`."""
    cols = {}
    for m in re.finditer(r"^(.+?):(\d+):(\d+): (?:error|warning|note|remark):", text, re.M):
        cols.setdefault((m.group(1), int(m.group(2))), []).append(int(m.group(3)))
    return cols


def utf16_col(line_bytes, byte_col):
    prefix = line_bytes[: byte_col - 1].decode("utf-8", errors="replace")
    return len(prefix.encode("utf-16-le")) // 2 + 1


def check_sarif(name, path, root, text_out=None, want_ext=(), want_results=True):
    try:
        log = json.load(open(path, encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        fails.append(f"{name}: not JSON: {e}")
        return
    for e in VALIDATOR.iter_errors(log):
        fails.append(f"{name}: schema: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    check(log.get("version") == "2.1.0", f"{name}: version")
    run0 = log["runs"][0]
    check(run0.get("columnKind") == "utf16CodeUnits", f"{name}: columnKind {run0.get('columnKind')!r}")
    check("%SRCROOT%" in run0.get("originalUriBaseIds", {}), f"{name}: no %SRCROOT% in originalUriBaseIds")
    drv = run0["tool"]["driver"]
    check(drv.get("name") == "fusecert" and drv.get("version"), f"{name}: driver name/version {drv.get('name')}")
    ext = {e["name"]: e.get("version") for e in run0["tool"].get("extensions", [])}
    for w in want_ext:
        check(ext.get(w), f"{name}: tool.extensions lacks {w} with a version: {ext}")
    rules = {r["id"]: r for r in drv.get("rules", [])}
    for rid, r in rules.items():
        check(not r.get("properties", {}).get("uncatalogued"), f"{name}: rule {rid} has no entry in rules/catalog.yaml")
        for k in ("shortDescription", "fullDescription", "help"):
            check(r.get(k, {}).get("text"), f"{name}: rule {rid} has no {k}.text")
        uri = r.get("helpUri", "")
        u = urllib.parse.urlsplit(uri)
        check(u.scheme in ("https", "file") and u.path.endswith(".md") and u.fragment, f"{name}: rule {rid} helpUri {uri!r}")
        doc = os.path.join(SRC, "docs", urllib.parse.unquote(u.path).split("/docs/", 1)[-1])
        check(os.path.isfile(doc), f"{name}: rule {rid} helpUri names no doc: {uri}")
        if os.path.isfile(doc):
            check(u.fragment in headings(doc), f"{name}: rule {rid} helpUri anchor #{u.fragment} is no heading of {doc}")
    results = run0.get("results", [])
    if want_results:
        check(results, f"{name}: no results")
    fps = set()
    for r in results:
        rid = r.get("ruleId", "")
        check(rid in rules, f"{name}: result ruleId {rid!r} not in rules[]")
        check(not re.search(r"\.(out|in|arg|res)\d+$|\.r\d+$|:\d+", rid), f"{name}: ruleId {rid!r} carries an instance")
        fp = r.get("partialFingerprints", {})
        check(fp, f"{name}: result {rid} has no partialFingerprints")
        key = json.dumps(fp, sort_keys=True)
        check(key not in fps, f"{name}: two results share the fingerprint {key}")
        fps.add(key)
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            al = loc["physicalLocation"]["artifactLocation"]
            check(al.get("uriBaseId") == "%SRCROOT%", f"{name}: {al} not %SRCROOT%-relative")
            uri = al.get("uri", "")
            check(not uri.startswith("/") and "://" not in uri, f"{name}: absolute uri {uri!r}")
            check(uri == urllib.parse.quote(urllib.parse.unquote(uri), safe="/-._~"), f"{name}: uri not percent-encoded: {uri!r}")
    # UTF-16 columns: each result's column is the UTF-16 form of a byte column the text form printed.
    if text_out is not None:
        tcols = text_columns(text_out)
        for r in results:
            pl = r["locations"][0]["physicalLocation"]
            rel = urllib.parse.unquote(pl["artifactLocation"]["uri"])
            reg = pl.get("region", {})
            if "startColumn" not in reg:
                continue
            ln = reg["startLine"]
            byte_cols = [c for (f, l), cs in tcols.items() for c in cs
                         if l == ln and os.path.normpath(os.path.join(root, f)) == os.path.normpath(os.path.join(root, rel))]
            if not byte_cols:  # a result the text form prints otherwise (validate's verdict lines)
                continue
            line = open(os.path.join(root, rel), "rb").read().split(b"\n")[ln - 1]
            check(any(utf16_col(line, b) == reg["startColumn"] for b in byte_cols),
                  f"{name}: {rel}:{ln} startColumn {reg['startColumn']} is none of the UTF-16 forms of the byte columns {byte_cols}")
            if any(utf16_col(line, b) != b for b in byte_cols):
                UTF16_SEEN.add(name)
    return log


W = tempfile.mkdtemp()
try:
    # A project: docs with a finding after non-ASCII text, IR in a folder with a space.
    P = os.path.join(W, "project")
    shutil.copytree(os.path.join(SRC, "fixtures/docs/anchor.broken-link/fail"), P)
    os.makedirs(os.path.join(P, ".git"))
    audit = os.path.join(P, "docs", "audit")
    docs = sorted(f for f in os.listdir(audit) if f.endswith(".md"))
    with open(os.path.join(audit, docs[0]), "a", encoding="utf-8") as f:
        f.write("\nÄÖÜ ∑ 𝔽 see [the missing page](missing-ü.md).\n")
    os.makedirs(os.path.join(P, "ir dir", "sub"))
    for src, dst in (("global_clip_linalg.mlir", "ir dir/global_clip_linalg.mlir"),
                     ("layer_clip_linalg.mlir", "ir dir/sub/layer_clip_linalg.mlir"),
                     ("reduce_into_state_v_linalg.mlir", "ir dir/sub/v_linalg.mlir")):
        shutil.copy(os.path.join(SRC, "fixtures/ir", src), os.path.join(P, dst))

    # docs
    t = run(["docs", "--today", "2026-09-01"], P, want=(1,))
    s = run(["docs", "--today", "2026-09-01", "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "docs.sarif"), "w").write(s.stdout)
    check_sarif("docs", os.path.join(W, "docs.sarif"), P, text_out=t.stdout)
    check("docs" in UTF16_SEEN, "docs: the finding after non-ASCII text was not checked in UTF-16 (the case that tells bytes from UTF-16)")

    # certify, one file
    f1 = "ir dir/global_clip_linalg.mlir"
    t = run(["certify", f1], P, want=(1,))
    s = run(["certify", f1, "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "certify.sarif"), "w").write(s.stdout)
    check_sarif("certify", os.path.join(W, "certify.sarif"), P, text_out=t.stdout, want_ext=("Z3", "MLIR"))

    # certify, a tree; two shards merged
    run(["certify", "ir dir", "--recursive", "--out", os.path.join(W, "tree")], P, want=(1,))
    check_sarif("certify tree", os.path.join(W, "tree", "results.sarif"), P, want_ext=("Z3", "MLIR"))
    for k in (1, 2):
        run(["certify", "ir dir", "--recursive", "--shard", f"{k}/2", "--out", os.path.join(W, f"s{k}")], P, want=(0, 1))
    run(["certify", "--merge", os.path.join(W, "s1"), os.path.join(W, "s2"), "--out", os.path.join(W, "merged")], P, want=(0, 1))
    check_sarif("certify merge", os.path.join(W, "merged", "results.sarif"), P, want_ext=("Z3", "MLIR"))
    check(open(os.path.join(W, "merged", "results.sarif"), "rb").read() == open(os.path.join(W, "tree", "results.sarif"), "rb").read(),
          "merged SARIF differs from the unsharded run's")
    # P3: one rule, instance in properties.
    tree = json.load(open(os.path.join(W, "tree", "results.sarif")))
    p3 = [r for r in tree["runs"][0]["results"] if r["ruleId"].startswith("P3")]
    check(p3 and all(r.get("properties", {}).get("instance") for r in p3), f"P3 results without properties.instance: {p3[:1]}")

    # check-cert: every certificate of the tree, against its input
    idx = json.load(open(os.path.join(W, "tree", "index.json")))
    for f in idx["files"]:
        certs = [os.path.join(W, "tree", c["certificate"]) for c in f["candidates"]]
        if not certs:
            continue
        s = run(["check-cert", *certs, "--ir", f["file"], "--format", "sarif"], P, want=(0,))
        out = os.path.join(W, "check-" + os.path.basename(f["file"]) + ".sarif")
        open(out, "w").write(s.stdout)
        check_sarif("check-cert " + f["file"], out, P, want_ext=("Z3",), want_results=False)
    # check-cert of a tampered certificate: a result
    c0 = [c for f in idx["files"] for c in f["candidates"]][0]
    bad = json.load(open(os.path.join(W, "tree", c0["certificate"])))
    bad["verdict"] = "legal" if bad.get("verdict") != "legal" else "illegal"
    json.dump(bad, open(os.path.join(P, "tampered.cert.json"), "w"))
    s = run(["check-cert", "tampered.cert.json", "--format", "sarif"], P, want=(1, 2, 4))
    open(os.path.join(W, "check-bad.sarif"), "w").write(s.stdout)
    check_sarif("check-cert tampered", os.path.join(W, "check-bad.sarif"), P, want_ext=("Z3",))

    # validate
    shutil.copytree(os.path.join(SRC, "fixtures/tv"), os.path.join(P, "tv"))
    t = run(["validate", "tv/wrong_step.mlir", "--k", "2"], P, want=(1,))
    s = run(["validate", "tv/wrong_step.mlir", "--k", "2", "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "validate.sarif"), "w").write(s.stdout)
    check_sarif("validate", os.path.join(W, "validate.sarif"), P, text_out=t.stdout, want_ext=("Z3", "MLIR"))
finally:
    shutil.rmtree(W, ignore_errors=True)

for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else f"{len(fails)} failed")
sys.exit(1 if fails else 0)
