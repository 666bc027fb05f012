// fused_mma.cu — the fast fused step: tensor-core GEMM (mma.sync m16n8k16,
// bf16 in, fp32 accumulate) over a cp.async multi-stage shared-memory
// pipeline, with the optimizer applied to the accumulator fragments in the
// epilogue (the gradient never leaves registers).
//
// K order per element: one MMA per 16-token chunk, chunks in ascending order
// (BK = 32 tokens per stage = two chunks, in order), whatever BM x BN: so all
// tile configurations give the same bits (P1 on hardware).
//
// dY [BT, N] is A^T stored row-major (N contiguous) and X [BT, H] is B stored
// row-major; both fragments come from shared memory through ldmatrix.trans.
#include <cstdint>

#include "epilogue.cuh"
#include "fusecert/kernels/cuda_api.h"

namespace fusecert::kernels {
namespace {

constexpr int kBK = 32;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void mma_bf16(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                         unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <int BM, int BN, int WARPS_M, int WARPS_N, int STAGES>
struct MmaCfg {
  static constexpr int kThreads = WARPS_M * WARPS_N * 32;
  static constexpr int kAStride = BM + 8;  // +16 B per row: conflict-free ldmatrix
  static constexpr int kBStride = BN + 8;
  static constexpr int kWarpM = BM / WARPS_M, kWarpN = BN / WARPS_N;
  static constexpr int kMT = kWarpM / 16, kNT = kWarpN / 8;
  static constexpr int kSmemBytes = STAGES * kBK * (kAStride + kBStride) * 2;
  static_assert(kWarpM % 16 == 0 && kWarpN % 16 == 0, "warp tile must be 16x16 multiples");
};

template <int BM, int BN, int WARPS_M, int WARPS_N, int STAGES>
__global__ void __launch_bounds__(WARPS_M* WARPS_N * 32, 2)
    fused_mma_kernel(StepParams p, Shape s, const bf16* __restrict__ dY,
                     const bf16* __restrict__ X, void* W, DType wt, void* m, void* v, DType st,
                     float* grad_dump) {
  using C = MmaCfg<BM, BN, WARPS_M, WARPS_N, STAGES>;
  extern __shared__ __align__(128) std::uint16_t smem[];
  std::uint16_t* As = smem;                                // [STAGES][BK][kAStride]
  std::uint16_t* Bs = smem + STAGES * kBK * C::kAStride;   // [STAGES][BK][kBStride]

  // Grouped rasterization: 8 row-tiles share the X column panel in L2.
  const int tiles_m = s.N / BM, tiles_n = s.H / BN;
  constexpr int kGroup = 8;
  const int pid = blockIdx.x, in_group = kGroup * tiles_n;
  const int first_m = (pid / in_group) * kGroup;
  const int gsize = min(tiles_m - first_m, kGroup);
  const int tm = first_m + (pid % in_group) % gsize, tn = (pid % in_group) / gsize;
  const int n0 = tm * BM, h0 = tn * BN;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int KT = s.BT / kBK;

  auto load_stage = [&](int stage, int t0) {
    std::uint16_t* a = As + stage * kBK * C::kAStride;
    std::uint16_t* b = Bs + stage * kBK * C::kBStride;
    constexpr int a_chunks = kBK * BM / 8, b_chunks = kBK * BN / 8;
#pragma unroll
    for (int i = tid; i < a_chunks; i += C::kThreads) {
      const int row = i / (BM / 8), c = i % (BM / 8);
      cp_async16(a + row * C::kAStride + c * 8,
                 dY + static_cast<std::size_t>(t0 + row) * dy_stride(s) + n0 + c * 8);
    }
#pragma unroll
    for (int i = tid; i < b_chunks; i += C::kThreads) {
      const int row = i / (BN / 8), c = i % (BN / 8);
      cp_async16(b + row * C::kBStride + c * 8,
                 X + static_cast<std::size_t>(t0 + row) * s.H + h0 + c * 8);
    }
  };

  float acc[C::kMT][C::kNT][4];
#pragma unroll
  for (int i = 0; i < C::kMT; ++i)
#pragma unroll
    for (int j = 0; j < C::kNT; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

#pragma unroll
  for (int st0 = 0; st0 < STAGES - 1; ++st0) {
    if (st0 < KT) load_stage(st0, st0 * kBK);
    cp_async_commit();
  }

  const int lr = lane & 7, li = lane >> 3;
  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int nk = kt + STAGES - 1;
    if (nk < KT) load_stage(nk % STAGES, nk * kBK);
    cp_async_commit();

    const std::uint16_t* a = As + (kt % STAGES) * kBK * C::kAStride;
    const std::uint16_t* b = Bs + (kt % STAGES) * kBK * C::kBStride;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {  // chunks in ascending token order
      unsigned af[C::kMT][4];
      unsigned bfr[C::kNT][2];
#pragma unroll
      for (int mt = 0; mt < C::kMT; ++mt) {
        // matrices: (k0-7,m0-7) (k0-7,m8-15) (k8-15,m0-7) (k8-15,m8-15) -> a0..a3
        const int k = kk + lr + (li >> 1) * 8;
        const int mcol = wm * C::kWarpM + mt * 16 + (li & 1) * 8;
        ldmatrix_x4_trans(af[mt], a + k * C::kAStride + mcol);
      }
#pragma unroll
      for (int np = 0; np < C::kNT / 2; ++np) {
        // matrices: (k0-7,n0-7) (k8-15,n0-7) (k0-7,n8-15) (k8-15,n8-15)
        const int k = kk + lr + (li & 1) * 8;
        const int ncol = wn * C::kWarpN + np * 16 + (li >> 1) * 8;
        unsigned r[4];
        ldmatrix_x4_trans(r, b + k * C::kBStride + ncol);
        bfr[2 * np][0] = r[0];
        bfr[2 * np][1] = r[1];
        bfr[2 * np + 1][0] = r[2];
        bfr[2 * np + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < C::kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < C::kNT; ++nt) mma_bf16(acc[mt][nt], af[mt], bfr[nt][0], bfr[nt][1]);
    }
  }
  cp_async_wait<0>();

  // Epilogue: fragment (mt, nt) holds rows gid / gid+8, columns 2*tid4, +1.
  // One batch per mt: all W/m/v loads of the batch in flight together.
  const int gid = lane >> 2, tid4 = lane & 3;
#pragma unroll
  for (int mt = 0; mt < C::kMT; ++mt) {
    float g[2 * C::kNT][2];
    std::size_t idx[2 * C::kNT];
#pragma unroll
    for (int nt = 0; nt < C::kNT; ++nt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int n = n0 + wm * C::kWarpM + mt * 16 + gid + half * 8;
        const int h = h0 + wn * C::kWarpN + nt * 8 + tid4 * 2;
        idx[2 * nt + half] = static_cast<std::size_t>(n) * s.H + h;
        g[2 * nt + half][0] = acc[mt][nt][2 * half];
        g[2 * nt + half][1] = acc[mt][nt][2 * half + 1];
        if (grad_dump) {
          grad_dump[idx[2 * nt + half]] = g[2 * nt + half][0];
          grad_dump[idx[2 * nt + half] + 1] = g[2 * nt + half][1];
        }
      }
    detail::apply_pairs<2 * C::kNT>(p, g, idx, W, wt, m, v, st);
  }
}

template <int BM, int BN, int WARPS_M, int WARPS_N, int STAGES>
cudaError_t launch_mma(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                       void* W, DType wt, void* m, void* v, DType st, float* dump,
                       cudaStream_t stream) {
  using C = MmaCfg<BM, BN, WARPS_M, WARPS_N, STAGES>;
  auto kernel = fused_mma_kernel<BM, BN, WARPS_M, WARPS_N, STAGES>;
  static bool configured = false;  // one attribute call per instantiation
  if (!configured) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  const int tiles = (s.N / BM) * (s.H / BN);
  kernel<<<tiles, C::kThreads, C::kSmemBytes, stream>>>(p, s, dY, X, W, wt, m, v, st, dump);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fused_mma(const TileConfig& cfg, const StepParams& p, const Shape& s,
                             const bf16* dY, const bf16* X, void* W, DType wt, void* m, void* v,
                             DType st, float* dump, cudaStream_t stream) {
  // Must match mma_configs() in src/tiling.cpp.
  if (cfg.bk != kBK) return cudaErrorInvalidValue;
  if (cfg.bm == 128 && cfg.bn == 128)
    return launch_mma<128, 128, 2, 4, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 128 && cfg.bn == 64)
    return launch_mma<128, 64, 2, 2, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 64 && cfg.bn == 128)
    return launch_mma<64, 128, 2, 2, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 64 && cfg.bn == 64)
    return launch_mma<64, 64, 2, 2, 4>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
