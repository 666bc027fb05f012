// epilogue.cuh — device helpers: the optimizer applied to two adjacent
// elements (one accumulator fragment pair) with vector loads/stores, in the
// operation order of optim.h (bitwise the same as apply_element).
#pragma once
#include <cuda_runtime.h>

#include "fusecert/kernels/optim.h"

namespace fusecert::kernels::detail {

__device__ __forceinline__ void load2(const void* p, DType t, std::size_t i, float& a, float& b) {
  if (t == DType::f32) {
    const float2 x = *reinterpret_cast<const float2*>(static_cast<const float*>(p) + i);
    a = x.x;
    b = x.y;
  } else {
    const unsigned x = *reinterpret_cast<const unsigned*>(static_cast<const bf16*>(p) + i);
    a = __uint_as_float(x << 16);
    b = __uint_as_float(x & 0xffff0000u);
  }
}

__device__ __forceinline__ void store2(void* p, DType t, std::size_t i, float a, float b) {
  if (t == DType::f32) {
    *reinterpret_cast<float2*>(static_cast<float*>(p) + i) = make_float2(a, b);
  } else {
    const unsigned lo = float_to_bf16(a).bits, hi = float_to_bf16(b).bits;
    *reinterpret_cast<unsigned*>(static_cast<bf16*>(p) + i) = lo | (hi << 16);
  }
}

/// Elements i and i+1 (i even) of W/m/v get gradients g0, g1.
__device__ __forceinline__ void apply_pair(const StepParams& p, float g0, float g1, void* W,
                                           DType wt, void* m, void* v, DType st, std::size_t i) {
  float w0, w1, m0, m1;
  load2(W, wt, i, w0, w1);
  load2(m, st, i, m0, m1);
  if (p.opt == Optimizer::adamw) {
    float v0, v1;
    load2(v, st, i, v0, v1);
    adamw_update(p, g0, w0, m0, v0);
    adamw_update(p, g1, w1, m1, v1);
    store2(v, st, i, v0, v1);
  } else {
    sgd_momentum_update(p, g0, w0, m0);
    sgd_momentum_update(p, g1, w1, m1);
  }
  store2(m, st, i, m0, m1);
  store2(W, wt, i, w0, w1);
}

}  // namespace fusecert::kernels::detail
