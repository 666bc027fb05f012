// Hyper-parameters of the optimizer step, and the derived constants the
// operation sequence in optimizer.h names (1−β₁, bias corrections, decay).
#pragma once
#include <cmath>
#include <map>
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

}  // namespace fusecert::model
