// div_checked.cuh — a binary32 division without the per-call slow-path
// branch of __fdiv_rn, for the epilogues that take a batch of divisions at
// once (issue #20).
//
// div_guess(a, b) is a quotient from rcp.approx and one correction of the
// quotient (no Newton step on the reciprocal: it measured slower, step 12's
// A/B, and the test below does not need it). It is only a candidate: no
// claim is made about how close it is. div_is_rn(a, b, q) is true only when
// q is the correctly rounded a/b (what __fdiv_rn returns), whatever q is and
// however it was computed; docs/kernels.md ("The checked division") has the
// proof. In short: t = fma(-b, q, a) is RN(a - b*q) (one rounding); B =
// |b| * h is exact, where h = 2^(E-24) is half the spacing of binary32 around
// q in [2^E, 2^(E+1)) (2^(E-25) when q is a power of two, whose lower
// neighbour is closer); RN is monotone and B is a binary32 number, so
// |t| < B implies |a - b*q| < B, i.e. |a/b - q| < h: a/b is closer to q
// than to any other binary32 number, so q = RN(a/b), with no tie possible.
// The test refuses (returns false) when |q| is outside [2^-100, max finite]
// (so h is a normal power of two), when B is not finite or below 2^-125 (so
// the product |b| * h was exact), and whenever a, b or t is NaN or infinite.
// A refused quotient is taken again by __fdiv_rn; a batch checks all its
// quotients and takes one path for all of them, so the result is __fdiv_rn's
// bits either way. check_div_checked (fp_checks.cu; evidence row 1, the GPU
// test CheckedDivisionAcceptsOnlyIeeeQuotients) compares the accepted
// quotients with __fdiv_rn on 2^32 operand pairs.
#pragma once
#include <cuda_runtime.h>

namespace fusecert::kernels::detail {

constexpr unsigned kDivQuotientMin = 0x0d800000u;  // 2^-100
constexpr unsigned kDivQuotientMax = 0x7f7fffffu;  // the largest finite binary32
constexpr unsigned kDivBoundMinBits = 0x01000000u;  // 2^-125: |b| * h at least this was exact

__device__ __forceinline__ float div_guess(float a, float b) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(b));
  const float q0 = __fmul_rn(a, y);
  return __fmaf_rn(__fmaf_rn(-b, q0, a), y, q0);
}

/// True only if q == RN(a/b) (IEEE division, round to nearest even); false
/// also for some q that are (outside the ranges above, and q a power of two
/// with a/b in the outer half of its lower rounding interval). Every part is
/// evaluated and combined with `&`, not `&&`: a short-circuit made the
/// compiler branch around each quotient's test, one region per element.
__device__ __forceinline__ bool div_is_rn(float a, float b, float q) {
  const unsigned qb = __float_as_uint(q) & 0x7fffffffu;
  const bool q_in = qb - kDivQuotientMin <= kDivQuotientMax - kDivQuotientMin;
  // h = 2^(E-24), or 2^(E-25) when q's significand is 1: exponent field of q
  // minus 24 (25); normal since E >= -100.
  const unsigned hb = (qb & 0x7f800000u) - ((qb & 0x007fffffu) == 0u ? (25u << 23) : (24u << 23));
  const float bound = __fmul_rn(fabsf(b), __uint_as_float(hb));
  const float t = __fmaf_rn(-b, q, a);
  // bound in [2^-125, the largest finite] (a NaN bound has larger bits)
  const bool bound_exact = __float_as_uint(bound) - kDivBoundMinBits <= kDivQuotientMax - kDivBoundMinBits;
  return q_in & bound_exact & (fabsf(t) < bound);
}

}  // namespace fusecert::kernels::detail
