#!/usr/bin/env python3
"""Every SARIF file fusecert writes is SARIF 2.1.0 that code scanning uses well (issue #22).

Runs the real binary on fixtures and collects the SARIF of: docs, certify of
one file, certify of a tree (results.sarif) and of a merge, check-cert,
validate and prove. Each file must validate against the SARIF 2.1.0 schema
(fixtures/schemas/sarif-2.1.0-rtm.5.json, python3-jsonschema) and carry,
checked field by field:
  - stable ruleIds: one id per rule of the catalog, the instance (an output,
    a candidate) in result.properties.instance, never in the id;
  - rules[] entries with shortDescription, fullDescription, help and a helpUri
    that names a heading of fusecert's docs;
  - partialFingerprints, different for different results (results that
    differ only by their line: one broken link on two identical lines, the
    two producers of a tied weight reported at one location), and the same
    after a blank line is inserted above the results;
  - originalUriBaseIds' description names what %SRCROOT% is for the
    command (--repo-root only for docs, the one command that has it);
  - an input outside %SRCROOT% is an absolute file:// URI with no uriBaseId;
  - check-cert of a certificate it cannot re-derive (no --ir, exit 4) writes a
    cert.not_verified warning, so code scanning shows it was not verified;
  - prove: no result when every proposition is as expected, an error
    prove.differs or a warning prove.inconclusive at the proposition's entry
    in rules/propositions.yaml otherwise;
  - columnKind utf16CodeUnits, with startColumn the UTF-16 column of the byte
    column that the text form of the same run prints (a line with non-ASCII
    text before the finding tells the two apart);
  - %SRCROOT%-relative, percent-encoded artifact URIs (no absolute path);
  - tool name and version, and the solvers / libraries in tool.extensions.

With --corpus CORPUS (../shared/corpus), only docs on the Tessera audit tree:
valid, and no two of its results share a fingerprint; exit 77 (CTest:
Skipped), saying why, when CORPUS/tessera/docs/audit is not there, never a
pass (cli.sarif_corpus).

Usage: sarif_test.py FUSECERT SRCDIR [--corpus CORPUS]
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
CORPUS = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--corpus" else ""
if len(sys.argv) > 3 and not CORPUS:
    sys.exit("usage: sarif_test.py FUSECERT SRCDIR [--corpus CORPUS]")
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


def fingerprints(log):
    """{fingerprint: (ruleId, uri, message)} of a log's results."""
    out = {}
    for r in log["runs"][0].get("results", []):
        al = r["locations"][0]["physicalLocation"]["artifactLocation"]
        out[json.dumps(r.get("partialFingerprints", {}), sort_keys=True)] = (r["ruleId"], al.get("uri"), r["message"]["text"])
    return out


def start_lines(log):
    return sorted(r["locations"][0]["physicalLocation"].get("region", {}).get("startLine", 0)
                  for r in log["runs"][0].get("results", []))


def insert_blank_line(path, before_line):
    """Inserts an empty line above line `before_line` (1-based) of `path`."""
    lines = open(path, "rb").read().split(b"\n")
    lines.insert(before_line - 1, b"")
    open(path, "wb").write(b"\n".join(lines))


