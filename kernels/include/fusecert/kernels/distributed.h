// distributed.h — P3 on several GPUs: SGD-momentum with affine
// reduce-into-state over NCCL reduce-scatter (ZeRO-2), against the standard
// data-parallel step (gradient reduce-scatter, then the optimizer on the
// owned shard). One process per GPU; the runner forks them.
//
// Shapes: W [V, H] f32 (replicated, each rank updates its owned rows), B
// (momentum) f32 sharded by rows (sharding.h); per rank dY [BT, V], X [BT, H]
// bf16 (its own tokens).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "fusecert/kernels/fp.h"

namespace fusecert::kernels {

/// out [rows, H] = (seed ? fl(mu*seed) : 0) + (dY^T X)[row0 .. row0+rows), the
/// GEMM computed sequentially over this rank's tokens (simt K order) and
/// consumed in the epilogue. dY [BT, N] (row0 + rows <= N), X [BT, H].
cudaError_t launch_contribution(const bf16* dY, const bf16* X, int BT, int N, int H, int row0,
                                int rows, const float* seed, float mu, float* out,
                                cudaStream_t stream);
/// out[i] = fl(mu * in[i]).
cudaError_t launch_scale(const float* in, float mu, float* out, std::size_t n,
                         cudaStream_t stream);
/// W[i] = fl(W[i] - fl(lr * B[i])) (SGD weight update from the reduced state).
cudaError_t launch_weight_from_state(const float* B, float lr, float* W, std::size_t n,
                                     cudaStream_t stream);
/// AdamW's v contribution on a per-rank partial: (owner ? b2*v : 0) + (1-b2)*g^2.
cudaError_t launch_v_partial(const float* g, const float* v, float beta2, bool owner, float* out,
                             std::size_t n, cudaStream_t stream);

/// Options of a distributed run.
struct DistOptions {
  int ranks = 2;  ///< processes = GPUs
  std::string what = "evidence";  ///< "evidence" or "bench"
};

/// Fork `ranks` processes (one per GPU, NCCL unique id through shared memory),
/// run the distributed evidence or benchmark, and return the JSON document;
/// `exit_code` gets 0 (all pass), 1 (a check failed) or 2 (setup failure).
/// Must be called before anything in this process touches CUDA.
std::string run_distributed(const DistOptions& o, int* exit_code);

}  // namespace fusecert::kernels
