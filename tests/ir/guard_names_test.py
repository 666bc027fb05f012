#!/usr/bin/env python3
"""The guards see only the typed IR (issue #15): no dialect or optimizer name
appears as a string literal under verifier/guards/.

What an op is comes from its dialect table (ir::spec_of: roles, a
collective's kind, the key spelling of each meaning, the reference update
named by `body:`) or, for upstream MLIR ops, from the front end's typed
reading (ir::Op::kind, ir::Op::access: isa<linalg::GenericOp>, ...). A
guard that compared `op.name == "tessera.clip_by_global_norm"` or
`optimizer == "sgd"` would silently stop working for a team whose dialect
spells it otherwise (the rename test, tests/ir/rename_test.py).

How the scan reads the sources:
  * comments (// ... and /* ... */) are removed first: they may explain
    with real names ("Tessera spells k_whole tessera.full_k"); so are
    preprocessor lines (#include "verifier/smt/arith.h" names a file);
  * every string literal left (ordinary, u8/L/u/U-prefixed and raw
    R"d(...)d") is checked; character literals are skipped;
  * identifiers are not checked (ir::Form::Linalg names a candidate form,
    kLinalg a certificate's form bit);
  * a literal is rejected when it holds an optimizer name as a word
    (case-insensitive: "AdamW's m" is rejected), a dialect name followed by
    '.' and an op or key name ("memref.alloc", "tessera.full_k"), a dialect
    name that is distinctive as a word ("linalg", "stablehlo"), or is
    exactly a dialect name ("tensor").

Before scanning, the scanner checks itself on samples it must reject and
accept, so a scanner that matches nothing fails the test.

usage: guard_names_test.py SOURCE_ROOT
"""
import pathlib
import re
import sys

OPTIMIZERS = ["adamw", "adam", "sgd", "momentum", "nesterov", "lion", "adafactor", "rmsprop", "adagrad",
              "adadelta", "lamb", "lars", "shampoo", "sophia", "adan", "novograd"]
# Upstream MLIR 19 dialects (verifier/ir/dialects.cpp registers them all)
# and the ML-compiler dialects of ../shared/corpus and of other stacks.
UPSTREAM = ["acc", "affine", "amdgpu", "amx", "arith", "arm_neon", "arm_sme", "arm_sve", "async",
            "bufferization", "cf", "complex", "dlti", "emitc", "func", "gpu", "index", "irdl", "linalg",
            "llvm", "math", "memref", "mesh", "ml_program", "mpi", "nvgpu", "nvvm", "omp", "pdl",
            "pdl_interp", "polynomial", "ptr", "quant", "rocdl", "scf", "shape", "sparse_tensor", "spirv",
            "tensor", "tosa", "transform", "ub", "vector", "x86vector", "xegpu"]
ML = ["tessera", "stablehlo", "mhlo", "chlo", "vhlo", "triton", "tt", "ttg", "ttng", "torch", "tf",
      "tfl", "xla", "iree", "flow", "hal", "forge"]
DIALECTS = UPSTREAM + ML
# Dialect names that are not English words: rejected as a word anywhere.
DISTINCTIVE = ["arith", "linalg", "memref", "bufferization", "stablehlo", "mhlo", "chlo", "vhlo", "tessera",
               "nvgpu", "nvvm", "rocdl", "x86vector", "xegpu", "sparse_tensor", "ml_program", "pdl_interp",
               "emitc", "spirv", "tosa", "amdgpu", "triton", "iree"]

WORD_OPT = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(OPTIMIZERS) + r")(?![A-Za-z0-9_])", re.I)
DOTTED = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(DIALECTS) + r")\.[A-Za-z_]")
WORD_DIALECT = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(DISTINCTIVE) + r")(?![A-Za-z0-9_])", re.I)


def literals(src):
    """(line, text) of every string literal of C++ source `src`, comments removed."""
    out = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c == "#" and src[src.rfind("\n", 0, i) + 1:i].strip() == "":
            # a preprocessor directive: #include "verifier/smt/arith.h" names a file
            while i < n and src[i] != "\n":
                i += 1
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += src.count("\n", i, j)
            i = j
        elif c == "'":
            # a character literal ('"' must not open a string); a digit
            # separator (1'000) is consumed the same way, harmlessly
            j = i + 1
            while j < n and src[j] != "'" and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif c == "R" and i + 1 < n and src[i + 1] == '"' and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_") or src[i - 1] in "8LuU"):
            k = src.find("(", i + 2)
            delim = src[i + 2:k]
            end = src.find(")" + delim + '"', k + 1)
            end = n if end < 0 else end
            out.append((line, src[k + 1:end]))
            line += src.count("\n", i, end)
            i = end + len(delim) + 2
        elif c == '"':
            j = i + 1
            buf = []
            while j < n and src[j] != '"':
                if src[j] == "\\" and j + 1 < n:
                    buf.append(src[j:j + 2])
                    j += 2
                else:
                    buf.append(src[j])
                    j += 1
            out.append((line, "".join(buf)))
            i = j + 1
        else:
            i += 1
    return out


def problems(text):
    why = []
    for m in WORD_OPT.finditer(text):
        why.append(f"optimizer name '{m.group(1)}'")
    for m in DOTTED.finditer(text):
        why.append(f"dialect prefix '{m.group(1)}.'")
    for m in WORD_DIALECT.finditer(text):
        why.append(f"dialect name '{m.group(1)}'")
    if text.strip().lower() in DIALECTS:
        why.append(f"dialect name '{text.strip()}'")
    return sorted(set(why))


def selftest():
    must_reject = [
        'if (op.name == "tessera.clip_by_global_norm") {}',
        'bool s = kind == "sgd";',
        'x = "such as momentum or AdamW\'s m";',
        'if (op.dialect() == "linalg") {}',
        'static const char* a[] = {"memref.alloc"};',
        'f(u8"stablehlo.dot_general");',
        'auto r = R"x(tensor.empty)x";',
        'auto k = "lion";',
        'std::string d = "tensor";',
    ]
    must_accept = [
        '// a tessera.adamw consumer: its operands are W, g, m, v',
        '/* sgd keeps no state */ int x = 0;',
        'auto s = "a ranked tensor or memref of static shape";'.replace("memref", "buffer"),
        'auto s = "the index of the tensor dimension";',
        "char q = '\"'; auto s = \"W1\";",
        '#include "verifier/smt/arith.h"',
        'auto s = "no split-K";',
    ]
    for s in must_reject:
        if not any(problems(t) for _, t in literals(s)):
            sys.exit(f"guard_names_test: the scanner misses a name in: {s}")
    for s in must_accept:
        if any(problems(t) for _, t in literals(s)):
            sys.exit(f"guard_names_test: the scanner rejects an allowed line: {s}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    selftest()
    root = pathlib.Path(sys.argv[1]) / "verifier" / "guards"
    files = sorted(p for p in root.rglob("*") if p.suffix in (".h", ".cpp", ".hpp", ".cc", ".inc"))
    if not files:
        sys.exit(f"guard_names_test: no sources under {root}")
    bad = 0
    for p in files:
        for line, text in literals(p.read_text(encoding="utf-8")):
            for why in problems(text):
                print(f"{p}:{line}: error: {why} in the string literal \"{text}\": guards read the typed IR "
                      f"(dialect tables, ir::Op::kind), never names [guards.names]")
                bad += 1
    if bad:
        sys.exit(f"guard_names_test: {bad} name(s) under verifier/guards/")
    print(f"guard_names_test: {len(files)} files, no dialect or optimizer name in a string literal")


if __name__ == "__main__":
    main()
