// fused_wgmma_ws.cu — persistent, warp-specialized Hopper fused step: two
// "math" warpgroups run the wgmma main loop of tile i+1 while two "epilogue"
// warpgroups apply the optimizer to tile i from a shared-memory copy of its
// fp32 accumulator, so the W/m/v traffic of one tile overlaps the GEMM of the
// next. One CTA per SM loops over tiles (grouped raster). sm_90a only.
//
// Same per-element K order as fused_wgmma.cu (one wgmma per 16-token chunk,
// ascending), so its bits equal the other wgmma configurations'.
#include <cstdint>

#include "epilogue.cuh"
#include "fusecert/kernels/cuda_api.h"
#include "wgmma_ops.cuh"

namespace fusecert::kernels {
namespace {

constexpr int kBM = 128, kBK = 64, kPanel = kBK * 128;  // 8 KiB panel: 64 rows x 128 B
constexpr int kMathThreads = 256, kEpiThreads = 256;
// Named barriers.
constexpr int kBarMath = 1, kBarFull = 2, kBarEmpty = 3;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int BN, int kStages>
struct WsCfg {
  static constexpr int kAStage = (kBM / 64) * kPanel, kBStage = (BN / 64) * kPanel;
  static constexpr int kPipe = kStages * (kAStage + kBStage);
  static constexpr int kLd = BN + 4;  // floats per staged accumulator row
  static constexpr int kSmemBytes = kPipe + kBM * kLd * 4 + 1024;
};

__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int bn, int& n0,
                                            int& h0) {
  constexpr int kGroup = 8;
  const int in_group = kGroup * tiles_n;
  const int first_m = (t / in_group) * kGroup;
  const int gsize = min(tiles_m - first_m, kGroup);
  n0 = (first_m + (t % in_group) % gsize) * kBM;
  h0 = ((t % in_group) / gsize) * bn;
}

// kStages: shared-memory stages (prefetch distance kStages - 2); kEB: 8-element
// chunks per epilogue batch (their W/m/v loads are in flight together).
template <int BN, int kStages, int kEB>
__global__ void __launch_bounds__(kMathThreads + kEpiThreads, 1)
    fused_wgmma_ws_kernel(StepParams p, Shape s, const bf16* __restrict__ dY,
                          const bf16* __restrict__ X, void* W, DType wt, void* m, void* v,
                          DType st, float* grad_dump) {
  using C = WsCfg<BN, kStages>;
  extern __shared__ std::uint8_t smem_raw[];
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint8_t* As = smem;
  std::uint8_t* Bs = smem + kStages * C::kAStage;
  float* tilebuf = reinterpret_cast<float*>(smem + C::kPipe);

  const int tiles_m = s.N / kBM, tiles_n = s.H / BN, tiles = tiles_m * tiles_n;
  const int KT = s.BT / kBK;
  const int tid = threadIdx.x;

  if (tid < kMathThreads) {
    // ---------------- math warpgroups: cp.async loads + wgmma ----------------
    const int wg = tid >> 7, lane = tid & 31, warp = (tid >> 5) & 3;
    const int gid = lane >> 2, tid4 = lane & 3;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int n0, h0;
      tile_coords(t, tiles_m, tiles_n, BN, n0, h0);
      auto load_stage = [&](int stage, int t0) {
        std::uint8_t* a = As + stage * C::kAStage;
        std::uint8_t* b = Bs + stage * C::kBStage;
        constexpr int a_chunks = kBK * kBM / 8, b_chunks = kBK * BN / 8;
#pragma unroll
        for (int i = tid; i < a_chunks; i += kMathThreads) {
          const int row = i / (kBM / 8), c = i % (kBM / 8);
          cp_async16(a + (c >> 3) * kPanel + row * 128 + (((c & 7) ^ (row & 7)) << 4),
                     dY + static_cast<std::size_t>(t0 + row) * dy_stride(s) + n0 + c * 8);
        }
#pragma unroll
        for (int i = tid; i < b_chunks; i += kMathThreads) {
          const int row = i / (BN / 8), c = i % (BN / 8);
          cp_async16(b + (c >> 3) * kPanel + row * 128 + (((c & 7) ^ (row & 7)) << 4),
                     X + static_cast<std::size_t>(t0 + row) * s.H + h0 + c * 8);
        }
      };
      float acc[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
#pragma unroll
      for (int st0 = 0; st0 < kStages - 2; ++st0) {
        if (st0 < KT) load_stage(st0, st0 * kBK);
        cp_async_commit();
      }
      for (int kt = 0; kt < KT; ++kt) {
        cp_async_wait<kStages - 3>();  // stage kt has landed (this thread's copies)
        detail::fence_proxy_async();
        detail::named_bar_sync(kBarMath, kMathThreads);  // ... everyone's; kt-2 retired
        const int nk = kt + kStages - 2;
        if (nk < KT) load_stage(nk % kStages, nk * kBK);
        cp_async_commit();
        const std::uint8_t* a = As + (kt % kStages) * C::kAStage + wg * kPanel;
        const std::uint8_t* b = Bs + (kt % kStages) * C::kBStage;
        detail::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {  // 16-token chunks, ascending
          const std::uint64_t da = detail::make_desc_sw128(a + kk * 2048, kPanel, 1024);
          const std::uint64_t db = detail::make_desc_sw128(b + kk * 2048, kPanel, 1024);
          if constexpr (BN == 64) detail::wgmma_m64n64k16(acc, da, db, 1);
          if constexpr (BN == 128) detail::wgmma_m64n128k16(acc, da, db, 1);
        }
        detail::wgmma_commit();
        detail::wgmma_wait1();  // keep one stage of MMAs in flight
      }
      detail::wgmma_wait0();
      cp_async_wait<0>();
      // Hand the accumulator tile to the epilogue warpgroups.
      detail::named_bar_sync(kBarEmpty, kMathThreads + kEpiThreads);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int r = wg * 64 + warp * 16 + gid + half * 8, c = j * 8 + tid4 * 2;
          *reinterpret_cast<float2*>(tilebuf + r * C::kLd + c) =
              make_float2(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      detail::named_bar_arrive(kBarFull, kMathThreads + kEpiThreads);
      // All math threads must be past this tile's last stage reads before the
      // next tile's prologue overwrites stages 0..1.
      detail::named_bar_sync(kBarMath, kMathThreads);
    }
  } else {
    // ------------- epilogue warpgroups: optimizer on the staged tile -------------
    const int et = tid - kMathThreads;
    detail::named_bar_arrive(kBarEmpty, kMathThreads + kEpiThreads);  // buffer starts empty
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int n0, h0;
      tile_coords(t, tiles_m, tiles_n, BN, n0, h0);
      detail::named_bar_sync(kBarFull, kMathThreads + kEpiThreads);
      constexpr int kPer = kBM * BN / 8 / kEpiThreads;
#pragma unroll 1
      for (int b = 0; b < kPer; b += kEB) {
        float w[kEB][8], mm[kEB][8], vv[kEB][8];
        std::size_t idx[kEB];
        int toff[kEB];
#pragma unroll
        for (int u = 0; u < kEB; ++u) {
          if (b + u < kPer) {
            const int chunk = (b + u) * kEpiThreads + et, r = chunk / (BN / 8),
                      c = (chunk % (BN / 8)) * 8;
            idx[u] = static_cast<std::size_t>(n0 + r) * s.H + h0 + c;
            toff[u] = r * C::kLd + c;
            detail::load_state8(p, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
          }
        }
#pragma unroll
        for (int u = 0; u < kEB; ++u) {
          if (b + u < kPer) {
            float g[8];  // read from the staged tile only now: fewer live registers
            const float4 lo = *reinterpret_cast<const float4*>(tilebuf + toff[u]);
            const float4 hi = *reinterpret_cast<const float4*>(tilebuf + toff[u] + 4);
            g[0] = lo.x, g[1] = lo.y, g[2] = lo.z, g[3] = lo.w;
            g[4] = hi.x, g[5] = hi.y, g[6] = hi.z, g[7] = hi.w;
            if (grad_dump)
#pragma unroll
              for (int k = 0; k < 8; ++k) grad_dump[idx[u] + k] = g[k];
            detail::update_store8(p, g, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
          }
        }
      }
      // Buffer free again (skipped after the last tile: nobody waits for it).
      if (t + static_cast<int>(gridDim.x) < tiles)
        detail::named_bar_arrive(kBarEmpty, kMathThreads + kEpiThreads);
    }
  }
}

template <int BN, int kStages, int kEB>
cudaError_t launch_ws(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X, void* W,
                      DType wt, void* m, void* v, DType st, float* dump, cudaStream_t stream) {
  using C = WsCfg<BN, kStages>;
  auto kernel = fused_wgmma_ws_kernel<BN, kStages, kEB>;
  static int sms = 0;
  if (sms == 0) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  }
  const int tiles = (s.N / kBM) * (s.H / BN);
  const int grid = tiles < sms ? tiles : sms;
  kernel<<<grid, kMathThreads + kEpiThreads, C::kSmemBytes, stream>>>(p, s, dY, X, W, wt, m, v,
                                                                        st, dump);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fused_wgmma_ws(const TileConfig& cfg, const StepParams& p, const Shape& s,
                                  const bf16* dY, const bf16* X, void* W, DType wt, void* m,
                                  void* v, DType st, float* dump, cudaStream_t stream) {
  if (cfg.bm != kBM || cfg.bk != kBK) return cudaErrorInvalidValue;
  // 227 KiB of shared memory per CTA: 5 x 32 KiB stages + the 66 KiB tile
  // (BN 128); 7 x 24 KiB + 34 KiB (BN 64).
  if (cfg.bn == 128) return launch_ws<128, 5, 3>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bn == 64) return launch_ws<64, 7, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
