// contrib.cu — kernels of the distributed (P3) path: each rank's state
// contribution produced in the GEMM epilogue, and the shard updates.
#include "fusecert/kernels/distributed.h"

namespace fusecert::kernels {
namespace {

constexpr int kBM = 64, kBN = 64, kTM = 4, kTN = 4, kBK = 16;

// out[r, h] = (seed ? fl(mu * seed[r, h]) : 0) + g[row0 + r, h], r < rows,
// g = dY^T X over this rank's tokens, sequential over t (the simt K order);
// the gradient itself is never stored.
__global__ void __launch_bounds__((kBM / kTM) * (kBN / kTN))
    contrib_kernel(const bf16* __restrict__ dY, const bf16* __restrict__ X, int BT, int N, int H,
                   int row0, int rows, const float* seed, float mu, float* out) {
  constexpr int kThreads = (kBM / kTM) * (kBN / kTN);
  __shared__ float As[kBK][kBM];
  __shared__ float Bs[kBK][kBN];
  const int r0 = blockIdx.y * kBM, h0 = blockIdx.x * kBN;
  const int tx = threadIdx.x % (kBN / kTN), ty = threadIdx.x / (kBN / kTN);
  float acc[kTM][kTN] = {};
  for (int t0 = 0; t0 < BT; t0 += kBK) {
    for (int i = threadIdx.x; i < kBK * kBM; i += kThreads) {
      const int k = i / kBM, r = i % kBM, t = t0 + k;
      As[k][r] = (t < BT && r0 + r < rows)
                     ? bf16_to_float(dY[static_cast<std::size_t>(t) * N + row0 + r0 + r])
                     : 0.0f;
    }
    for (int i = threadIdx.x; i < kBK * kBN; i += kThreads) {
      const int k = i / kBN, c = i % kBN, t = t0 + k;
      Bs[k][c] = (t < BT && h0 + c < H) ? bf16_to_float(X[static_cast<std::size_t>(t) * H + h0 + c])
                                        : 0.0f;
    }
    __syncthreads();
    const int kmax = min(kBK, BT - t0);
    for (int k = 0; k < kmax; ++k)
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j)
          acc[i][j] = fk_fma(As[k][ty * kTM + i], Bs[k][tx * kTN + j], acc[i][j]);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int r = r0 + ty * kTM + i, h = h0 + tx * kTN + j;
      if (r < rows && h < H) {
        const std::size_t o = static_cast<std::size_t>(r) * H + h;
        out[o] = seed ? fk_add(fk_mul(mu, seed[o]), acc[i][j]) : acc[i][j];
      }
    }
}

__global__ void scale_kernel(const float* in, float mu, float* out, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = fk_mul(mu, in[i]);
}

__global__ void weight_from_state_kernel(const float* B, float lr, float* W, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    W[i] = fk_sub(W[i], fk_mul(lr, B[i]));
}

__global__ void v_partial_kernel(const float* g, const float* v, float beta2, bool owner,
                                 float* out, std::size_t n) {
  const float omb2 = fk_sub(1.0f, beta2);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float term = fk_mul(omb2, fk_mul(g[i], g[i]));
    out[i] = owner ? fk_add(fk_mul(beta2, v[i]), term) : term;
  }
}

}  // namespace

cudaError_t launch_contribution(const bf16* dY, const bf16* X, int BT, int N, int H, int row0,
                                int rows, const float* seed, float mu, float* out,
                                cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  dim3 grid((H + kBN - 1) / kBN, (rows + kBM - 1) / kBM);
  contrib_kernel<<<grid, (kBM / kTM) * (kBN / kTN), 0, stream>>>(dY, X, BT, N, H, row0, rows,
                                                                   seed, mu, out);
  return cudaGetLastError();
}

cudaError_t launch_scale(const float* in, float mu, float* out, std::size_t n,
                         cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  scale_kernel<<<132 * 8, 256, 0, stream>>>(in, mu, out, n);
  return cudaGetLastError();
}

cudaError_t launch_weight_from_state(const float* B, float lr, float* W, std::size_t n,
                                     cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  weight_from_state_kernel<<<132 * 8, 256, 0, stream>>>(B, lr, W, n);
  return cudaGetLastError();
}

cudaError_t launch_v_partial(const float* g, const float* v, float beta2, bool owner, float* out,
                             std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  v_partial_kernel<<<132 * 8, 256, 0, stream>>>(g, v, beta2, owner, out, n);
  return cudaGetLastError();
}

}  // namespace fusecert::kernels
