// shard_update.cu — the elementwise kernels of the distributed (P3) path:
// the owned shard's weight update from the reduced state, and the refused
// case's AdamW v on per-rank partials. (Each rank's state contribution comes
// from #8's fused kernel with the momentum_state epilogue: launch_fused.)
#include "fusecert/kernels/distributed.h"

namespace fusecert::kernels {
namespace {

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
