#!/usr/bin/env python3
"""Dialect semantics are data (issue #15): renaming `tessera.` to `acme.` and
every key, in both the table and the fixtures, leaves every verdict
unchanged.

The test takes rules/dialects/tessera.yaml and every fixture of fixtures/ir
that uses a tessera op, and writes renamed copies:
  * the table: `dialect: acme`, every key of every entry renamed (a
    `tessera.` key to `acme.` and a new name: tessera.full_k -> acme.whole_k;
    the rest by RENAMES, or `acme_<key>`), dictionary entries too
    (numeric_policy = {accum, storage}), `keys:` extended so that every
    meaning fusecert reads names its new spelling, and the lowering pass
    renamed; roles, operand roles, bodies, kinds and dtype spellings stay:
    they are the semantics;
  * each fixture: every generic-form `"tessera.X"` op is `"acme.X"`, and in
    its attribute dictionary every key the table gives is renamed as in the
    table (misspelt keys stay misspelt: the table does not know them, before
    or after).
It then runs `fusecert certify --split-input-file --format json` once over
the originals and once over the renamed copies with `--dialect acme.yaml`,
maps every new name in the second report back to the old one, and requires
the two reports to be equal: exit code, and per input and split every
diagnostic (rule, severity, location, message) and every candidate
(verdict, obligations, counterexample, residency, ...), leaving out only
what cannot agree (file paths, SHA-256 of the input, solver times).

Before comparing, it checks that the rename happened: the renamed table
holds no `tessera` and the renamed fixtures no tessera op, and the built-in
tessera table cannot be what decides the renamed run (its ops are not in
the renamed fixtures).

usage: rename_test.py FUSECERT SOURCE_ROOT WORK_DIR
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys

import yaml

OLD, NEW = "tessera", "acme"
PREEXISTING = "zeta"  # what a fixture's own acme.* ops are respelt to
# New spellings: distinctive, so that mapping them back cannot touch other text.
RENAMES = {
    "tessera.full_k": "acme.whole_k",
    "split_k": "acme_k_splits",
    "transposeA": "acme_trans_lhs",
    "numeric_policy": "acme_precision",
    "accum": "acme_acc_type",
    "storage": "acme_store_type",
    "state_dtype": "acme_moments_type",
    "grad_clip_scope": "acme_clipping",
    "routing": "acme_dispatch",
    "state_locality": "acme_reads",
    "lr": "acme_learning_rate",
    "beta1": "acme_b1",
    "beta2": "acme_b2",
    "eps": "acme_epsilon",
    "weight_decay": "acme_decoupled_decay",
    "step": "acme_t",
    "momentum": "acme_mu",
    "reduction": "acme_combiner",
    "op": "acme_reduce_op",
    "axis": "acme_mesh_axis",
    "ranks": "acme_world",
    "scatter_dim": "acme_shard_dim",
}


def new_key(k):
    if k in RENAMES:
        return RENAMES[k]
    if k.startswith(OLD + "."):
        return NEW + "." + k[len(OLD) + 1:] + "_renamed"
    return NEW + "_" + k


def collect_keys(spec, out):
    """Every key (and dictionary entry key) of an attrs map."""
    for k, v in spec.items():
        out.add(k)
        if isinstance(v, dict):
            collect_keys(v, out)


def rename_attrs(spec):
    out = {}
    for k, v in spec.items():
        out[new_key(k)] = rename_attrs(v) if isinstance(v, dict) else v
    return out


def meanings(root):
    """The meanings fusecert reads (verifier/ir/dialect_table.cpp, meanings())."""
    src = (root / "verifier" / "ir" / "dialect_table.cpp").read_text(encoding="utf-8")
    m = re.search(r"meanings\(\) \{\s*static const std::vector<std::string> m = \{(.*?)\};", src, re.S)
    if not m:
        sys.exit("rename_test: cannot find meanings() in verifier/ir/dialect_table.cpp")
    names = re.findall(r'"([^"]+)"', m.group(1))
    if len(names) < 10:
        sys.exit("rename_test: meanings() lists only " + str(names))
    return names


def rename_table(table, known_meanings):
    keys = set()
    for entry in table["ops"].values():
        collect_keys(entry.get("attrs", {}), keys)
    t = {"dialect": NEW, "dtypes": table.get("dtypes", {})}
    if "lowering" in table:
        t["lowering"] = table["lowering"].replace(OLD, NEW)
    # Every meaning: its old spelling (the table's `keys`, else the meaning's
    # own name) renamed.
    meanings = dict(table.get("keys", {}))
    for k in keys:
        if k in known_meanings and k not in meanings:
            meanings[k] = k
    t["keys"] = {m: new_key(spelling) for m, spelling in meanings.items()}
    ops = {}
    for name, entry in table["ops"].items():
        e = dict(entry)
        if "attrs" in e:
            e["attrs"] = rename_attrs(e["attrs"])
        if "hyper" in e:
            e["hyper"] = [new_key(h) for h in e["hyper"]]
        ops[name] = e
    t["ops"] = ops
    return t, {k: new_key(k) for k in keys}


def skip_string(text, i):
    """Index after the string literal starting at text[i] == '"'."""
    i += 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def balanced(text, i, open_c, close_c):
    """Index after the group opened at text[i] == open_c (strings skipped)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = skip_string(text, i)
            continue
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def rename_dict(body, keymap):
    """Renames the keys of an MLIR attribute dictionary `{...}` (nested too)."""
    out, i = [], 0
    expect_key = True
    while i < len(body):
        c = body[i]
        if c == '"':
            j = skip_string(body, i)
            lit = body[i:j]
            # a quoted key ("tessera.full_k" = ...)
            if expect_key and lit[1:-1] in keymap and re.match(r"\s*(=|,|\})", body[j:]):
                lit = '"' + keymap[lit[1:-1]] + '"'
            out.append(lit)
            i = j
            expect_key = False
            continue
        if c in "{,":
            out.append(c)
            i += 1
            expect_key = True
            continue
        if c in "[(<":
            # an array, a type or a dense literal: no keys inside
            close = {"[": "]", "(": ")", "<": ">"}[c]
            j = balanced(body, i, c, close)
            out.append(body[i:j])
            i = j
            expect_key = False
            continue
        m = re.match(r"[A-Za-z_][\w.$-]*", body[i:])
        if m:
            word = m.group(0)
            if expect_key and word in keymap and re.match(r"\s*(=|,|\})", body[i + len(word):]):
                word = keymap[word]
            out.append(word)
            i += len(m.group(0))
            expect_key = False
            continue
        out.append(c)
        if not c.isspace():
            expect_key = False if c != "=" else False
        i += 1
    return "".join(out)


