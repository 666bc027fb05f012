// affine_fuzz: libFuzzer harness for the pre-parse bounds and MLIR's affine
// parser behind them (ir::check_input_bounds, ir::parse_mlir): affine_map
// and affine_set literals generated from the input bytes — unary minus
// chains, long operator chains, parentheses, floordiv / ceildiv / mod,
// comparisons (>=, ==, <=) in sets, nested arrays of them — with real
// nesting up to about three times the guard's limit. The first byte picks a
// generated literal (even) or the raw bytes inside affine_map<(d0, d1) -> (…)>
// (odd). Contract: never crashes, never throws; text the bounds accept is
// parsed to an answer (a module or diagnostics), and a refusal says why.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "verifier/ir/input_bounds.h"
#include "verifier/ir/model.h"

namespace fc = fusecert;

namespace {

struct Bytes {
  const uint8_t* d;
  size_t n, i = 0;
  uint8_t next() { return i < n ? d[i++] : 0; }
  bool done() const { return i >= n; }
};

void expr(Bytes& b, int depth, std::string& out) {
  if (depth > 800 || out.size() > (1u << 18) || b.done()) {
    out += "d0";
    return;
  }
  const uint8_t c = b.next();
  switch (c % 11) {
    case 0: out += "d" + std::to_string(b.next() % 3); break;
    case 1: out += "s0"; break;
    case 2: out += std::to_string(b.next()); break;
    case 3: {  // a chain of unary minus
      const int k = 1 + b.next() % 64;
      for (int i = 0; i < k; ++i) out += "- ";
      expr(b, depth + k, out);
      break;
    }
    case 4: {  // a long chain of one operator
      static const char* ops[] = {" + ", " - ", " * 2 + ", " floordiv 3 + ", " mod 5 + ", " ceildiv 2 - "};
      const char* op = ops[b.next() % 6];
      const int k = 1 + b.next() % 128;
      for (int i = 0; i < k; ++i) {
        expr(b, depth + i + 1, out);
        out += op;
      }
      out += "d1";
      break;
    }
    case 5:
      out += "(";
      expr(b, depth + 1, out);
      out += ")";
      break;
    default: {
      static const char* ops[] = {" + ", " - ", " * ", " floordiv ", " ceildiv ", " mod "};
      expr(b, depth + 1, out);
      out += ops[c % 6];
      expr(b, depth + 1, out);
    }
  }
}

std::string literal(Bytes& b) {
  std::string s;
  const bool set = b.next() & 1;
  const int results = 1 + b.next() % 4;
  s += set ? "affine_set<(d0, d1, d2)[s0] : (" : "affine_map<(d0, d1, d2)[s0] -> (";
  for (int r = 0; r < results; ++r) {
    if (r) s += ", ";
    expr(b, 0, s);
    if (set) {
      static const char* cmp[] = {" >= 0", " == 0", " <= 0"};  // <= is not MLIR 19 syntax: a parse error, no crash
      s += cmp[b.next() % 3];
    }
  }
  return s + ")>";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text;
  if (data[0] & 1) {
    text = "#m = affine_map<(d0, d1) -> (" + std::string(reinterpret_cast<const char*>(data) + 1, size - 1) +
           ")>\nfunc.func @f() attributes {m = #m} { return }\n";
  } else {
    Bytes b{data + 1, size - 1};
    const int arrays = b.next() % 3 == 0 ? b.next() * 2 : 0;  // nested arrays of literals, up to 510 deep
    std::string attr;
    for (int i = 0; i < arrays; ++i) attr += "[" + literal(b) + ", ";
    attr += literal(b);
    for (int i = 0; i < arrays; ++i) attr += "]";
    text = "func.func @f() attributes {m = " + attr + "} { return }\n";
  }
  auto refusal = fc::ir::check_input_bounds(text, "fuzz.mlir");
  if (refusal && refusal->message.empty()) std::abort();  // a refusal says why
  fc::ir::LoadResult lr = fc::ir::parse_mlir(text, "fuzz.mlir");
  if (!lr.module && lr.diags.empty()) std::abort();  // a failure says why
  if (refusal && lr.module) std::abort();  // parse_mlir applies the same bounds
  return 0;
}
