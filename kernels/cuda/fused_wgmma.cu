// fused_wgmma.cu — the Hopper fused step: wgmma (m64nNk16, bf16 -> f32) over
// a cp.async multi-stage pipeline into 128-byte-swizzled shared memory, with
// the optimizer applied to the accumulator registers in the epilogue (the
// gradient never leaves registers). sm_90a only; launch_fused_wgmma refuses
// other devices.
//
// Tile: BM = 128 rows of W (two warpgroups, 64 rows each) x BN columns,
// BK = 64 tokens per stage. dY [BT, N] and X [BT, H] are both MN-major
// operands (N / H contiguous): each stage holds 64-element-wide panels of
// 64 token rows x 128 B, the canonical SW128 MN-major layout.
//
// K order per element: one wgmma per 16-token chunk, chunks ascending,
// whatever BN: the same order for every configuration of this engine.
#include <cstdint>

#include "epilogue.cuh"
#include "fusecert/kernels/cuda_api.h"
#include "wgmma_ops.cuh"

namespace fusecert::kernels {
namespace {

constexpr int kWBM = 128, kWBK = 64, kPanelBytes = kWBK * 128;  // 8 KiB

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int BN>
__device__ __forceinline__ void wgmma_tile(float (&d)[BN / 2], std::uint64_t da,
                                           std::uint64_t db) {
  if constexpr (BN == 64) detail::wgmma_m64n64k16(d, da, db, 1);
  if constexpr (BN == 128) detail::wgmma_m64n128k16(d, da, db, 1);
  if constexpr (BN == 256) detail::wgmma_m64n256k16(d, da, db, 1);
}

template <int BN, int STAGES>
struct WCfg {
  static constexpr int kAStage = (kWBM / 64) * kPanelBytes;  // bytes
  static constexpr int kBStage = (BN / 64) * kPanelBytes;
  static constexpr int kSmemBytes = STAGES * (kAStage + kBStage) + 1024;  // + alignment slack
};

template <int BN, int STAGES, bool kSmemEpilogue>
__global__ void __launch_bounds__(256, BN <= 128 ? 2 : 1)  // 2 CTAs/SM: one's epilogue
    fused_wgmma_kernel(StepParams p, Shape s, const bf16* __restrict__ dY,
                       const bf16* __restrict__ X, void* W, DType wt, void* m, void* v, DType st,
                       float* grad_dump) {
  using C = WCfg<BN, STAGES>;
  extern __shared__ std::uint8_t smem_raw[];
  // SW128 atoms need 1024-byte alignment.
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint8_t* As = smem;
  std::uint8_t* Bs = smem + STAGES * C::kAStage;

  const int tiles_m = s.N / kWBM, tiles_n = s.H / BN;
  constexpr int kGroup = 8;
  const int pid = blockIdx.x, in_group = kGroup * tiles_n;
  const int first_m = (pid / in_group) * kGroup;
  const int gsize = min(tiles_m - first_m, kGroup);
  const int tm = first_m + (pid % in_group) % gsize, tn = (pid % in_group) / gsize;
  const int n0 = tm * kWBM, h0 = tn * BN;
  const int tid = threadIdx.x, wg = tid >> 7;
  const int KT = s.BT / kWBK;

  // 16-byte chunk (row t, chunk c of a 64-wide panel) lands at chunk c ^ (t & 7).
  auto load_stage = [&](int stage, int t0) {
    std::uint8_t* a = As + stage * C::kAStage;
    std::uint8_t* b = Bs + stage * C::kBStage;
    constexpr int a_chunks = kWBK * kWBM / 8, b_chunks = kWBK * BN / 8;
#pragma unroll
    for (int i = tid; i < a_chunks; i += 256) {
      const int row = i / (kWBM / 8), c = i % (kWBM / 8);
      cp_async16(a + (c >> 3) * kPanelBytes + row * 128 + (((c & 7) ^ (row & 7)) << 4),
                 dY + static_cast<std::size_t>(t0 + row) * dy_stride(s) + n0 + c * 8);
    }
#pragma unroll
    for (int i = tid; i < b_chunks; i += 256) {
      const int row = i / (BN / 8), c = i % (BN / 8);
      cp_async16(b + (c >> 3) * kPanelBytes + row * 128 + (((c & 7) ^ (row & 7)) << 4),
                 X + static_cast<std::size_t>(t0 + row) * s.H + h0 + c * 8);
    }
  };

  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;

#pragma unroll
  for (int st0 = 0; st0 < STAGES - 1; ++st0) {
    if (st0 < KT) load_stage(st0, st0 * kWBK);
    cp_async_commit();
  }
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    detail::fence_proxy_async();  // cp.async writes -> async-proxy (wgmma) reads
    __syncthreads();
    const int nk = kt + STAGES - 1;
    if (nk < KT) load_stage(nk % STAGES, nk * kWBK);
    cp_async_commit();

    const std::uint8_t* a = As + (kt % STAGES) * C::kAStage + wg * kPanelBytes;
    const std::uint8_t* b = Bs + (kt % STAGES) * C::kBStage;
    detail::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kWBK / 16; ++kk) {  // 16-token chunks, ascending
      const std::uint64_t da = detail::make_desc_sw128(a + kk * 16 * 128, kPanelBytes, 1024);
      const std::uint64_t db = detail::make_desc_sw128(b + kk * 16 * 128, kPanelBytes, 1024);
      wgmma_tile<BN>(acc, da, db);
    }
    detail::wgmma_commit();
    detail::wgmma_wait0();
  }
  cp_async_wait<0>();