def rename_fixture(text, keymap):
    out, i = [], 0
    pat = re.compile(r'"' + re.escape(OLD) + r"\.")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        end_name = skip_string(text, m.start())
        out.append('"' + NEW + "." + text[m.end():end_name])
        j = end_name
        # operands
        k = j
        while k < len(text) and text[k] in " \t":
            k += 1
        if k < len(text) and text[k] == "(":
            k = balanced(text, k, "(", ")")
        out.append(text[j:k])
        j = k
        # optional properties <{...}> and attribute dictionary {...}
        while True:
            k = j
            while k < len(text) and text[k] in " \t":
                k += 1
            if text.startswith("<{", k):
                e = balanced(text, k + 1, "{", "}")
                out.append(text[j:k + 1] + rename_dict(text[k + 1:e], keymap) + text[e:e + 1])
                j = e + 1
                continue
            if k < len(text) and text[k] == "{":
                e = balanced(text, k, "{", "}")
                out.append(text[j:k] + rename_dict(text[k:e], keymap))
                j = e
                continue
            break
        i = j
    return "".join(out)


def certify(fusecert, files, extra):
    p = subprocess.run([fusecert, "certify", "--split-input-file", "--format", "json", *extra, *map(str, files)],
                       capture_output=True, text=True, timeout=900)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.exit(f"rename_test: certify did not print JSON (exit {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")


