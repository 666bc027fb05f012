// Native arithmetic domains for the optimizer templates (verifier/model/) —
// float64, IEEE binary32 and bf16 emulation — and a deterministic RNG. These
// run the witnesses and replay Z3 counterexamples bit-exactly in C++.
//
// bf16 emulation: every operation is computed in double and rounded (RNE) to
// bf16 through binary32. For +, −, ×, ÷ and √ on bf16 (p = 8) operands this is
// correctly rounded: 53 ≥ 2·24+2 and 24 ≥ 2·8+2 make both double roundings
// innocuous (Figueroa, "When is double rounding innocuous?", 1995).
// binary32 emulation computes in double and rounds once to float for the same
// reason (53 ≥ 2·24+2). The build uses -ffp-contract=off: no fused a·b+c.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace fusecert::witness {

/// Rounds a binary32 value to bf16 (round-to-nearest-even), returned as the
/// binary32 value with the low 16 bits cleared. NaN stays NaN.
inline float round_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return x;  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

/// Bit pattern of a float.
inline uint32_t bits_of(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// Native-arithmetic policy. `Round` maps a double result to the format.
template <class Round>
class NativeArith {
 public:
  using T = double;
  explicit NativeArith(const std::map<std::string, double>& k) {
    for (auto& [n, v] : k) k_[n] = Round{}(v);
  }
  T c(const std::string& name) const {
    auto it = k_.find(name);
    if (it == k_.end()) throw std::invalid_argument("unknown constant '" + name + "'");
    return it->second;
  }
  T num(double x) const { return Round{}(x); }
  T add(T a, T b) const { return Round{}(a + b); }
  T sub(T a, T b) const { return Round{}(a - b); }
  T mul(T a, T b) const { return Round{}(a * b); }
  T div(T a, T b) const { return Round{}(a / b); }
  T sqrt(T a) const { return Round{}(std::sqrt(a)); }

 private:
  std::map<std::string, double> k_;
};

struct RoundF64 { double operator()(double x) const { return x; } };
struct RoundF32 { double operator()(double x) const { return static_cast<double>(static_cast<float>(x)); } };
struct RoundBF16 { double operator()(double x) const { return static_cast<double>(round_bf16(static_cast<float>(x))); } };

using F64Arith = NativeArith<RoundF64>;
using F32Arith = NativeArith<RoundF32>;
using BF16Arith = NativeArith<RoundBF16>;

/// Deterministic standard-normal generator: mt19937_64 + Box–Muller written
/// here, so figures are identical across standard libraries and machines.
class Normal {
 public:
  explicit Normal(uint64_t seed) : eng_(seed) {}
  double operator()() {
    if (have_) {
      have_ = false;
      return spare_;
    }
    double u1, u2;
    do u1 = uniform(); while (u1 <= 0.0);
    u2 = uniform();
    double r = std::sqrt(-2.0 * std::log(u1)), th = 2.0 * M_PI * u2;
    spare_ = r * std::sin(th);
    have_ = true;
    return r * std::cos(th);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(eng_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 eng_;
  bool have_ = false;
  double spare_ = 0;
};

}  // namespace fusecert::witness
