// cuda_api.h — host-callable entry points of the CUDA kernels (device
// pointers, asynchronous on `stream`). Built only when nvcc is present.
//
// Layouts: dY [BT, N] bf16, X [BT, H] bf16 (row-major, tokens first);
// W [N, H] (wt: f32 or bf16); m, v [N, H] (st: f32 or bf16; v unused by
// SGD-momentum and may be null). The fused kernels compute g = dY^T X tile by
// tile in registers and apply the optimizer in the epilogue; g is never
// written to global memory (except into `grad_dump` when a test asks for it).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "fusecert/kernels/optim.h"
#include "fusecert/kernels/tiling.h"

namespace fusecert::kernels {

/// True when a CUDA device is usable; otherwise `why` says what is missing.
bool cuda_device_available(std::string* why);

/// True when the wgmma engine can run here (compute capability 9.0).
bool wgmma_supported();

/// One fused weight-gradient + optimizer step with tile configuration `cfg`
/// (one of simt_configs() / mma_configs() / wgmma_configs(); wgmma needs
/// wgmma_supported(), else cudaErrorNotSupported). `grad_dump` (nullable, [N, H]
/// f32, tests only) receives the binary32 accumulator the epilogue used.
/// Returns cudaErrorInvalidValue when `cfg` is unknown or cannot take `s`,
/// cudaErrorMisalignedAddress when a tensor-core engine gets a dY that is not
/// 16-byte aligned. With p.opt == momentum_state (P3's reduce-into-state) the
/// epilogue writes the state contribution into m, seeded from v (nullable)
/// and W may be null; dY may then be a column window (s.ldy) of a rank's
/// [BT, V] output gradient.
cudaError_t launch_fused(const TileConfig& cfg, const StepParams& p, const Shape& s,
                         const bf16* dY, const bf16* X, void* W, DType wt, void* m, void* v,
                         DType st, float* grad_dump, cudaStream_t stream);

/// The elementwise optimizer of the unfused baseline: reads g [n] (storage
/// gt: f32 or bf16) and updates W, m, v [n] in the same operation order as
/// the fused epilogue (AdamW or SGD-momentum; momentum_state is refused with
/// cudaErrorInvalidValue).
cudaError_t launch_optimizer(const StepParams& p, const void* g, DType gt, std::size_t n, void* W,
                             DType wt, void* m, void* v, DType st, cudaStream_t stream);

/// The unfused baseline's GEMM through cuBLAS: G [N, H] (storage gt) = dY^T X,
/// fp32 compute. One cuBLAS handle per object.
class CublasWgrad {
 public:
  CublasWgrad();
  ~CublasWgrad();
  CublasWgrad(const CublasWgrad&) = delete;
  CublasWgrad& operator=(const CublasWgrad&) = delete;
  /// Returns "" on success, else the cuBLAS status text.
  std::string run(const Shape& s, const bf16* dY, const bf16* X, void* G, DType gt,
                  cudaStream_t stream);
  /// out [rows, H] f32 = (dY^T X)[row0 .. row0+rows) + beta * out, for
  /// dY [BT, N], X [BT, H] (the distributed path's per-shard blocks).
  std::string gemm_rows(const bf16* dY, int N, const bf16* X, int BT, int H, int row0, int rows,
                        float beta, float* out, cudaStream_t stream);
  /// C [M, N] bf16 row-major = A [M, K] * B [K, N] (for the GEMM ceiling).
  std::string gemm_bf16(int M, int N, int K, const bf16* A, const bf16* B, bf16* C,
                        cudaStream_t stream);

 private:
  void* handle_ = nullptr;
};

/// The exhaustive check of the refined square root (sqrt_refined.cuh) that
/// the _pingpong epilogue uses inside its range: every binary32 pattern x,
/// sqrt_refined(x) and sqrt_rn_select(x) against __fsqrt_rn(x) by their bits.
struct SqrtRefinedCheck {
  unsigned long long patterns = 0;             ///< 2^32
  unsigned long long in_range = 0;             ///< patterns in [range_min_bits, range_max_bits]
  unsigned long long in_range_mismatches = 0;  ///< must be 0
  unsigned long long outside_mismatches = 0;   ///< why the range is needed
  unsigned long long select_mismatches = 0;    ///< must be 0
  unsigned range_min_bits = 0, range_max_bits = 0;
};
cudaError_t check_sqrt_refined(SqrtRefinedCheck* out);

/// The check of the _pingpong epilogue's division (div_checked.cuh):
/// div_guess(a, b), accepted by div_is_rn or not, against __fdiv_rn(a, b)
/// by their bits on 2^32 operand pairs (half of random bits, half in the
/// epilogue's magnitudes). div_is_rn is proved to accept only correctly
/// rounded quotients (docs/kernels.md); this measures it.
struct DivCheckedCheck {
  unsigned long long pairs = 0;                  ///< 2^32
  unsigned long long epilogue_like_pairs = 0;    ///< 2^31 of them
  unsigned long long accepted = 0;               ///< div_is_rn true
  unsigned long long accepted_mismatches = 0;    ///< accepted but != __fdiv_rn: must be 0
  unsigned long long guess_mismatches = 0;       ///< div_guess != __fdiv_rn: why the test is there
  unsigned long long refused_correct = 0;        ///< refused although the guess was right
  unsigned long long epilogue_like_accepted = 0; ///< how often the batch keeps its guesses
};
cudaError_t check_div_checked(DivCheckedCheck* out);

/// Fill n bf16 values with deterministic pseudo-random N(0,1)-like values
/// (sum of uniforms) scaled by `scale`, on the device.
cudaError_t fill_random_device(void* p, DType t, std::size_t n, std::uint64_t seed, float scale,
                               bool positive, cudaStream_t stream);

}  // namespace fusecert::kernels