def normalize(x, back):
    if isinstance(x, dict) and x.get("rule") == "input.parse" and isinstance(x.get("location"), dict):
        # MLIR's parser reports a column inside the line, whose text the
        # rename changed (tessera -> acme, longer keys): the line is compared.
        x = dict(x, location={k: v for k, v in x["location"].items() if k != "col"})
    if isinstance(x, dict):
        # dialects: the --dialect tables a certificate records (the renamed
        # run has one, the original none).
        return {k: normalize(v, back) for k, v in sorted(x.items())
                if k not in ("time_ms", "sha256", "time", "dialects")}
    if isinstance(x, list):
        return [normalize(v, back) for v in x]
    if isinstance(x, str):
        return back(x)
    return x


def validate(fusecert, path, extra):
    p = subprocess.run([fusecert, "validate", "--format", "json", *extra, str(path)],
                       capture_output=True, text=True, timeout=900)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.exit(f"rename_test: validate did not print JSON (exit {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")


def compare_validate(fusecert, root, work, keymap, acme, back_orig, back_renamed, problems):
    """`fusecert validate` reads table ops by role and meaning too: every
    one-file fixture of fixtures/tv (and its Inputs) with tessera ops,
    renamed the same way, must give the same report — exit code, verdict,
    diagnostics, and each certificate but for what cannot agree (paths,
    hashes, the digest, the --dialect tables it records)."""
    tv = sorted(p for d in ("", "Inputs") for p in (root / "fixtures" / "tv" / d).glob("*.mlir")
                if '"' + OLD + "." in p.read_text(encoding="utf-8")
                and "func.func @before" in p.read_text(encoding="utf-8"))
    if len(tv) < 10:
        problems.append(f"only {len(tv)} validate fixtures use {OLD} ops")
    (work / "tv_orig").mkdir()
    (work / "tv_renamed").mkdir()
    pairs = 0
    def drop(x):
        if isinstance(x, dict):
            # abstractions: a sorted set of sentences naming the dialect,
            # whose order the new names change.
            return {k: sorted(v) if k == "abstractions" else drop(v) for k, v in x.items()
                    if k not in ("digest", "file")}
        if isinstance(x, list):
            return [drop(v) for v in x]
        return x
    for f in tv:
        text = f.read_text(encoding="utf-8")
        r = rename_fixture(text, keymap)
        if '"' + OLD + "." in r:
            problems.append(f"tv/{f.name}: a {OLD} op survived the rename")
            continue
        a_path, b_path = work / "tv_orig" / f.name, work / "tv_renamed" / f.name
        a_path.write_text(text, encoding="utf-8")
        b_path.write_text(r, encoding="utf-8")
        rc_a, a = validate(fusecert, a_path, [])
        rc_b, b = validate(fusecert, b_path, ["--dialect", str(acme)])
        na = drop(normalize(a, lambda s: back_orig(s.replace(str(work / "tv_orig") + "/", ""))))
        nb = drop(normalize(b, lambda s: back_renamed(s.replace(str(work / "tv_renamed") + "/", ""))))
        if rc_a != rc_b:
            problems.append(f"tv/{f.name}: validate exit {rc_a} before the rename, {rc_b} after")
        for k in sorted(set(na) | set(nb)):
            if na.get(k) != nb.get(k):
                problems.append(f"tv/{f.name}: validate '{k}' differs:\n  before: {json.dumps(na.get(k))[:1500]}\n"
                                f"  after:  {json.dumps(nb.get(k))[:1500]}")
        pairs += len(a.get("certificates", []))
    if pairs < 8:
        problems.append(f"only {pairs} validated pairs compared")
    return pairs


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    fusecert, root, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    table_path = root / "rules" / "dialects" / (OLD + ".yaml")
    table = yaml.safe_load(table_path.read_text(encoding="utf-8"))
    renamed, keymap = rename_table(table, meanings(root))
    shutil.rmtree(work, ignore_errors=True)
    (work / "orig").mkdir(parents=True)
    (work / "renamed").mkdir(parents=True)
    acme = work / (NEW + ".yaml")
    acme.write_text(yaml.safe_dump(renamed, sort_keys=False), encoding="utf-8")
    if OLD in acme.read_text(encoding="utf-8"):
        sys.exit("rename_test: the renamed table still says " + OLD)

    fixtures = sorted(p for p in (root / "fixtures" / "ir").glob("*.mlir")
                      if '"' + OLD + "." in p.read_text(encoding="utf-8"))
    if len(fixtures) < 20:
        sys.exit(f"rename_test: only {len(fixtures)} fixtures use {OLD} ops")
    orig, new = [], []
    for f in fixtures:
        text = f.read_text(encoding="utf-8")
        # A fixture that already has ops of a dialect spelt like the new one
        # (unknown `acme.*` ops) gets them respelt in both copies first, so
        # that mapping names back cannot confuse them with renamed ones.
        if re.search(r"(?<!\w)" + NEW + r"(?!\w)", text):
            text = re.sub(r"(?<!\w)" + NEW + r"(?!\w)", PREEXISTING, text)
        r = rename_fixture(text, keymap)
        if '"' + OLD + "." in r:
            sys.exit(f"rename_test: {f.name}: a {OLD} op survived the rename")
        if r == text:
            sys.exit(f"rename_test: {f.name}: nothing renamed")
        (work / "orig" / f.name).write_text(text, encoding="utf-8")
        (work / "renamed" / f.name).write_text(r, encoding="utf-8")
        orig.append(work / "orig" / f.name)
        new.append(work / "renamed" / f.name)

    rc_a, a = certify(fusecert, orig, [])
    rc_b, b = certify(fusecert, new, ["--dialect", str(acme)])

    inverse = sorted(((v, k) for k, v in keymap.items()), key=lambda p: -len(p[0]))
    def hints(s):
        # "(did you mean 'split_k'?)" is a hint computed from the spelling
        # distance between a misspelt key and the table's keys; the misspelt
        # key is not renamed (the table does not know it), so the hint may
        # differ. It decides nothing; the rest of the message is compared.
        return re.sub(r" \(did you mean '[^']*'\?\)", "", s)
    def back_renamed(s):
        s = s.replace(str(work / "renamed") + "/", "").replace(str(acme), "rules/dialects/" + OLD + ".yaml")
        for new_name, old_name in inverse:
            s = re.sub(r"(?<!\w)" + re.escape(new_name) + r"(?!\w)", old_name, s)
        s = re.sub(r"(?<!\w)" + NEW + r"(?!\w)", OLD, s)
        return hints(s)
    def back_orig(s):
        return hints(s.replace(str(work / "orig") + "/", "").replace(str(table_path), "rules/dialects/" + OLD + ".yaml"))

    na, nb = normalize(a, back_orig), normalize(b, back_renamed)
    problems = []
    if rc_a != rc_b:
        problems.append(f"exit code {rc_a} before the rename, {rc_b} after")
    ia, ib = na.get("inputs", []), nb.get("inputs", [])
    if len(ia) != len(ib):
        problems.append(f"{len(ia)} inputs before, {len(ib)} after")
    verdicts = 0
    for x, y in zip(ia, ib):
        where = x.get("file", "?") + (f" split {x['split']['index']}" if "split" in x else "")
        for c in x.get("candidates", []):
            verdicts += 1
        if x != y:
            for k in sorted(set(x) | set(y)):
                if x.get(k) != y.get(k):
                    problems.append(f"{where}: '{k}' differs:\n  before: {json.dumps(x.get(k))[:1500]}\n"
                                    f"  after:  {json.dumps(y.get(k))[:1500]}")
    if verdicts < 20:
        problems.append(f"only {verdicts} candidates compared")
    pairs = compare_validate(fusecert, root, work, keymap, acme, back_orig, back_renamed, problems)
    if problems:
        for p in problems:
            print("rename_test: " + p)
        sys.exit(f"rename_test: {len(problems)} difference(s) after renaming {OLD}. to {NEW}. and every key")
    print(f"rename_test: {len(fixtures)} fixtures, {len(ia)} modules, {verdicts} candidates, {pairs} validated "
          f"pairs: the same report after renaming {OLD}. to {NEW}. and {len(keymap)} keys (exit {rc_a})")


if __name__ == "__main__":
    main()
