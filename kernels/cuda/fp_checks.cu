// fp_checks.cu — device checks of the arithmetic the kernels rely on (evidence
// row 1): sqrt_refined (sqrt_refined.cuh) against __fsqrt_rn over every
// binary32 bit pattern; the checked division (div_checked.cuh) against
// __fdiv_rn on 2^32 operand pairs.
#include "div_checked.cuh"
#include "fusecert/kernels/cuda_api.h"
#include "sqrt_refined.cuh"

namespace fusecert::kernels {
namespace {

// counts: [0] patterns inside the refined range, [1] refined != __fsqrt_rn
// inside it, [2] refined != __fsqrt_rn outside it, [3] sqrt_rn_select !=
// __fsqrt_rn anywhere. Results compare by their bits, except that any two
// NaNs are equal.
__global__ void sqrt_refined_check(unsigned long long* counts, unsigned hi) {
  const unsigned u = (hi << 24) | (blockIdx.x * blockDim.x + threadIdx.x);
  const float x = __uint_as_float(u);
  const float ref = __fsqrt_rn(x), fast = detail::sqrt_refined(x),
              sel = detail::sqrt_rn_select(x);
  auto differ = [](float a, float b) {
    return __float_as_uint(a) != __float_as_uint(b) && !(a != a && b != b);
  };
  const bool in = detail::sqrt_refined_in_range(x);
  // One atomic per warp and counter: the counts are warp-aggregated.
  const unsigned c0 = __popc(__ballot_sync(0xffffffffu, in));
  const unsigned c1 = __popc(__ballot_sync(0xffffffffu, in && differ(fast, ref)));
  const unsigned c2 = __popc(__ballot_sync(0xffffffffu, !in && differ(fast, ref)));
  const unsigned c3 = __popc(__ballot_sync(0xffffffffu, differ(sel, ref)));
  if ((threadIdx.x & 31) == 0) {
    if (c0) atomicAdd(counts + 0, c0);
    if (c1) atomicAdd(counts + 1, c1);
    if (c2) atomicAdd(counts + 2, c2);
    if (c3) atomicAdd(counts + 3, c3);
  }
}

/// A 32-bit mix of i (an integer hash, SplitMix-style finalizer).
__device__ __forceinline__ unsigned mix32(unsigned long long i) {
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdull;
  i ^= i >> 33;
  i *= 0xc4ceb93fe53bca87ull;
  i ^= i >> 33;
  return static_cast<unsigned>(i);
}

// Pair i of 2^32: half of them (bit 31 of i clear) with every bit of a and b
// random (every exponent, zeros, subnormals, infinities, NaNs), half with
// a, b in the magnitudes of the AdamW epilogue (exponents of a in
// [2^-64, 2^0), of b in [2^-32, 2^8), random significands and signs).
// counts: [0] accepted by div_is_rn, [1] accepted but != __fdiv_rn (must be
// 0), [2] div_guess != __fdiv_rn (why the test is needed), [3] refused
// although div_guess == __fdiv_rn, [4] accepted among the epilogue-like
// half. Bits compare, except that any two NaNs are equal.
__global__ void div_checked_check(unsigned long long* counts, unsigned hi) {
  const unsigned i = (hi << 24) | (blockIdx.x * blockDim.x + threadIdx.x);
  unsigned ab = mix32(2ull * i), bb = mix32(2ull * i + 1);
  const bool epilogue_like = (i >> 31) != 0;
  if (epilogue_like) {
    ab = (ab & 0x807fffffu) | ((63u + (ab >> 23) % 64u) << 23);
    bb = (bb & 0x807fffffu) | ((95u + (bb >> 23) % 40u) << 23);
  }
  const float a = __uint_as_float(ab), b = __uint_as_float(bb);
  const float ref = __fdiv_rn(a, b), q = detail::div_guess(a, b);
  const bool ok = detail::div_is_rn(a, b, q);
  const bool differ = __float_as_uint(q) != __float_as_uint(ref) && !(q != q && ref != ref);
  const unsigned c0 = __popc(__ballot_sync(0xffffffffu, ok));
  const unsigned c1 = __popc(__ballot_sync(0xffffffffu, ok && differ));
  const unsigned c2 = __popc(__ballot_sync(0xffffffffu, differ));
  const unsigned c3 = __popc(__ballot_sync(0xffffffffu, !ok && !differ));
  const unsigned c4 = __popc(__ballot_sync(0xffffffffu, ok && epilogue_like));
  if ((threadIdx.x & 31) == 0) {
    if (c0) atomicAdd(counts + 0, c0);
    if (c1) atomicAdd(counts + 1, c1);
    if (c2) atomicAdd(counts + 2, c2);
    if (c3) atomicAdd(counts + 3, c3);
    if (c4) atomicAdd(counts + 4, c4);
  }
}

}  // namespace

cudaError_t check_div_checked(DivCheckedCheck* out) {
  unsigned long long* d = nullptr;
  cudaError_t e = cudaMalloc(&d, 5 * sizeof(unsigned long long));
  if (e != cudaSuccess) return e;
  e = cudaMemset(d, 0, 5 * sizeof(unsigned long long));
  for (unsigned hi = 0; hi < 256 && e == cudaSuccess; ++hi) {  // 2^24 pairs a launch
    div_checked_check<<<1u << 16, 256>>>(d, hi);
    e = cudaGetLastError();
  }
  unsigned long long h[5] = {0, 0, 0, 0, 0};
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  out->pairs = 1ull << 32;
  out->epilogue_like_pairs = 1ull << 31;
  out->accepted = h[0];
  out->accepted_mismatches = h[1];
  out->guess_mismatches = h[2];
  out->refused_correct = h[3];
  out->epilogue_like_accepted = h[4];
  return e;
}

cudaError_t check_sqrt_refined(SqrtRefinedCheck* out) {
  unsigned long long* d = nullptr;
  cudaError_t e = cudaMalloc(&d, 4 * sizeof(unsigned long long));
  if (e != cudaSuccess) return e;
  e = cudaMemset(d, 0, 4 * sizeof(unsigned long long));
  for (unsigned hi = 0; hi < 256 && e == cudaSuccess; ++hi) {  // 2^24 patterns a launch
    sqrt_refined_check<<<1u << 16, 256>>>(d, hi);
    e = cudaGetLastError();
  }
  unsigned long long h[4] = {0, 0, 0, 0};
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  out->patterns = 1ull << 32;
  out->in_range = h[0];
  out->in_range_mismatches = h[1];
  out->outside_mismatches = h[2];
  out->select_mismatches = h[3];
  out->range_min_bits = detail::kSqrtRefinedMin;
  out->range_max_bits = detail::kSqrtRefinedMax;
  return e;
}

}  // namespace fusecert::kernels
