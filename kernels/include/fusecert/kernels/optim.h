// optim.h — the optimizer step applied per element in the GEMM epilogue, in
// exactly the same binary32 operation order on host and device (see fp.h).
//
// AdamW (decoupled weight decay, bias correction, eps outside the sqrt):
//   m_t = b1*m + (1-b1)*g
//   v_t = b2*v + (1-b2)*(g*g)
//   W_t = W*(1 - lr*wd) - lr * ((m_t/bc1) / (sqrt(v_t/bc2) + eps)),
//   bc1 = 1 - b1^t, bc2 = 1 - b2^t,
// evaluated (as PyTorch does) in the algebraically identical form
//   W_t = W*(1 - lr*wd) - (step_size*m_t) / (sqrt(v_t)*inv_sqrt_bc2 + eps),
//   step_size = lr/bc1, inv_sqrt_bc2 = 1/sqrt(bc2),
// with step_size and inv_sqrt_bc2 computed once per step in float64 on the
// host, rounded to binary32 and passed to every kernel: one division and one
// square root per element instead of three divisions and a square root.
// SGD with momentum (heavy ball):  B_t = mu*B + g;  W_t = W - lr*B_t.
// Momentum state contribution (P3, reduce-into-state): the affine state
// update A alone, C = mu*S + g on the rank that owns the rows (seed S) and
// C = g on every other rank, W untouched; the ranks' C are then summed by a
// reduce-scatter into the owner's B_t (propositions.md §P3).
// With bf16 state, m/v are computed in binary32 from the widened state, the
// weight update uses these binary32 values, and m/v are stored rounded to bf16.
#pragma once
#include "fusecert/kernels/fp.h"

namespace fusecert::kernels {

enum class Optimizer : int {
  adamw = 0,
  sgd_momentum = 1,
  /// P3: write the state contribution C = fl(mu*S) + g (seed S given) or
  /// C = g (no seed) into `m`; the seed S is read from the `v` argument
  /// (nullable); W is neither read nor written.
  momentum_state = 2,
};

/// Per-step scalars, all binary32, precomputed on the host (make_step_params).
struct StepParams {
  Optimizer opt = Optimizer::adamw;
  float lr = 1e-3f;            ///< learning rate eta
  float beta1 = 0.9f;          ///< AdamW b1
  float beta2 = 0.999f;        ///< AdamW b2
  float eps = 1e-8f;           ///< AdamW eps (outside the sqrt)
  float weight_decay = 0.01f;  ///< AdamW decoupled decay lambda
  float momentum = 0.9f;       ///< SGD momentum mu
  int step = 1;                ///< t >= 1 (AdamW bias correction)
  // derived (make_step_params):
  float one_minus_beta1 = 0.1f;
  float one_minus_beta2 = 0.001f;
  float bias_corr1 = 0.1f;     ///< 1 - b1^t
  float bias_corr2 = 0.001f;   ///< 1 - b2^t
  float decay = 1.0f;          ///< 1 - lr*wd
  float step_size = 1e-2f;     ///< lr / bc1 (float64, rounded once)
  float inv_sqrt_bc2 = 31.6227766f;  ///< 1 / sqrt(bc2) (float64, rounded once)
};

/// Fill the derived fields of `p` from its hyper-parameters and step.
StepParams make_step_params(StepParams p);

/// AdamW's moments: m, v in/out with gradient g.
FK_HD void adamw_moments(const StepParams& p, float g, float& m, float& v) {
  m = fk_add(fk_mul(p.beta1, m), fk_mul(p.one_minus_beta1, g));
  v = fk_add(fk_mul(p.beta2, v), fk_mul(p.one_minus_beta2, fk_mul(g, g)));
}
/// AdamW's weight update in three parts around its one division: the
/// numerator step_size*m, the denominator sqrt_v*inv_sqrt_bc2 + eps, and the
/// decayed weight minus the quotient (a kernel may compute the quotient by
/// another sequence whose result it proves correctly rounded: the bits are
/// the same).
FK_HD float adamw_numerator(const StepParams& p, float m) { return fk_mul(p.step_size, m); }
FK_HD float adamw_denominator(const StepParams& p, float sqrt_v) {
  return fk_add(fk_mul(sqrt_v, p.inv_sqrt_bc2), p.eps);
}
FK_HD float adamw_apply(const StepParams& p, float w, float quotient) {
  return fk_sub(fk_mul(w, p.decay), quotient);
}
/// AdamW's new weight from w, the new m and sqrt_v = fk_sqrt(new v) (a
/// kernel may compute that square root by another correctly rounded
/// sequence: the bits are the same).
FK_HD float adamw_weight(const StepParams& p, float w, float m, float sqrt_v) {
  return adamw_apply(p, w, fk_div(adamw_numerator(p, m), adamw_denominator(p, sqrt_v)));
}
/// One AdamW element update. g: gradient (binary32); w, m, v in/out.
FK_HD void adamw_update(const StepParams& p, float g, float& w, float& m, float& v) {
  adamw_moments(p, g, m, v);
  w = adamw_weight(p, w, m, fk_sqrt(v));
}

/// One SGD-momentum element update. g: gradient; w, b (momentum buffer) in/out.
FK_HD void sgd_momentum_update(const StepParams& p, float g, float& w, float& b) {
  b = fk_add(fk_mul(p.momentum, b), g);
  w = fk_sub(w, fk_mul(p.lr, b));
}

/// One momentum state contribution (P3): fl(mu*seed) + g with a seed, else g.
FK_HD float momentum_contribution(float mu, float g, bool seeded, float seed) {
  return seeded ? fk_add(fk_mul(mu, seed), g) : g;
}

/// Apply the optimizer to element i of W [*, *] and its state buffers.
/// W: storage wt; m, v: storage st (v unused for SGD and may be null).
/// momentum_state: m[i] = contribution with seed v[i] (v nullable); W unused.
FK_HD void apply_element(const StepParams& p, float g, void* W, DType wt, void* m, void* v,
                         DType st, std::size_t i) {
  if (p.opt == Optimizer::momentum_state) {
    const bool seeded = v != nullptr;
    store_from_float(m, st, i,
                     momentum_contribution(p.momentum, g, seeded,
                                           seeded ? load_as_float(v, st, i) : 0.0f));
    return;
  }
  float w = load_as_float(W, wt, i);
  float mm = load_as_float(m, st, i);
  if (p.opt == Optimizer::adamw) {
    float vv = load_as_float(v, st, i);
    adamw_update(p, g, w, mm, vv);
    store_from_float(v, st, i, vv);
  } else {
    sgd_momentum_update(p, g, w, mm);
  }
  store_from_float(m, st, i, mm);
  store_from_float(W, wt, i, w);
}

}  // namespace fusecert::kernels
