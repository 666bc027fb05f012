// fp_checks.cu — exhaustive device checks of the arithmetic the kernels rely
// on: sqrt_refined (sqrt_refined.cuh) against __fsqrt_rn over every binary32
// bit pattern (evidence row 1).
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

}  // namespace

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
