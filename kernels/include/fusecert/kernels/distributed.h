// distributed.h — P3 on several GPUs: SGD-momentum with affine
// reduce-into-state over NCCL reduce-scatter (ZeRO-2), against the standard
// data-parallel step (gradient reduce-scatter, then the optimizer on the
// owned shard). One process per GPU; the runner forks them.
//
// Shapes: W [V, H] f32 (replicated, each rank updates its owned rows), B
// (momentum) f32 sharded by rows (sharding.h); per rank dY [BT, V], X [BT, H]
// bf16 (its own tokens). Each rank's state contribution for a chunk of a
// shard is produced by #8's fused wgrad kernel (launch_fused with
// Optimizer::momentum_state on a column window of dY): the gradient block
// lives only in the accumulator, and NCCL reduce-scatters the contributions.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "fusecert/kernels/fp.h"

namespace fusecert::kernels {

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
