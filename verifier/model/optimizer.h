// The optimizer steps of the FORGE assessment, written once over an abstract
// arithmetic `A` so the same operation sequence is used by the Z3 encodings
// (reals, IEEE floating point) and by the C++ witnesses / counterexample
// replays (double, binary32, bf16 emulation). Source: propositions.md,
// "Notation"; FORGE paper §2 (AdamW with decoupled weight decay).
//
// `A` provides: using T; T c(name) (a hyper-parameter constant by name);
// T add(T,T), sub(T,T), mul(T,T), div(T,T), sqrt(T).
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>

namespace fusecert::model {

/// AdamW state of one element: weight W, first moment m, second moment v.
template <class T>
struct AdamWState {
  T W, m, v;
};

/// The named constants of one AdamW step, looked up once (hot loops in the
/// witnesses step millions of elements with the same constants).
template <class A>
struct AdamWConsts {
  using T = typename A::T;
  T beta1, omb1, beta2, omb2, bc1, bc2, eps, lr, decay;
  explicit AdamWConsts(const A& a)
      : beta1(a.c("beta1")), omb1(a.c("one_minus_beta1")), beta2(a.c("beta2")), omb2(a.c("one_minus_beta2")),
        bc1(a.c("bc1")), bc2(a.c("bc2")), eps(a.c("eps")), lr(a.c("lr")), decay(a.c("decay")) {}
};

/// One AdamW step at element granularity, in this fixed operation order:
///   m1 = β₁·m + (1−β₁)·g;  v1 = β₂·v + (1−β₂)·(g·g)
///   m̂ = m1 / bc1;  v̂ = v1 / bc2          (bc1 = 1−β₁ᵗ, bc2 = 1−β₂ᵗ)
///   W1 = W·decay − η·(m̂ / (√v̂ + ε))      (decay = 1−η·λ)
/// Constants by name: beta1, one_minus_beta1, beta2, one_minus_beta2, bc1,
/// bc2, eps, lr, decay. Every domain rounds each named constant to its own
/// format once, so all domains execute the same sequence of rounded ops.
template <class A>
AdamWState<typename A::T> adamw_step(A& a, const AdamWConsts<A>& k, const AdamWState<typename A::T>& s,
                                     const typename A::T& g) {
  using T = typename A::T;
  T m1 = a.add(a.mul(k.beta1, s.m), a.mul(k.omb1, g));
  T v1 = a.add(a.mul(k.beta2, s.v), a.mul(k.omb2, a.mul(g, g)));
  T mh = a.div(m1, k.bc1);
  T vh = a.div(v1, k.bc2);
  T den = a.add(a.sqrt(vh), k.eps);
  T W1 = a.sub(a.mul(s.W, k.decay), a.mul(k.lr, a.div(mh, den)));
  return {W1, m1, v1};
}

/// adamw_step with the constants looked up from `a`.
template <class A>
AdamWState<typename A::T> adamw_step(A& a, const AdamWState<typename A::T>& s, const typename A::T& g) {
  return adamw_step(a, AdamWConsts<A>(a), s, g);
}

/// Second-moment update alone: v1 = β₂·v + (1−β₂)·(g·g).
template <class A>
typename A::T adam_v(A& a, const typename A::T& v, const typename A::T& g) {
  return a.add(a.mul(a.c("beta2"), v), a.mul(a.c("one_minus_beta2"), a.mul(g, g)));
}

/// First-moment update alone: m1 = β₁·m + (1−β₁)·g.
template <class A>
typename A::T adam_m(A& a, const typename A::T& m, const typename A::T& g) {
  return a.add(a.mul(a.c("beta1"), m), a.mul(a.c("one_minus_beta1"), g));
}

/// Heavy-ball momentum state update (affine A): B1 = μ·B + g.
template <class A>
typename A::T momentum_state(A& a, const typename A::T& B, const typename A::T& g) {
  return a.add(a.mul(a.c("mu"), B), g);
}

/// SGD weight update: W1 = W − η·g.
template <class A>
typename A::T sgd_step(A& a, const typename A::T& W, const typename A::T& g) {
  return a.sub(W, a.mul(a.c("lr"), g));
}

/// The sequential (one-shot) K reduction Σ_k a_k·b_k, accumulated left to
/// right: ((p0 + p1) + p2) + ...  — the per-element K order of the reference.
template <class A, class Seq>
typename A::T dot_sequential(A& a, const Seq& x, const Seq& y) {
  typename A::T acc = a.mul(x[0], y[0]);
  for (std::size_t k = 1; k < x.size(); ++k) acc = a.add(acc, a.mul(x[k], y[k]));
  return acc;
}

/// Split-K reduction: `splits` contiguous partial sums, each sequential, then
/// summed left to right — the association a split-K GEMM uses.
template <class A, class Seq>
typename A::T dot_split_k(A& a, const Seq& x, const Seq& y, std::size_t splits) {
  const std::size_t K = x.size(), chunk = (K + splits - 1) / splits;
  std::optional<typename A::T> total;
  for (std::size_t s0 = 0; s0 < K; s0 += chunk) {
    typename A::T part = a.mul(x[s0], y[s0]);
    for (std::size_t k = s0 + 1; k < std::min(K, s0 + chunk); ++k) part = a.add(part, a.mul(x[k], y[k]));
    total = total ? a.add(*total, part) : part;
  }
  return *total;
}

}  // namespace fusecert::model
