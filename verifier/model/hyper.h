// Hyper-parameters of the optimizer step, and the derived constants the
// operation sequence in optimizer.h names (1−β₁, bias corrections, decay).
#pragma once
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace fusecert::model {

/// AdamW / momentum hyper-parameters (dimensionless; lr per step).
/// Defaults: propositions.md "Notation" (β₁=0.9, β₂=0.999, ε=1e-8, λ=0.01, η=1e-3).
struct Hyper {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, lam = 0.01, lr = 1e-3, mu = 0.9;
  int step = 1;  ///< t, for the bias corrections (t ≥ 1)

  /// Named constants, as double, for every name optimizer.h uses.
  std::map<std::string, double> constants() const {
    return {{"beta1", beta1},
            {"one_minus_beta1", 1.0 - beta1},
            {"beta2", beta2},
            {"one_minus_beta2", 1.0 - beta2},
            {"bc1", 1.0 - std::pow(beta1, step)},
            {"bc2", 1.0 - std::pow(beta2, step)},
            {"eps", eps},
            {"lr", lr},
            {"decay", 1.0 - lr * lam},
            {"mu", mu}};
  }
};

/// The attribute keys that carry hyper-parameters on an optimizer op (the
/// tessera spelling, which linalg.generic consumers reuse).
inline constexpr const char* kHyperKeys[] = {"lr",   "beta1", "beta2",           "eps",
                                             "weight_decay", "momentum", "grad_clip_scale", "step"};

/// Why `x`, read for the hyper-parameter `key`, is not one: NaN, ±inf (and
/// so any overflowed literal) never are. nullopt when it is finite.
inline std::optional<std::string> hyper_value_problem(const std::string& key, double x) {
  if (std::isfinite(x)) return std::nullopt;
  return key + " = " + (std::isnan(x) ? "NaN" : x > 0 ? "+inf" : "-inf") + " is not a finite number";
}

/// Why the derived constants of `h` are unusable (one overflowed to ±inf or
/// is NaN, e.g. 1 − lr·λ with lr = 1e300), or nullopt.
inline std::optional<std::string> hyper_problem(const Hyper& h) {
  for (auto& [k, v] : h.constants())
    if (auto p = hyper_value_problem(k, v)) return "the derived constant " + *p;
  return std::nullopt;
}

/// The step t as an int: nullopt unless 1 ≤ t ≤ 2³¹−1 and whole.
inline std::optional<int> step_value(double t) {
  if (!(t >= 1 && t <= 2147483647.0) || std::floor(t) != t) return std::nullopt;
  return static_cast<int>(t);
}

}  // namespace fusecert::model