def check_sarif(name, path, root, text_out=None, want_ext=(), want_results=True, outside=()):
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
    # What %SRCROOT% is, in the command's own terms: only docs has --repo-root.
    desc = run0.get("originalUriBaseIds", {}).get("%SRCROOT%", {}).get("description", {}).get("text", "")
    if name.startswith("docs"):
        check("--repo-root" in desc and "repository root" in desc, f"{name}: %SRCROOT% description {desc!r}")
    else:
        check("--repo-root" not in desc and "working folder" in desc, f"{name}: %SRCROOT% description {desc!r}")
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
        check(re.fullmatch(r"[0-9a-f]{64}:\d+", fp.get("fusecert/v2", "")), f"{name}: fingerprint {fp} is not fusecert/v2 HASH:N")
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            # A location about no file has no physicalLocation (only a
            # related one may: a note with a message); never an empty one.
            if "physicalLocation" not in loc:
                check(loc in r.get("relatedLocations", []) and loc.get("message", {}).get("text"),
                      f"{name}: a location with neither a physicalLocation nor a message: {loc}")
                continue
            al = loc["physicalLocation"]["artifactLocation"]
            # A result's file, never the folder (issue #13: `"uri": "."` for an op MLIR knew no place of).
            u = al.get("uri", "")
            check(u not in ("", ".", "./") and not u.endswith("/"), f"{name}: artifactLocation names no file: {al}")
            if al.get("uri", "").startswith("file://"):
                # Outside %SRCROOT%: an absolute file URI of the file's real path, no uriBaseId (SARIF 2.1.0 §3.4.4).
                check("uriBaseId" not in al, f"{name}: absolute {al} has a uriBaseId")
                real = urllib.parse.unquote(al["uri"][len("file://"):])
                check(real in outside, f"{name}: absolute uri {al['uri']!r} is none of the files outside %SRCROOT% {outside}")
                check(al["uri"] == "file://" + urllib.parse.quote(real, safe="/-._~"), f"{name}: uri not percent-encoded: {al['uri']!r}")
                continue
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


def tessera_corpus():
    """The Tessera audit tree (real documents nobody here wrote): valid SARIF,
    one fingerprint per result. Exit 77 (skipped) when it is not there."""
    tess = os.path.join(CORPUS, "tessera")
    if not os.path.isdir(os.path.join(tess, "docs", "audit")):
        print(f"SKIP: {tess}/docs/audit not found (../shared/corpus beside the checkout)")
        sys.exit(77)
    s = run(["docs", "--repo-root", tess, "docs/audit", "--today", "2026-12-01", "--format", "sarif"], tess, want=(0, 1))
    out = os.path.join(W, "tessera-docs.sarif")
    open(out, "w").write(s.stdout)
    clog = check_sarif("docs on the tessera audit tree", out, tess)
    if clog:
        check(len(clog["runs"][0]["results"]) > 100, f"docs on the tessera audit tree: only {len(clog['runs'][0]['results'])} results")


class CorpusOnly(Exception):
    """--corpus: the fixture runs below are cli.sarif's, not this run's."""


