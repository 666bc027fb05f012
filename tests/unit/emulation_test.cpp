// The C++ binary32 / bf16 emulation used to replay counterexamples agrees
// bit for bit with Z3's floating-point theory (round-to-nearest-even).
#include <gtest/gtest.h>

#include <random>

#include "verifier/smt/arith.h"
#include "verifier/smt/values.h"
#include "verifier/witness/numeric.h"

using namespace fusecert;

namespace {
template <class Native>
void check_ops(unsigned eb, unsigned sb, int trials) {
  z3::context ctx;
  smt::FpArith fp(ctx, eb, sb, {});
  Native nat({});
  witness::Normal rng(7);
  for (int t = 0; t < trials; ++t) {
    double a = nat.num(rng() * std::ldexp(1.0, static_cast<int>(rng() * 8)));
    double b = nat.num(rng() * std::ldexp(1.0, static_cast<int>(rng() * 8)));
    z3::expr za = fp.num(a), zb = fp.num(b);
    struct Case {
      const char* op;
      z3::expr z;
      double n;
    } cases[] = {{"add", za + zb, nat.add(a, b)},
                 {"mul", za * zb, nat.mul(a, b)},
                 {"div", za / zb, nat.div(a, b)},
                 {"sub", za - zb, nat.sub(a, b)},
                 {"sqrt", fp.sqrt(z3::abs(za)), nat.sqrt(std::fabs(a))}};
    for (auto& c : cases) {
      z3::expr v = c.z.simplify();
      auto bits = smt::fp_numeral_bits(v, eb, sb);
      ASSERT_TRUE(bits.has_value()) << c.op;
      EXPECT_EQ(smt::decode_fp(*bits, eb, sb), c.n) << c.op << " a=" << a << " b=" << b;
    }
  }
}
}  // namespace

TEST(Emulation, Binary32MatchesZ3) { check_ops<witness::F32Arith>(8, 24, 200); }
TEST(Emulation, Bf16MatchesZ3) { check_ops<witness::BF16Arith>(8, 8, 200); }

TEST(Emulation, RoundBf16TiesToEven) {
  EXPECT_EQ(witness::bits_of(witness::round_bf16(1.0f)), 0x3f800000u);
  // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(witness::round_bf16(1.0f + 0x1p-8f), 1.0f);
  EXPECT_EQ(witness::round_bf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);
}