  // Epilogue. Accumulator layout of m64nN: warp w of the warpgroup holds rows
  // 16w + gid (regs 4j, 4j+1) and 16w + gid + 8 (regs 4j+2, 4j+3) of column
  // block j (8 columns), columns 8j + 2*tid4, +1.
  const int lane = tid & 31, warp = (tid >> 5) & 3, gid = lane >> 2, tid4 = lane & 3;
  if constexpr (kSmemEpilogue) {
    // Stage the fp32 tile in shared memory (reusing the pipeline buffers),
    // then update W/m/v in row-contiguous 8-element chunks: 16-byte (bf16) or
    // 32-byte (f32) coalesced accesses, two chunks' loads in flight per thread.
    constexpr int kLd = BN + 4;  // floats per staged row
    static_assert(kWBM * kLd * 4 <= STAGES * (C::kAStage + C::kBStage), "tile fits in smem");
    float* tile = reinterpret_cast<float*>(smem);
    __syncthreads();  // every warpgroup is done reading the pipeline stages
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = wg * 64 + warp * 16 + gid + half * 8, c = j * 8 + tid4 * 2;
        *reinterpret_cast<float2*>(tile + r * kLd + c) =
            make_float2(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
      }
    __syncthreads();
    constexpr int kChunks = kWBM * BN / 8, kPer = kChunks / 256;
    static_assert(kPer % 2 == 0, "two chunks per batch");
#pragma unroll 1
    for (int b = 0; b < kPer; b += 2) {
      float g[2][8], w[2][8], mm[2][8], vv[2][8];
      std::size_t idx[2];
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const int chunk = (b + u) * 256 + tid, r = chunk / (BN / 8), c = (chunk % (BN / 8)) * 8;
        idx[u] = static_cast<std::size_t>(n0 + r) * s.H + h0 + c;
        const float4 lo = *reinterpret_cast<const float4*>(tile + r * kLd + c);
        const float4 hi = *reinterpret_cast<const float4*>(tile + r * kLd + c + 4);
        g[u][0] = lo.x, g[u][1] = lo.y, g[u][2] = lo.z, g[u][3] = lo.w;
        g[u][4] = hi.x, g[u][5] = hi.y, g[u][6] = hi.z, g[u][7] = hi.w;
        detail::load_state8(p, idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
      }
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        if (grad_dump)
#pragma unroll
          for (int k = 0; k < 8; ++k) grad_dump[idx[u] + k] = g[u][k];
        detail::update_store8(p, g[u], idx[u], W, wt, m, v, st, w[u], mm[u], vv[u]);
      }
    }
    return;
  }
  constexpr int kJ = BN <= 128 ? 2 : 4;  // column blocks per batch (loads in flight)
