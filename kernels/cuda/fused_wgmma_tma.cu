// fused_wgmma_tma.cu — persistent, warp-specialized Hopper fused step with a
// TMA producer: one producer warp streams dY/X tiles with the bulk tensor
// copy engine (cp.async.bulk.tensor, 128-byte swizzle) into a 4-stage ring
// guarded by mbarriers (full: bytes landed; empty: both math warpgroups'
// wgmmas on the stage retired), two math warpgroups run wgmma without any
// CTA-wide barrier in the main loop, and seven epilogue warps update W/m/v of
// tile i from a shared-memory copy of its accumulator while tile i+1 computes.
// sm_90a only. Same K order as the other wgmma kernels (16-token chunks,
// ascending), hence the same bits.
#include <cstdint>

#include "epilogue.cuh"
#include "fusecert/kernels/cuda_api.h"
#include "tma.cuh"
#include "wgmma_ops.cuh"

namespace fusecert::kernels {
namespace {

// AdamW's square roots by sqrt_refined in batches of eight (epilogue.cuh).
// FK_TMA_FASTSQRT 0 takes __fsqrt_rn everywhere (the A/B control of step 10(c)).
#ifndef FK_TMA_FASTSQRT
#define FK_TMA_FASTSQRT 1
#endif
constexpr bool kRefinedSqrtTma = FK_TMA_FASTSQRT != 0;

constexpr int kBM = 128, kBK = 64, kPanel = kBK * 128;  // 64 token rows x 128 B
constexpr int kMath = 256, kEpi = 224, kThreads = kMath + kEpi + 32;  // + producer warp
constexpr int kBarFull = 2, kBarEmpty = 3;  // named barriers of the tile hand-off

template <int BN, int S>
struct TCfg {
  static constexpr int kA = 2 * kPanel, kB = (BN / 64) * kPanel;
  static constexpr int kPipe = S * (kA + kB);
  static constexpr int kLd = BN + 4;
  static constexpr int kTile = kBM * kLd * 4;
  static constexpr int kSmemBytes = kPipe + kTile + 2 * S * 8 + 1024;
};

using detail::mbar_arrive;
using detail::mbar_expect_tx;
using detail::mbar_init;
using detail::mbar_wait;
using detail::tma_load_2d;

__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int bn, int& n0,
                                            int& h0) {
  detail::tile_coords(t, tiles_m, tiles_n, kBM, bn, n0, h0);
}

template <int BN, int S, int kEB>
__global__ void __launch_bounds__(kThreads, 1)
    fused_wgmma_tma_kernel(const __grid_constant__ CUtensorMap tmA,
                           const __grid_constant__ CUtensorMap tmB, StepParams p, Shape s,
                           void* W, DType wt, void* m, void* v, DType st, float* grad_dump) {
  using C = TCfg<BN, S>;
  extern __shared__ std::uint8_t smem_raw[];
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint8_t* As = smem;
  std::uint8_t* Bs = smem + S * C::kA;
  float* tilebuf = reinterpret_cast<float*>(smem + C::kPipe);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + C::kPipe + C::kTile);
  std::uint64_t* empty = full + S;

  const int tid = threadIdx.x, warp_id = tid >> 5, lane = tid & 31;
  if (tid == 0) {
    for (int i = 0; i < S; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kMath / 32);  // one arrival per math warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int tiles_m = s.N / kBM, tiles_n = s.H / BN, tiles = tiles_m * tiles_n;
  const int KT = s.BT / kBK;

  if (tid >= kMath + kEpi) {
    // ------------------------------ producer warp ------------------------------
    if (lane == 0) {
      int it = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int n0, h0;
        tile_coords(t, tiles_m, tiles_n, BN, n0, h0);
        for (int kt = 0; kt < KT; ++kt, ++it) {
          const int st_ = it % S;
          if (it >= S) mbar_wait(&empty[st_], ((it / S) & 1) ^ 1);
          mbar_expect_tx(&full[st_], C::kA + C::kB);
#pragma unroll
          for (int pa = 0; pa < 2; ++pa)
            tma_load_2d(As + st_ * C::kA + pa * kPanel, &tmA, n0 + pa * 64, kt * kBK, &full[st_]);
#pragma unroll
          for (int pb = 0; pb < BN / 64; ++pb)
            tma_load_2d(Bs + st_ * C::kB + pb * kPanel, &tmB, h0 + pb * 64, kt * kBK, &full[st_]);
        }
      }
    }
    return;
  }

