#!/usr/bin/env python3
"""What an op computes comes from its typed op, never its name (issue #15).

The front end sets ir::ScalarFn (verifier/ir/scalar_fn.h) from MLIR's typed
ops (isa<arith::AddFOp>, ...) and dialect tables give it by `computes:`.
Decision code under verifier/ir/ and verifier/tv/ must not compare an op's
name: a custom op whose name looks like "arith.addf" is not an add, and a
team's dialect that spells its add otherwise is still one.

The scan removes comments (they may explain with real names), then rejects
  * a comparison (==, !=) with a string literal that names an op
    ("<dialect>.<op>", "<dialect>.");
  * a string method (starts_with, ends_with, find, rfind, equals, contains,
    compare, count) called with an op-name literal;
  * a comparison of MLIR's printed op name (getName() / getStringRef()).
Messages may name ops: a literal that is only printed is not a comparison.
The scanner first checks itself on samples it must reject and accept, so a
scanner that matches nothing fails the test.

usage: op_names_test.py SOURCE_ROOT
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from guard_names_test import DIALECTS  # noqa: E402  (upstream MLIR 19 and ML-compiler dialects)

# An op-name literal: a dialect's name, a dot, and its op (or nothing: a
# prefix). Rule ids ("input.attr") are not op names.
OPNAME = r'"(?:' + "|".join(DIALECTS) + r')\.[A-Za-z0-9_.]*"'
PATTERNS = [
    (re.compile(r"(==|!=)\s*" + OPNAME), "a comparison with an op-name literal"),
    (re.compile(OPNAME + r"\s*(==|!=)"), "a comparison with an op-name literal"),
    (re.compile(r"\.(starts_with|ends_with|startswith|endswith|find|rfind|equals|contains|compare|count)\(\s*"
                + OPNAME), "a string method called with an op-name literal"),
    (re.compile(r"get(Name|StringRef)\(\)[^;{}]*?(==|!=|\.equals\(|\.starts_with\(|\.ends_with\(|\.compare\()"),
     "MLIR's op name compared"),
]


def strip_comments(src):
    """`src` with // and /* */ comments and preprocessor lines blanked (string
    literals kept; line numbers kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"' and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif c == "'":
            j = i + 1
            while j < n and src[j] != "'" and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("//", i) or (c == "#" and src[src.rfind("\n", 0, i) + 1:i].strip() == ""):
            while i < n and src[i] != "\n":
                i += 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def problems(src):
    text = strip_comments(src)
    found = {}
    for rx, why in PATTERNS:
        for m in rx.finditer(text):
            found.setdefault(text.count("\n", 0, m.start()) + 1, (why, m.group(0)))
    return [(line, why, what) for line, (why, what) in sorted(found.items())]


def selftest():
    must_reject = [
        'if (n.op == "arith.addf") {}',
        'return y.op != "arith.mulf";',
        'if ("math.sqrt" == n.op) {}',
        'bool k = n == "arith.subf";',
        'if (op.name == "tessera.adamw") {}',
        'if (name.starts_with("stablehlo.")) {}',
        'if (op->getName().getStringRef() == x) {}',
        'if (op.getName().getStringRef().equals(y)) {}',
        'if (b.nodes[o].op == "arith.maximumf") {}',
    ]
    must_accept = [
        '// n.op == "arith.addf" was the old way',
        'fail(op.loc, "linalg.fill: expected ins(c) outs(T)");',
        'o.name = op->getName().getStringRef().str();',
        'if (name == "indexing_maps") continue;',
        'if (n.fn == ScalarFn::Add) {}',
        '#include "verifier/ir/model.h"',
        'fail(at.loc, "body op " + n.op + " has no modelled semantics");',
    ]
    for s in must_reject:
        if not problems(s):
            sys.exit(f"op_names_test: the scanner misses a name comparison in: {s}")
    for s in must_accept:
        if problems(s):
            sys.exit(f"op_names_test: the scanner rejects an allowed line: {s}: {problems(s)}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    selftest()
    root = pathlib.Path(sys.argv[1]) / "verifier"
    files = sorted(p for d in ("ir", "tv") for p in (root / d).rglob("*")
                   if p.suffix in (".h", ".cpp", ".hpp", ".cc", ".inc", ".in"))
    if not files:
        sys.exit(f"op_names_test: no sources under {root}/ir or {root}/tv")
    bad = 0
    for p in files:
        for line, why, what in problems(p.read_text(encoding="utf-8")):
            print(f"{p}:{line}: error: {why}: {what}: what an op computes comes from its typed op "
                  f"(ir::ScalarFn, isa<>) or its table entry (`computes:`), never its name [ir.op_names]")
            bad += 1
    if bad:
        sys.exit(f"op_names_test: {bad} name comparison(s) under verifier/ir and verifier/tv")
    print(f"op_names_test: {len(files)} files, no op-name comparison")


if __name__ == "__main__":
    main()