#pragma unroll
  for (int j0 = 0; j0 < BN / 8; j0 += kJ) {
    float g[2 * kJ][2];
    std::size_t idx[2 * kJ];
#pragma unroll
    for (int jj = 0; jj < kJ; ++jj)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int j = j0 + jj;
        const int n = n0 + wg * 64 + warp * 16 + gid + half * 8;
        const int h = h0 + j * 8 + tid4 * 2;
        idx[2 * jj + half] = static_cast<std::size_t>(n) * s.H + h;
        g[2 * jj + half][0] = acc[4 * j + 2 * half];
        g[2 * jj + half][1] = acc[4 * j + 2 * half + 1];
        if (grad_dump) {
          grad_dump[idx[2 * jj + half]] = g[2 * jj + half][0];
          grad_dump[idx[2 * jj + half] + 1] = g[2 * jj + half][1];
        }
      }
    detail::apply_pairs<2 * kJ>(p, g, idx, W, wt, m, v, st);
  }
}

template <int BN, int STAGES, bool kSmemEpilogue>
cudaError_t launch_w(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X, void* W,
                     DType wt, void* m, void* v, DType st, float* dump, cudaStream_t stream) {
  using C = WCfg<BN, STAGES>;
  auto kernel = fused_wgmma_kernel<BN, STAGES, kSmemEpilogue>;
  static bool configured = false;
  if (!configured) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  const int tiles = (s.N / kWBM) * (s.H / BN);
  kernel<<<tiles, 256, C::kSmemBytes, stream>>>(p, s, dY, X, W, wt, m, v, st, dump);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fused_wgmma_ws(const TileConfig&, const StepParams&, const Shape&,
                                  const bf16*, const bf16*, void*, DType, void*, void*, DType,
                                  float*, cudaStream_t);

cudaError_t launch_fused_wgmma_tma(const TileConfig&, const StepParams&, const Shape&,
                                   const bf16*, const bf16*, void*, DType, void*, void*, DType,
                                   float*, cudaStream_t);
cudaError_t launch_fused_wgmma_pingpong(const TileConfig&, const StepParams&, const Shape&,
                                        const bf16*, const bf16*, void*, DType, void*, void*,
                                        DType, float*, cudaStream_t);

bool wgmma_supported() {
  static const bool supported = [] {
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return false;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major == 9 && minor == 0;
  }();
  return supported;
}

cudaError_t launch_fused_wgmma(const TileConfig& cfg, const StepParams& p, const Shape& s,
                               const bf16* dY, const bf16* X, void* W, DType wt, void* m, void* v,
                               DType st, float* dump, cudaStream_t stream) {
  // Must match wgmma_configs() in src/tiling.cpp.
  if (!wgmma_supported()) return cudaErrorNotSupported;
  if (cfg.bm != kWBM || cfg.bk != kWBK) return cudaErrorInvalidValue;
  if (cfg.epilogue == 2)
    return launch_fused_wgmma_ws(cfg, p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.epilogue == 3 || cfg.epilogue == 4)
    return launch_fused_wgmma_tma(cfg, p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.epilogue == 5)
    return launch_fused_wgmma_pingpong(cfg, p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.epilogue == 0) {
    if (cfg.bn == 128) return launch_w<128, 3, false>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    if (cfg.bn == 64) return launch_w<64, 4, false>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    if (cfg.bn == 256) return launch_w<256, 3, false>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  } else {
    if (cfg.bn == 128) return launch_w<128, 3, true>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    if (cfg.bn == 64) return launch_w<64, 4, true>(p, s, dY, X, W, wt, m, v, st, dump, stream);
    if (cfg.bn == 256) return launch_w<256, 3, true>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
