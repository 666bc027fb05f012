// sqrt_refined.cuh — a binary32 square root without the per-call slow-path
// branch of __fsqrt_rn, for the epilogues that take a batch of square roots
// at once (issue #20).
//
// sqrt_refined(x) is one rsqrt.approx (MUFU.RSQ), refined once:
//   y = rsqrt~(x), s = x*y, h = y/2, r = fma(-s, s, x), result fma(r, h, s)
// — the fast path that __fsqrt_rn itself compiles to on sm_90, without its
// range check and call. It is bitwise equal to __fsqrt_rn (IEEE correctly
// rounded) for every x in [kSqrtRefinedMin, kSqrtRefinedMax] (finite,
// x >= 2^-102), and differs on some patterns outside it (zero, infinity,
// x < 2^-102, negatives: 18 608 641 on an H200). That is not a proof over any first
// guess within PTX's error bound: it is an exhaustive check of this sequence
// on this hardware's rsqrt.approx over all 2^32 binary32 patterns
// (check_sqrt_refined in fp_checks.cu: evidence row 1 and the GPU test
// RefinedSqrtEqualsIeeeSqrtOnEveryPattern; docs/kernels.md).
// sqrt_rn_select(x) takes it inside the range and __fsqrt_rn outside, so it
// equals __fsqrt_rn everywhere; a batch checks the range of all its inputs
// once and takes one path for all of them (the same values).
#pragma once
#include <cuda_runtime.h>

namespace fusecert::kernels::detail {

constexpr unsigned kSqrtRefinedMin = 0x0c800000u;  // 2^-102
constexpr unsigned kSqrtRefinedMax = 0x7f7fffffu;  // the largest finite binary32

__device__ __forceinline__ bool sqrt_refined_in_range(float x) {
  return __float_as_uint(x) - kSqrtRefinedMin <= kSqrtRefinedMax - kSqrtRefinedMin;
}

__device__ __forceinline__ float sqrt_refined(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  const float s = __fmul_rn(x, y), h = __fmul_rn(0.5f, y);
  return __fmaf_rn(__fmaf_rn(-s, s, x), h, s);
}

__device__ __forceinline__ float sqrt_rn_select(float x) {
  return sqrt_refined_in_range(x) ? sqrt_refined(x) : __fsqrt_rn(x);
}

}  // namespace fusecert::kernels::detail
