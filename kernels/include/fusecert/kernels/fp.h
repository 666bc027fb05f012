// fp.h — IEEE-754 binary32 operations and bf16 storage shared bit-for-bit by
// the host reference (C++) and the CUDA kernels.
//
// Rounding contract (documented in docs/kernels.md):
//  * every add, mul, div and sqrt is a separate, correctly rounded binary32
//    operation (round to nearest even). On the device the explicit __fadd_rn,
//    __fmul_rn, __fdiv_rn, __fsqrt_rn intrinsics are used, which nvcc never
//    contracts into an FMA; on the host the project builds with
//    -ffp-contract=off and no fast-math, so `a*b + c` stays two roundings.
//  * the GEMM accumulation is fma(a, b, acc); since a and b are bf16, a*b is
//    exact in binary32, so fma and mul+add give identical bits there.
//  * bf16 is stored as its raw 16 bits (layout-compatible with __nv_bfloat16);
//    float -> bf16 rounds to nearest even, NaN stays NaN (quiet).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FK_HD __host__ __device__ __forceinline__
#else
#define FK_HD inline
#endif

#if defined(__CUDA_ARCH__)
#include <cuda_bf16.h>
#else
#include <cmath>
#endif

namespace fusecert::kernels {

/// bf16 storage: 1 sign, 8 exponent, 7 mantissa bits (raw bits, 2 bytes).
struct bf16 {
  std::uint16_t bits;
};

/// Element storage types of W and the optimizer state.
enum class DType : int { f32 = 0, bf16 = 1 };

FK_HD float fk_add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
FK_HD float fk_sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
FK_HD float fk_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
FK_HD float fk_div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
FK_HD float fk_sqrt(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
/// Fused multiply-add with one rounding (the GEMM accumulation step).
FK_HD float fk_fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// bf16 -> float: exact (bits shifted into the high half).
FK_HD float bf16_to_float(bf16 x) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(static_cast<unsigned>(x.bits) << 16);
#else
  std::uint32_t u = static_cast<std::uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

/// float -> bf16, round to nearest even (NaN -> quiet NaN).
FK_HD bf16 float_to_bf16(float f) {
#if defined(__CUDA_ARCH__)
  __nv_bfloat16 h = __float2bfloat16_rn(f);
  bf16 r;
  r.bits = *reinterpret_cast<const std::uint16_t*>(&h);
  return r;
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  bf16 r;
  if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN
    r.bits = static_cast<std::uint16_t>((u >> 16) | 0x0040u);
    return r;
  }
  std::uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  r.bits = static_cast<std::uint16_t>(u >> 16);
  return r;
#endif
}

/// Round a float to the nearest bf16 value and return it as float.
FK_HD float round_bf16(float f) { return bf16_to_float(float_to_bf16(f)); }

/// Load element i of a buffer whose storage type is `t` (f32 or bf16) as float.
FK_HD float load_as_float(const void* p, DType t, std::size_t i) {
  return t == DType::f32 ? static_cast<const float*>(p)[i]
                         : bf16_to_float(static_cast<const bf16*>(p)[i]);
}
/// Store float value x into element i of a buffer of storage type `t`.
FK_HD void store_from_float(void* p, DType t, std::size_t i, float x) {
  if (t == DType::f32)
    static_cast<float*>(p)[i] = x;
  else
    static_cast<bf16*>(p)[i] = float_to_bf16(x);
}

/// Bytes per element of a storage type.
FK_HD std::size_t dtype_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

}  // namespace fusecert::kernels