  if (tid < kMath) {
    // ------------------------------ math warpgroups ------------------------------
    const int wg = tid >> 7, warp = warp_id & 3, gid = lane >> 2, tid4 = lane & 3;
    int it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      float acc[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
      for (int kt = 0; kt < KT; ++kt, ++it) {
        const int st_ = it % S;
        mbar_wait(&full[st_], (it / S) & 1);
        const std::uint8_t* a = As + st_ * C::kA + wg * kPanel;
        const std::uint8_t* b = Bs + st_ * C::kB;
        detail::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {  // 16-token chunks, ascending
          const std::uint64_t da = detail::make_desc_sw128(a + kk * 2048, kPanel, 1024);
          const std::uint64_t db = detail::make_desc_sw128(b + kk * 2048, kPanel, 1024);
          if constexpr (BN == 64) detail::wgmma_m64n64k16(acc, da, db, 1);
          if constexpr (BN == 128) detail::wgmma_m64n128k16(acc, da, db, 1);
        }
        detail::wgmma_commit();
        detail::wgmma_wait1();  // the previous stage's wgmmas have retired: release it
        if (kt > 0 && lane == 0) mbar_arrive(&empty[(it - 1) % S]);
      }
      detail::wgmma_wait0();
      if (lane == 0) mbar_arrive(&empty[(it - 1) % S]);
      int n0, h0;
      tile_coords(t, tiles_m, tiles_n, BN, n0, h0);
      (void)n0, (void)h0;
      detail::named_bar_sync(kBarEmpty, kMath + kEpi);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int r = wg * 64 + warp * 16 + gid + half * 8, c = j * 8 + tid4 * 2;
          *reinterpret_cast<float2*>(tilebuf + r * C::kLd + c) =
              make_float2(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      detail::named_bar_arrive(kBarFull, kMath + kEpi);
    }
    return;
  }

  // ------------------------------ epilogue warps ------------------------------
  const int et = tid - kMath;
  detail::named_bar_arrive(kBarEmpty, kMath + kEpi);  // the tile buffer starts empty
  constexpr int kChunks = kBM * BN / 8;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int n0, h0;
    tile_coords(t, tiles_m, tiles_n, BN, n0, h0);
    detail::named_bar_sync(kBarFull, kMath + kEpi);
#pragma unroll 1
    for (int b = 0; b * kEpi < kChunks; b += kEB) {
      float w[kEB][8], mm[kEB][8], vv[kEB][8];
      std::size_t idx[kEB];
      int toff[kEB];
      bool live[kEB];
#pragma unroll
      for (int u = 0; u < kEB; ++u) {
        const int chunk = (b + u) * kEpi + et;
        live[u] = chunk < kChunks;
        if (live[u]) {
          const int r = chunk / (BN / 8), c = (chunk % (BN / 8)) * 8;
          idx[u] = static_cast<std::size_t>(n0 + r) * s.H + h0 + c;
          toff[u] = r * C::kLd + c;
          detail::load_state8(p, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < kEB; ++u) {
        if (!live[u]) continue;
        float g[8];
        const float4 lo = *reinterpret_cast<const float4*>(tilebuf + toff[u]);
        const float4 hi = *reinterpret_cast<const float4*>(tilebuf + toff[u] + 4);
        g[0] = lo.x, g[1] = lo.y, g[2] = lo.z, g[3] = lo.w;
        g[4] = hi.x, g[5] = hi.y, g[6] = hi.z, g[7] = hi.w;
        if (grad_dump)
#pragma unroll
          for (int k = 0; k < 8; ++k) grad_dump[idx[u] + k] = g[k];
        detail::update_store8<kRefinedSqrtTma>(p, g, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
      }
    }
    if (t + static_cast<int>(gridDim.x) < tiles) detail::named_bar_arrive(kBarEmpty, kMath + kEpi);
  }
}

// Variant for 2 CTAs per SM (non-persistent, one tile per CTA): the TMA
// producer warp feeds the two math warpgroups; after the main loop the math
// warpgroups stage the accumulator in the (now idle) pipeline buffers and all
// 256 of them run the coalesced epilogue, while the SM's other CTA computes.
constexpr int kThreads2 = kMath + 32;
template <int BN, int S>
struct T2Cfg {
  static constexpr int kA = 2 * kPanel, kB = (BN / 64) * kPanel;
  static constexpr int kPipe = S * (kA + kB);
  static constexpr int kLd = BN + 4;
  static_assert(kBM * kLd * 4 <= kPipe, "the staged tile fits in the pipeline buffers");
  static constexpr int kSmemBytes = kPipe + 2 * S * 8 + 1024;
};

template <int BN, int S>
__global__ void __launch_bounds__(kThreads2, 2)
    fused_wgmma_tma2_kernel(const __grid_constant__ CUtensorMap tmA,
                            const __grid_constant__ CUtensorMap tmB, StepParams p, Shape s,
                            void* W, DType wt, void* m, void* v, DType st, float* grad_dump) {
  using C = T2Cfg<BN, S>;
  extern __shared__ std::uint8_t smem_raw[];
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint8_t* As = smem;
  std::uint8_t* Bs = smem + S * C::kA;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + C::kPipe);
  std::uint64_t* empty = full + S;
  const int tid = threadIdx.x, warp_id = tid >> 5, lane = tid & 31;
  if (tid == 0) {
    for (int i = 0; i < S; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kMath / 32);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int tiles_m = s.N / kBM, tiles_n = s.H / BN;
  int n0, h0;
  tile_coords(blockIdx.x, tiles_m, tiles_n, BN, n0, h0);
  const int KT = s.BT / kBK;
  if (tid >= kMath) {  // producer warp
    if (lane == 0)
      for (int kt = 0; kt < KT; ++kt) {
        const int st_ = kt % S;
        if (kt >= S) mbar_wait(&empty[st_], ((kt / S) & 1) ^ 1);
        mbar_expect_tx(&full[st_], C::kA + C::kB);
#pragma unroll
        for (int pa = 0; pa < 2; ++pa)
          tma_load_2d(As + st_ * C::kA + pa * kPanel, &tmA, n0 + pa * 64, kt * kBK, &full[st_]);
#pragma unroll
        for (int pb = 0; pb < BN / 64; ++pb)
          tma_load_2d(Bs + st_ * C::kB + pb * kPanel, &tmB, h0 + pb * 64, kt * kBK, &full[st_]);
      }
    return;
  }
  const int wg = tid >> 7, warp = warp_id & 3, gid = lane >> 2, tid4 = lane & 3;
  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < KT; ++kt) {
    const int st_ = kt % S;
    mbar_wait(&full[st_], (kt / S) & 1);
    const std::uint8_t* a = As + st_ * C::kA + wg * kPanel;
    const std::uint8_t* b = Bs + st_ * C::kB;
    detail::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {  // 16-token chunks, ascending
      const std::uint64_t da = detail::make_desc_sw128(a + kk * 2048, kPanel, 1024);
      const std::uint64_t db = detail::make_desc_sw128(b + kk * 2048, kPanel, 1024);
      if constexpr (BN == 64) detail::wgmma_m64n64k16(acc, da, db, 1);
      if constexpr (BN == 128) detail::wgmma_m64n128k16(acc, da, db, 1);
    }
    detail::wgmma_commit();
    detail::wgmma_wait1();
    if (kt > 0 && lane == 0) mbar_arrive(&empty[(kt - 1) % S]);
  }
  detail::wgmma_wait0();
  // Every stage has been consumed (all TMA writes landed): reuse the buffers.
  detail::named_bar_sync(1, kMath);
  float* tile = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = wg * 64 + warp * 16 + gid + half * 8, c = j * 8 + tid4 * 2;
      *reinterpret_cast<float2*>(tile + r * C::kLd + c) =
          make_float2(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
    }
  detail::named_bar_sync(1, kMath);
  constexpr int kPer = kBM * BN / 8 / kMath;
  static_assert(kPer % 2 == 0, "two chunks per batch");
#pragma unroll 1
  for (int b = 0; b < kPer; b += 2) {
    float g[2][8], w[2][8], mm[2][8], vv[2][8];
    std::size_t idx[2];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int chunk = (b + u) * kMath + tid, r = chunk / (BN / 8), c = (chunk % (BN / 8)) * 8;
      idx[u] = static_cast<std::size_t>(n0 + r) * s.H + h0 + c;
      const float4 lo = *reinterpret_cast<const float4*>(tile + r * C::kLd + c);
      const float4 hi = *reinterpret_cast<const float4*>(tile + r * C::kLd + c + 4);
      g[u][0] = lo.x, g[u][1] = lo.y, g[u][2] = lo.z, g[u][3] = lo.w;
      g[u][4] = hi.x, g[u][5] = hi.y, g[u][6] = hi.z, g[u][7] = hi.w;
      detail::load_state8(p, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
    }
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      if (grad_dump)
#pragma unroll
        for (int k = 0; k < 8; ++k) grad_dump[idx[u] + k] = g[u][k];
      detail::update_store8<kRefinedSqrtTma>(p, g[u], idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
    }
  }
}

/// 2D map of a row-major bf16 matrix [rows, cols] whose rows lie `ld` elements
/// apart: boxes of 64 rows x 64 columns (128 B), 128-byte swizzle, the SW128
/// MN-major layout the descriptors expect.
bool make_map(CUtensorMap* map, const bf16* base, int rows, int cols, int ld) {
  return detail::make_map_sw128(map, base, DType::bf16, rows, cols, ld, 64);
}

template <int BN, int S, int kEB>
cudaError_t launch_tma(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X, void* W,
                       DType wt, void* m, void* v, DType st, float* dump, cudaStream_t stream) {
  using C = TCfg<BN, S>;
  auto kernel = fused_wgmma_tma_kernel<BN, S, kEB>;
  static int sms = 0;
  if (sms == 0) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  }
  CUtensorMap ma, mb;
  if (!make_map(&ma, dY, s.BT, s.N, dy_stride(s)) || !make_map(&mb, X, s.BT, s.H, s.H))
    return cudaErrorNotSupported;
  const int tiles = (s.N / kBM) * (s.H / BN);
  kernel<<<tiles < sms ? tiles : sms, kThreads, C::kSmemBytes, stream>>>(ma, mb, p, s, W, wt, m, v,
                                                                         st, dump);
  return cudaGetLastError();
}

template <int BN, int S>
cudaError_t launch_tma2(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                        void* W, DType wt, void* m, void* v, DType st, float* dump,
                        cudaStream_t stream) {
  using C = T2Cfg<BN, S>;
  auto kernel = fused_wgmma_tma2_kernel<BN, S>;
  static bool configured = false;
  if (!configured) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  CUtensorMap ma, mb;
  if (!make_map(&ma, dY, s.BT, s.N, dy_stride(s)) || !make_map(&mb, X, s.BT, s.H, s.H))
    return cudaErrorNotSupported;
  const int tiles = (s.N / kBM) * (s.H / BN);
  kernel<<<tiles, kThreads2, C::kSmemBytes, stream>>>(ma, mb, p, s, W, wt, m, v, st, dump);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fused_wgmma_tma(const TileConfig& cfg, const StepParams& p, const Shape& s,
                                   const bf16* dY, const bf16* X, void* W, DType wt, void* m,
                                   void* v, DType st, float* dump, cudaStream_t stream) {
  if (cfg.bm != kBM || cfg.bk != kBK) return cudaErrorInvalidValue;
  if (cfg.epilogue == 4) {
    if (cfg.bn == 128) return launch_tma2<128, 3>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    if (cfg.bn == 64) return launch_tma2<64, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    return cudaErrorInvalidValue;
  }
  if (cfg.bn == 128) return launch_tma<128, 4, 3>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bn == 64) return launch_tma<64, 6, 3>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
