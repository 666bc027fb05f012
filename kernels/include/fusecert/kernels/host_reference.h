// host_reference.h — CPU reference of the fused step, with the declared
// per-element K order: g[n,h] = fma over t = 0..BT-1 of dY[t,n]*X[t,h], in
// binary32, then the optimizer of optim.h. Also a float64 reference (P6) and
// deterministic random inputs. All buffers are row-major host memory.
#pragma once
#include <cstdint>
#include <vector>

#include "fusecert/kernels/optim.h"
#include "fusecert/kernels/tiling.h"

namespace fusecert::kernels {

/// g [N, H] binary32 = dY^T X, sequential over tokens (the simt K order).
/// dY: [BT, dy_stride(s)] bf16 (columns [0, N) are read); X: [BT, H] bf16.
std::vector<float> host_gradient_f32(const bf16* dY, const bf16* X, const Shape& s);

/// Apply the optimizer to every element of W/m/v [N, H] with gradient g [N, H].
/// W storage wt; m, v storage st (v ignored for SGD-momentum).
void host_apply_optimizer(const StepParams& p, const float* g, const Shape& s, void* W, DType wt,
                          void* m, void* v, DType st);

/// The fused step on the host: gradient (sequential K order) then optimizer.
void host_fused_step(const StepParams& p, const bf16* dY, const bf16* X, const Shape& s, void* W,
                     DType wt, void* m, void* v, DType st);

/// The same step computed tile by tile as the GPU kernels do (tiles from
/// partition(), tokens staged cfg.bk at a time); must equal host_fused_step
/// bit for bit for every configuration.
void host_fused_step_tiled(const StepParams& p, const TileConfig& cfg, const bf16* dY,
                           const bf16* X, const Shape& s, void* W, DType wt, void* m, void* v,
                           DType st);

/// The unfused path with a bf16-rounded gradient (what a bf16 autograd hands
/// to the optimizer): g rounded to bf16, then the optimizer.
void host_unfused_bf16_grad_step(const StepParams& p, const bf16* dY, const bf16* X,
                                 const Shape& s, void* W, DType wt, void* m, void* v, DType st);

/// Float64 AdamW / SGD-momentum step (exact-ish reference for P6):
/// gradient in float64 from the bf16 inputs, state and weights in float64.
void host_step_f64(const StepParams& p, const bf16* dY, const bf16* X, const Shape& s,
                   double* W, double* m, double* v);

/// Deterministic pseudo-random numbers (splitmix64 + Box-Muller).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next_u64();
  double uniform();  ///< in (0, 1)
  double normal();   ///< N(0, 1)
 private:
  std::uint64_t state_;
};

/// n bf16 values ~ N(0, scale^2).
std::vector<bf16> random_bf16(Rng& rng, std::size_t n, double scale);
/// n floats ~ N(0, scale^2) (abs() when positive), stored as storage `t`
/// in a byte buffer; values are representable exactly in `t`.
std::vector<std::uint8_t> random_buffer(Rng& rng, std::size_t n, DType t, double scale,
                                        bool positive);

/// Widen a buffer of storage `t` to float64.
std::vector<double> to_f64(const void* p, DType t, std::size_t n);

/// Number of positions where two byte buffers of `n` elements of storage `t`
/// differ bitwise.
std::size_t count_bit_mismatches(const void* a, const void* b, DType t, std::size_t n);

/// P6 protocol (propositions.md): 20 AdamW steps on fresh random dY, X per step
/// (seeded), comparing the fp32-gradient path and the bf16-rounded-gradient
/// path against a float64 reference. The two paths are callbacks so the same
/// driver runs the host paths (CPU tests) and the GPU paths (evidence row 4).
struct P6Result {
  DType wt, st;
  double err_fp32_grad;  ///< ||W - W64|| / ||W64 - W0|| after the last step
  double err_bf16_grad;
  double gain;           ///< err_bf16_grad / err_fp32_grad
};
/// step(p, dY, X, W, m, v): one step on host buffers of storage wt / st.
using StepFn = void (*)(void* ctx, const StepParams& p, const bf16* dY, const bf16* X,
                        const Shape& s, void* W, DType wt, void* m, void* v, DType st);
P6Result run_p6(DType wt, DType st, const Shape& s, int steps, std::uint64_t seed,
                StepFn fp32_grad_path, void* ctx1, StepFn bf16_grad_path, void* ctx2);

}  // namespace fusecert::kernels
