#!/usr/bin/env python3
"""The tessera table against Tessera's op definitions (#15 acceptance, D1).

rules/dialects/tessera.yaml is taken from Tessera's compiler/ir/TesseraOps.td
(in ../shared/corpus/tessera/src). Valid Tessera IR must never be an
attribute error, so for every entry of the table whose op the .td defines:
  * every attribute the .td gives the op (OptionalAttr<K>, DefaultValuedAttr<K,
    ...> or K) is a key of the entry (its own attrs or through attrs_of);
  * with the kind the .td gives it: F64Attr / F32Attr -> float, I64Attr /
    I32Attr -> int, BoolAttr -> bool, StrAttr -> string or dtype, UnitAttr ->
    unit, Tessera_NumericPolicyAttr -> a map; any other .td kind fails the
    test until it is mapped here;
  * the entry's operand count is one the .td allows (Optional<...> operands
    may be absent).
Entries the .td does not define must be listed in NOT_IN_TD with the reason.
A .td op whose summary says it is an optimizer step and which the table
lacks fails too (tessera.adam, tessera.nesterov were missing).
Exit 77 (skipped) without the corpus.
Usage: tessera_td_test.py SRCDIR CORPUS
"""
import re
import sys
from pathlib import Path

import yaml

# Table entries with no TesseraOps.td definition, and why they are listed.
NOT_IN_TD = {
    "clip_by_global_norm": "a global-norm clip of the gradient (fusecert's spec, ir-and-certificates.md)",
    "optim.decay": "a gradient-free decay pass of optimizer state (fusecert's spec)",
    "training.wgrad_adamw": "the fused-op family of ../shared/spec/ir-and-certificates.md",
    "training.wgrad_sgd": "the fused-op family of ../shared/spec/ir-and-certificates.md",
    "training.wgrad_momentum": "the fused-op family of ../shared/spec/ir-and-certificates.md",
}

KINDS = {
    "F64Attr": {"float"}, "F32Attr": {"float"},
    "I64Attr": {"int"}, "I32Attr": {"int"},
    "BoolAttr": {"bool"},
    "StrAttr": {"string", "dtype"},
    "UnitAttr": {"unit"},
    "Tessera_NumericPolicyAttr": {"map"},
}


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def arguments(body):
    m = re.search(r"let arguments = \(ins(.*?)\);", body, re.S)
    if not m:
        return [], []
    operands, attrs = [], {}
    for p in split_top(m.group(1)):
        if ":$" not in p:
            continue
        ty, name = p.rsplit(":$", 1)
        ty = ty.strip()
        base = ty
        w = re.match(r"(OptionalAttr|DefaultValuedAttr)<\s*([\w:]+)", ty)
        if w:
            base = w.group(2)
        if base.endswith("Attr") or w:
            attrs[name.strip()] = base
        else:
            operands.append(ty)
    return operands, attrs


def td_ops(td):
    """mnemonic -> (operand types, {attr: kind}, summary)."""
    classes, ops = {}, {}
    # A record with a body: its header (no ';' before the '{') and its body
    # up to the first line that starts with '}'. One-line defs (`def X :
    # Y<...>;`) have no body and are read below.
    for m in re.finditer(r"^(class|def) (\w+)([^;{]*)\{(.*?)^}", td, re.S | re.M):
        kind, name, header, body = m.groups()
        body = header + "{" + body
        summary = re.search(r'let summary = (\w+|"[^"]*")', body)
        if kind == "class":
            classes[name] = body
            continue
        direct = re.match(r"\s*:\s*Op<\s*Tessera_Dialect,\s*\"([\w.]+)\"", body)
        if direct:
            opnds, attrs = arguments(body)
            ops[direct.group(1)] = (opnds, attrs, summary.group(1) if summary else "")
    # Ops defined through a class: def X : Tessera_Cls<"mnemonic", "summary">;
    for m in re.finditer(r"^def (\w+)\s*:\s*(\w+)<\s*\"([\w.]+)\"\s*,\s*\"([^\"]*)\"", td, re.M):
        _, cls, mnemonic, summary = m.groups()
        if cls in classes:
            opnds, attrs = arguments(classes[cls])
            ops[mnemonic] = (opnds, attrs, summary)
    return ops


def main():
    src, corpus = Path(sys.argv[1]), Path(sys.argv[2])
    td_path = corpus / "tessera" / "src" / "compiler" / "ir" / "TesseraOps.td"
    if not td_path.is_file():
        print(f"tessera_td_test: {td_path} not found: skipped")
        sys.exit(77)
    ops = td_ops(td_path.read_text(encoding="utf-8"))
    table = yaml.safe_load((src / "rules" / "dialects" / "tessera.yaml").read_text(encoding="utf-8"))
    entries = table["ops"]
    problems = []
    if len(ops) < 50:
        problems.append(f"only {len(ops)} ops parsed from {td_path}")

    def keys_of(name):
        e = entries[name]
        out = dict(e.get("attrs") or {})
        for other in e.get("attrs_of", []) or []:
            out.update(entries[other].get("attrs") or {})
        return out

    checked = 0
    for name, entry in entries.items():
        if name not in ops:
            if name not in NOT_IN_TD:
                problems.append(f"tessera.{name}: in the table, but TesseraOps.td defines no such op (list it in NOT_IN_TD with why)")
            continue
        checked += 1
        opnds, attrs, _ = ops[name]
        keys = keys_of(name)
        for attr, tdkind in attrs.items():
            if tdkind not in KINDS:
                problems.append(f"tessera.{name}: '{attr}' has the .td kind {tdkind}, which this test does not map")
                continue
            if attr not in keys:
                problems.append(f"tessera.{name}: TesseraOps.td gives it '{attr}' ({tdkind}); the table does not")
                continue
            k = keys[attr]
            given = {"map"} if isinstance(k, dict) else set(k if isinstance(k, list) else [k])
            if not given & KINDS[tdkind]:
                problems.append(f"tessera.{name}: '{attr}' is {tdkind} in TesseraOps.td; the table gives {sorted(given)}")
        required = sum(1 for t in opnds if not t.startswith("Optional<") and not t.startswith("Variadic<"))
        n = len(entry.get("operands", []))
        if not required <= n <= len(opnds):
            problems.append(f"tessera.{name}: {n} operands in the table; TesseraOps.td gives {required} to {len(opnds)}")
    # Optimizer steps the .td defines must be in the table (opaque at least).
    for mnemonic, (opnds, attrs, summary) in ops.items():
        s = summary.lower()
        if "optimizer" in s and "step" in s and "backward" not in mnemonic and mnemonic not in entries:
            problems.append(f"tessera.{mnemonic}: an optimizer step in TesseraOps.td ({summary}); the table lacks it")
    for mnemonic in ("adam", "nesterov", "momentum", "sgd", "adamw", "lion", "adafactor"):
        if mnemonic not in entries:
            problems.append(f"tessera.{mnemonic}: a Tessera optimizer the table lacks")
    if checked < 10:
        problems.append(f"only {checked} table entries checked against the .td")
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)
    print(f"tessera_td_test: {checked} table entries match TesseraOps.td ({len(ops)} ops parsed)")


if __name__ == "__main__":
    main()