W = tempfile.mkdtemp()
try:
    if CORPUS:
        tessera_corpus()
        raise CorpusOnly
    # A project: docs with a finding after non-ASCII text, IR in a folder with a space.
    P = os.path.join(W, "project")
    shutil.copytree(os.path.join(SRC, "fixtures/docs/anchor.broken-link/fail"), P)
    os.makedirs(os.path.join(P, ".git"))
    audit = os.path.join(P, "docs", "audit")
    docs = sorted(f for f in os.listdir(audit) if f.endswith(".md"))
    with open(os.path.join(audit, docs[0]), "a", encoding="utf-8") as f:
        f.write("\nÄÖÜ ∑ 𝔽 see [the missing page](missing-ü.md).\n")
        # One broken link on two identical lines and on a third, other line:
        # three results of one rule, file and message that differ by line only.
        f.write("\nsee [gone](gone.md)\n\nsee [gone](gone.md)\n\nand  [gone](gone.md)  too\n")
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
    dlog = json.load(open(os.path.join(W, "docs.sarif"), encoding="utf-8"))
    gone = [r for r in dlog["runs"][0]["results"] if "gone.md" in r["message"]["text"]]
    check(len(gone) == 3 and len({r["message"]["text"] for r in gone}) == 1,
          f"docs: want 3 results for the three gone.md links, with one message: {[r['message']['text'] for r in gone]}")
    # A blank line above the first of them: every result keeps its fingerprint
    # (the moved ones included), and the moved ones did move.
    readme = os.path.join(audit, docs[0])
    first_gone = min(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in gone)
    insert_blank_line(readme, first_gone)
    s2 = run(["docs", "--today", "2026-09-01", "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "docs2.sarif"), "w").write(s2.stdout)
    dlog2 = check_sarif("docs after a blank line", os.path.join(W, "docs2.sarif"), P)
    if dlog2:
        check(fingerprints(dlog2) == fingerprints(dlog),
              f"docs: fingerprints changed when a blank line was inserted above: {set(fingerprints(dlog)) ^ set(fingerprints(dlog2))}")
        check(start_lines(dlog2) != start_lines(dlog), "docs: no result moved (the blank line test tests nothing)")

    # certify, one file
    f1 = "ir dir/global_clip_linalg.mlir"
    t = run(["certify", f1], P, want=(1,))
    s = run(["certify", f1, "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "certify.sarif"), "w").write(s.stdout)
    check_sarif("certify", os.path.join(W, "certify.sarif"), P, text_out=t.stdout, want_ext=("Z3", "MLIR"))

    # certify: a tied weight, whose two producers are reported at one location
    # (one rule, candidate function and consumer, message): two results, two fingerprints.
    shutil.copy(os.path.join(SRC, "fixtures/ir/tied_weight_tessera.mlir"), os.path.join(P, "ir dir", "tied.mlir"))
    tied = "ir dir/tied.mlir"
    t = run(["certify", tied], P, want=(1,))
    s = run(["certify", tied, "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "tied.sarif"), "w").write(s.stdout)
    tlog = check_sarif("certify tied weight", os.path.join(W, "tied.sarif"), P, text_out=t.stdout, want_ext=("Z3", "MLIR"))
    if tlog:
        p1 = [r for r in tlog["runs"][0]["results"] if r["ruleId"] == "P1.single_use"]
        where = {json.dumps(r["locations"][0]["physicalLocation"]["region"]) for r in p1}
        check(len(p1) == 2 and len(where) == 1, f"certify tied weight: want two P1.single_use results at one location: {len(p1)} at {where}")
        insert_blank_line(os.path.join(P, tied), 13)  # above both results (line 13)
        s2 = run(["certify", tied, "--format", "sarif"], P, want=(1,))
        open(os.path.join(W, "tied2.sarif"), "w").write(s2.stdout)
        tlog2 = check_sarif("certify tied weight after a blank line", os.path.join(W, "tied2.sarif"), P, want_ext=("Z3", "MLIR"))
        if tlog2:
            check(fingerprints(tlog2) == fingerprints(tlog), "certify tied weight: fingerprints changed when a blank line was inserted above")
            check(start_lines(tlog2) == [n + 1 for n in start_lines(tlog)], f"certify tied weight: results did not move down one line: {start_lines(tlog)} -> {start_lines(tlog2)}")
        os.remove(os.path.join(P, tied))  # not part of the tree runs below

    # certify an input outside %SRCROOT% (the working folder): an absolute file URI, no uriBaseId.
    sub = os.path.join(P, "ir dir", "sub")
    outside_file = os.path.realpath(os.path.join(P, f1))
    s = run(["certify", "../global_clip_linalg.mlir", "--format", "sarif"], sub, want=(1,))
    open(os.path.join(W, "outside.sarif"), "w").write(s.stdout)
    olog = check_sarif("certify outside", os.path.join(W, "outside.sarif"), sub, want_ext=("Z3", "MLIR"), outside=(outside_file,))
    if olog:
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in olog["runs"][0]["results"]}
        check(uris == {"file://" + urllib.parse.quote(outside_file, safe="/-._~")}, f"certify outside: uris {uris}")

    # certify IR whose ops MLIR knows no place of (loc(unknown)): the results
    # are at the file (no region), as in the text form `unk.mlir: error: …`.
    unk = open(os.path.join(SRC, "fixtures/ir/global_clip_tessera.mlir"), encoding="utf-8").read()
    unk = re.sub(r"(-> (?:tensor<[^>]*>|\([^)]*\)))$", r"\1 loc(unknown)", unk, flags=re.M)
    check(unk.count("loc(unknown)") >= 2, "the unknown-location input has no loc(unknown)")
    open(os.path.join(P, "unk.mlir"), "w", encoding="utf-8").write(unk)
    t = run(["certify", "unk.mlir"], P, want=(1,))
    check(re.search(r"^unk\.mlir: error: .* \[P2\.clip_scope\]$", t.stdout, re.M), f"certify unknown loc: text {t.stdout[:400]!r}")
    check(not re.search(r"^fusecert[^:]*: (error|note|remark)", t.stdout, re.M), f"certify unknown loc: a diagnostic about no file: {t.stdout[:400]!r}")
    s = run(["certify", "unk.mlir", "--format", "sarif"], P, want=(1,))
    open(os.path.join(W, "unk.sarif"), "w").write(s.stdout)
    ulog = check_sarif("certify unknown loc", os.path.join(W, "unk.sarif"), P, want_ext=("Z3", "MLIR"))
    if ulog:
        for r in ulog["runs"][0]["results"]:
            uris = [l["physicalLocation"]["artifactLocation"]["uri"] for l in r.get("locations", [])]
            check(uris == ["unk.mlir"], f"certify unknown loc: result {r['ruleId']} at {uris}")
    os.remove(os.path.join(P, "unk.mlir"))  # not part of the tree runs below

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
    # check-cert without --ir: consistent, not verified (exit 4): one warning
    # cert.not_verified per certificate, at the certificate.
    c_all = [c for f in idx["files"] for c in f["candidates"]]
    s = run(["check-cert", os.path.join(W, "tree", c_all[0]["certificate"]), "--format", "sarif"], P, want=(4,))
    open(os.path.join(W, "check-noir.sarif"), "w").write(s.stdout)
    nlog = check_sarif("check-cert without --ir", os.path.join(W, "check-noir.sarif"), P, want_ext=("Z3",),
                       outside=(os.path.realpath(os.path.join(W, "tree", c_all[0]["certificate"])),))
    if nlog:
        res = nlog["runs"][0]["results"]
        check([(r["ruleId"], r["level"]) for r in res] == [("cert.not_verified", "warning")],
              f"check-cert without --ir: want one cert.not_verified warning: {[(r['ruleId'], r['level']) for r in res]}")
        check(all("--ir" in r["message"]["text"] for r in res), f"check-cert without --ir: the message does not say to pass --ir: {res[:1]}")

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

    # prove: as expected (exit 0) is no result; a verdict or answer that
    # differs (P2 with beta1 = beta2 = 0, exit 1) an error prove.differs, and an
    # inconclusive one (P1 at a 1 ms timeout, exit 3) a warning
    # prove.inconclusive, each at the proposition's `id:` in rules/propositions.yaml.
    props = os.path.realpath(os.path.join(SRC, "rules", "propositions.yaml"))
    plines = open(props, encoding="utf-8").read().split("\n")
    def id_at(pid):
        for i, line in enumerate(plines):
            m = re.match(r"^(\s*- id: )" + re.escape(pid) + r"\s*$", line)
            if m:
                return i + 1, len(m.group(1)) + 1
        return None
    for case, args, want_rc, want in (
            ("prove as expected", ["prove", "P4", "--no-witness"], 0, []),
            ("prove differs", ["prove", "P2", "--param", "beta1=0", "--param", "beta2=0", "--no-witness"], 1,
             [("prove.differs", "error", "P2")]),
            ("prove inconclusive", ["prove", "P1", "--timeout-ms", "1", "--no-witness"], 3,
             [("prove.inconclusive", "warning", "P1")])):
        s = run(args + ["--format", "sarif"], P, want=(want_rc,))
        out = os.path.join(W, case.replace(" ", "-") + ".sarif")
        open(out, "w").write(s.stdout)
        plog = check_sarif(case, out, P, want_ext=("Z3",), want_results=bool(want), outside=(props,))
        if not plog:
            continue
        res = plog["runs"][0]["results"]
        got = [(r["ruleId"], r["level"], r.get("properties", {}).get("instance")) for r in res]
        check(got == want, f"{case}: results {got}, want {want}")
        for r in res:
            reg = r["locations"][0]["physicalLocation"].get("region", {})
            pid = r.get("properties", {}).get("instance")
            check((reg.get("startLine"), reg.get("startColumn")) == id_at(pid),
                  f"{case}: {pid} at {reg}, want its id: in {props} at {id_at(pid)}")

except CorpusOnly:
    pass
finally:
    shutil.rmtree(W, ignore_errors=True)

for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else f"{len(fails)} failed")
sys.exit(1 if fails else 0)
