// literal_fuzz: libFuzzer harness for numeric literals, from the pre-parse
// bounds to the hyper-parameter boundary: a literal generated from the input
// bytes (integers and floats of up to ~200,000 digits, exponents, hex bit
// patterns, NaN / ±inf / overflowing values) is placed (a) as an
// arith.constant, (b) as tessera.adamw's lr in an otherwise legal module, and
// certified (cert::certify_text, 200 ms per query). Contract: never crashes
// or throws; a NaN, ±inf or overflowed hyper-parameter never gives a legal
// candidate (it is rejected at the boundary with a diagnostic).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "verifier/cert/certify.h"
#include "verifier/ir/model.h"

namespace fc = fusecert;

namespace {

std::string digits(const uint8_t*& p, const uint8_t* end, size_t count) {
  std::string s;
  for (size_t i = 0; i < count; ++i) s.push_back(static_cast<char>('0' + (p < end ? *p++ : i) % 10));
  return s;
}

std::string make_literal(const uint8_t* p, const uint8_t* end) {
  if (p >= end) return "1.0";
  const uint8_t kind = *p++;
  const size_t len = p < end ? (static_cast<size_t>(*p++) << (kind >> 5)) + 1 : 1;  // up to 255 << 7 digits
  switch (kind % 8) {
    case 0: return digits(p, end, len);                                  // integer
    case 1: return digits(p, end, 1) + "." + digits(p, end, len);         // float
    case 2: return "1.0e" + std::string(p < end && (*p & 1) ? "-" : "+") + digits(p, end, 1 + len % 6);
    case 3: {                                                            // hex bit pattern
      static const char* hx = "0123456789ABCDEF";
      std::string s = "0x";
      for (size_t i = 0; i < 8 + len % 9; ++i) s.push_back(hx[(p < end ? *p++ : i) % 16]);
      return s;
    }
    case 4: return "0x7FC00000";  // NaN : f32
    case 5: return p < end && (*p & 1) ? "0xFF800000" : "0x7F800000";  // ∓inf : f32
    case 6: return "3.5e38";      // overflows binary32
    default: return "-" + digits(p, end, 1) + "." + digits(p, end, 1 + len % 40);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string lit = make_literal(data, data + size);
  const std::string cst = "func.func @c() -> f64 {\n  %c = arith.constant " + lit + " : f64\n  return %c : f64\n}\n";
  (void)fc::cert::certify_text(cst, "fuzz.mlir", 200);
  const std::string step =
      "func.func @step(%X: tensor<64x256xf32>, %dY: tensor<64x128xf32>, %W: tensor<256x128xf32>, %m: "
      "tensor<256x128xf32>, %v: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>, "
      "tensor<256x128xf32>) {\n"
      "  %gW = \"tessera.matmul\"(%X, %dY) {transposeA = true, tessera.full_k, numeric_policy = {accum = \"f32\", "
      "storage = \"f32\"}} : (tensor<64x256xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>\n"
      "  %W1, %m1, %v1 = \"tessera.adamw\"(%W, %gW, %m, %v) {grad_clip_scope = \"none\", routing = \"dense\", "
      "state_locality = \"coordinate\", state_dtype = \"f32\", lr = " + lit + " : f32, beta1 = 0.9 : f32, beta2 = "
      "0.999 : f32} : (tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>) -> "
      "(tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>)\n"
      "  return %W1, %m1, %v1 : tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>\n}\n";
  fc::cert::InputReport r = fc::cert::certify_text(step, "fuzz.mlir", 200);
  // What the front end read for lr: a non-finite value must not be legal.
  fc::ir::LoadResult lr = fc::ir::parse_mlir(step, "fuzz.mlir");
  if (lr.module)
    for (const auto& op : lr.module->ops)
      if (op.name == "tessera.adamw")
        if (const fc::ir::Attr* a = op.attr("lr"); a && !std::isfinite(a->num))
          for (const auto& c : r.candidates)
            if (c.verdict == "legal") std::abort();
  return 0;
}
