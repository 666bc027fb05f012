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

constexpr int kVec = 8;  // elements per thread: 16 B of bf16

__device__ __forceinline__ void load8(const void* p, DType t, std::size_t i, float (&x)[kVec]) {
  if (t == DType::f32) {
    const float4 a = *reinterpret_cast<const float4*>(static_cast<const float*>(p) + i);
    const float4 b = *reinterpret_cast<const float4*>(static_cast<const float*>(p) + i + 4);
    x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = a.w, x[4] = b.x, x[5] = b.y, x[6] = b.z,
    x[7] = b.w;
  } else {
    const uint4 a = *reinterpret_cast<const uint4*>(static_cast<const bf16*>(p) + i);
    const unsigned w[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[2 * k] = __uint_as_float(w[k] << 16);
      x[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u);
    }
  }
}
__device__ __forceinline__ void store8(void* p, DType t, std::size_t i, const float (&x)[kVec]) {
  if (t == DType::f32) {
    *reinterpret_cast<float4*>(static_cast<float*>(p) + i) = make_float4(x[0], x[1], x[2], x[3]);
    *reinterpret_cast<float4*>(static_cast<float*>(p) + i + 4) =
        make_float4(x[4], x[5], x[6], x[7]);
  } else {
    unsigned w[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      w[k] = static_cast<unsigned>(float_to_bf16(x[2 * k]).bits) |
             (static_cast<unsigned>(float_to_bf16(x[2 * k + 1]).bits) << 16);
    *reinterpret_cast<uint4*>(static_cast<bf16*>(p) + i) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/// NP element pairs at idx[i], idx[i]+1 (idx even) get gradients g[i][0..1].
/// All loads of W/m/v are issued before the first store, so the pairs' memory
/// latencies overlap (W, m, v may alias as far as the compiler knows).
template <int NP>
__device__ __forceinline__ void apply_pairs(const StepParams& p, const float (&g)[NP][2],
                                            const std::size_t (&idx)[NP], void* W, DType wt,
                                            void* m, void* v, DType st) {
  float w[NP][2], mm[NP][2], vv[NP][2];
#pragma unroll
  for (int i = 0; i < NP; ++i) {
    load2(W, wt, idx[i], w[i][0], w[i][1]);
    load2(m, st, idx[i], mm[i][0], mm[i][1]);
  }
  if (p.opt == Optimizer::adamw) {
#pragma unroll
    for (int i = 0; i < NP; ++i) load2(v, st, idx[i], vv[i][0], vv[i][1]);
#pragma unroll
    for (int i = 0; i < NP; ++i) {
      adamw_update(p, g[i][0], w[i][0], mm[i][0], vv[i][0]);
      adamw_update(p, g[i][1], w[i][1], mm[i][1], vv[i][1]);
      store2(v, st, idx[i], vv[i][0], vv[i][1]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < NP; ++i) {
      sgd_momentum_update(p, g[i][0], w[i][0], mm[i][0]);
      sgd_momentum_update(p, g[i][1], w[i][1], mm[i][1]);
    }
  }
#pragma unroll
  for (int i = 0; i < NP; ++i) {
    store2(m, st, idx[i], mm[i][0], mm[i][1]);
    store2(W, wt, idx[i], w[i][0], w[i][1]);
  }
}

}  // namespace fusecert::kernels::detail
