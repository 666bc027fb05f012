// epilogue.cuh — device helpers: the optimizer applied to two adjacent
// elements (one accumulator fragment pair) with vector loads/stores, in the
// operation order of optim.h (bitwise the same as apply_element).
#pragma once
#include <cuda_runtime.h>

#include "fusecert/kernels/optim.h"
#include "sqrt_refined.cuh"

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

/// momentum_state (P3): m[i], m[i+1] = contributions of g0, g1 seeded from
/// v[i], v[i+1] (no seed when v is null); W is not touched.
__device__ __forceinline__ void contribute_pair(const StepParams& p, float g0, float g1, void* m,
                                                const void* v, DType st, std::size_t i) {
  float s0 = 0.0f, s1 = 0.0f;
  if (v) load2(v, st, i, s0, s1);
  store2(m, st, i, momentum_contribution(p.momentum, g0, v != nullptr, s0),
         momentum_contribution(p.momentum, g1, v != nullptr, s1));
}

/// Elements i and i+1 (i even) of W/m/v get gradients g0, g1.
__device__ __forceinline__ void apply_pair(const StepParams& p, float g0, float g1, void* W,
                                           DType wt, void* m, void* v, DType st, std::size_t i) {
  if (p.opt == Optimizer::momentum_state) return contribute_pair(p, g0, g1, m, v, st, i);
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
  if (p.opt == Optimizer::momentum_state) {
#pragma unroll
    for (int i = 0; i < NP; ++i) contribute_pair(p, g[i][0], g[i][1], m, v, st, idx[i]);
    return;
  }
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

/// The batched (8-wide) epilogue, phase 1: load what the step reads at i —
/// W, m (and v for AdamW); momentum_state: the seed v into mm (zeros when v
/// is null), W unread. Issue several of these before the first update so the
/// loads' latencies overlap.
__device__ __forceinline__ void load_state8(const StepParams& p, std::size_t i, const void* W,
                                            DType wt, const void* m, const void* v, DType st,
                                            float (&w)[kVec], float (&mm)[kVec],
                                            float (&vv)[kVec]) {
  if (p.opt == Optimizer::momentum_state) {
    if (v) {
      load8(v, st, i, mm);
    } else {
#pragma unroll
      for (int k = 0; k < kVec; ++k) mm[k] = 0.0f;
    }
    return;
  }
  load8(W, wt, i, w);
  load8(m, st, i, mm);
  if (p.opt == Optimizer::adamw) load8(v, st, i, vv);
}

/// Phase 2: apply the step with gradients g to the loaded values and store
/// W, m (and v for AdamW); momentum_state stores only the contribution in m.
/// kRefinedSqrt (the TMA kernels; the unfused baseline keeps false): AdamW's
/// eight square roots by sqrt_refined when all eight new v lie in its range,
/// else by __fsqrt_rn — the same bits (sqrt_refined.cuh), without a
/// slow-path branch per element.
template <bool kRefinedSqrt = false>
__device__ __forceinline__ void update_store8(const StepParams& p, const float (&g)[kVec],
                                              std::size_t i, void* W, DType wt, void* m, void* v,
                                              DType st, float (&w)[kVec], float (&mm)[kVec],
                                              float (&vv)[kVec]) {
  if (p.opt == Optimizer::momentum_state) {
#pragma unroll
    for (int k = 0; k < kVec; ++k)
      mm[k] = momentum_contribution(p.momentum, g[k], v != nullptr, mm[k]);
    store8(m, st, i, mm);
    return;
  }
  if (p.opt == Optimizer::adamw) {
    if constexpr (kRefinedSqrt) {
      bool in_range = true;
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        adamw_moments(p, g[k], mm[k], vv[k]);
        in_range = in_range && sqrt_refined_in_range(vv[k]);
      }
      float r[kVec];
      if (in_range) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) r[k] = sqrt_refined(vv[k]);
      } else {
#pragma unroll
        for (int k = 0; k < kVec; ++k) r[k] = fk_sqrt(vv[k]);
      }
#pragma unroll
      for (int k = 0; k < kVec; ++k) w[k] = adamw_weight(p, w[k], mm[k], r[k]);
    } else {
#pragma unroll
      for (int k = 0; k < kVec; ++k) adamw_update(p, g[k], w[k], mm[k], vv[k]);
    }
    store8(v, st, i, vv);
  } else {
#pragma unroll
    for (int k = 0; k < kVec; ++k) sgd_momentum_update(p, g[k], w[k], mm[k]);
  }
  store8(m, st, i, mm);
  store8(W, wt, i, w);
}

}  // namespace fusecert::kernels::detail
