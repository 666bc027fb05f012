// fused_simt.cu — the fused step on CUDA cores with the declared sequential K
// order (acc = fma(dY[t,n], X[t,h], acc), t = 0..BT-1): bitwise equal to
// host_fused_step for any tile shape. Evidence rows 1 and 2; not the fast path.
#include "fusecert/kernels/cuda_api.h"

namespace fusecert::kernels {
namespace {

template <int BM, int BN, int TM, int TN, int BK>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    fused_simt_kernel(StepParams p, Shape s, const bf16* __restrict__ dY,
                      const bf16* __restrict__ X, void* W, DType wt, void* m, void* v, DType st,
                      float* grad_dump) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int n0 = blockIdx.y * BM, h0 = blockIdx.x * BN;
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int t0 = 0; t0 < s.BT; t0 += BK) {
    for (int i = threadIdx.x; i < BK * BM; i += THREADS) {
      const int k = i / BM, r = i % BM, t = t0 + k, n = n0 + r;
      As[k][r] = (t < s.BT && n < s.N) ? bf16_to_float(dY[static_cast<std::size_t>(t) * dy_stride(s) + n])
                                       : 0.0f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += THREADS) {
      const int k = i / BN, c = i % BN, t = t0 + k, h = h0 + c;
      Bs[k][c] = (t < s.BT && h < s.H) ? bf16_to_float(X[static_cast<std::size_t>(t) * s.H + h])
                                       : 0.0f;
    }
    __syncthreads();
    const int kmax = min(BK, s.BT - t0);  // only real tokens enter the sum
    for (int k = 0; k < kmax; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fk_fma(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  // Epilogue: the gradient tile goes from registers straight into the update.
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + ty * TM + i, h = h0 + tx * TN + j;
      if (n < s.N && h < s.H) {
        const std::size_t idx = static_cast<std::size_t>(n) * s.H + h;
        if (grad_dump) grad_dump[idx] = acc[i][j];
        apply_element(p, acc[i][j], W, wt, m, v, st, idx);
      }
    }
}

template <int BM, int BN, int TM, int TN, int BK>
cudaError_t launch_simt(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                        void* W, DType wt, void* m, void* v, DType st, float* dump,
                        cudaStream_t stream) {
  dim3 grid((s.H + BN - 1) / BN, (s.N + BM - 1) / BM);
  fused_simt_kernel<BM, BN, TM, TN, BK>
      <<<grid, (BM / TM) * (BN / TN), 0, stream>>>(p, s, dY, X, W, wt, m, v, st, dump);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fused_simt(const TileConfig& cfg, const StepParams& p, const Shape& s,
                              const bf16* dY, const bf16* X, void* W, DType wt, void* m, void* v,
                              DType st, float* dump, cudaStream_t stream) {
  // Must match simt_configs() in src/tiling.cpp.
  if (cfg.bk != 16) return cudaErrorInvalidValue;
  if (cfg.bm == 32 && cfg.bn == 32)
    return launch_simt<32, 32, 2, 2, 16>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 64 && cfg.bn == 64)
    return launch_simt<64, 64, 4, 4, 16>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 16 && cfg.bn == 128)
    return launch_simt<16, 128, 2, 4, 16>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  if (cfg.bm == 128 && cfg.bn == 32)
    return launch_simt<128, 32, 4, 4, 16>(p, s, dY, X, W, wt, m, v, st, dump, stream);
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
