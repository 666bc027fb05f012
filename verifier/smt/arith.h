// Arithmetic domains over Z3 terms for the templates in verifier/model/:
//  - RealArith: exact real arithmetic (QF_NRA); √x is a fresh s ≥ 0 with s·s = x
//    (a side constraint the caller must assert, see side()).
//  - FpArith: IEEE-754 floating point of format (ebits, sbits) with
//    round-to-nearest-even: binary32 = (8, 24), bf16 = (8, 8).
// Constants are looked up by name in a table of doubles and converted exactly
// (reals: shortest round-trip decimal; FP: rounded once, RNE, to the format).
#pragma once
#include <z3++.h>

#include <map>
#include <string>

namespace fusecert::smt {

/// Shortest decimal string (no exponent) that round-trips to `x`; e.g. 0.9 →
/// "0.9", 1e-8 → "0.00000001". Used to write real constants into SMT-LIB2.
/// Throws std::invalid_argument for NaN and ±inf (no real number).
std::string exact_decimal(double x);

/// Real-number domain. T = z3::expr of sort Real.
class RealArith {
 public:
  using T = z3::expr;
  RealArith(z3::context& ctx, std::map<std::string, double> constants)
      : ctx_(ctx), k_(std::move(constants)), side_(ctx) {}
  T c(const std::string& name) const;
  T num(double x) const { return ctx_.real_val(exact_decimal(x).c_str()); }
  T var(const std::string& name) const { return ctx_.real_const(name.c_str()); }
  T add(const T& a, const T& b) const { return a + b; }
  T sub(const T& a, const T& b) const { return a - b; }
  T mul(const T& a, const T& b) const { return a * b; }
  T div(const T& a, const T& b) const { return a / b; }
  /// √x as a fresh constant `sqrt_N` with sqrt_N ≥ 0 ∧ sqrt_N² = x in side().
  T sqrt(const T& x);
  /// Side constraints produced by sqrt(); assert them with the query.
  const z3::expr_vector& side() const { return side_; }

 private:
  z3::context& ctx_;
  std::map<std::string, double> k_;
  z3::expr_vector side_;
  int fresh_ = 0;
};

/// IEEE floating-point domain of format (ebits, sbits), RNE.
class FpArith {
 public:
  using T = z3::expr;
  FpArith(z3::context& ctx, unsigned ebits, unsigned sbits, std::map<std::string, double> constants);
  T c(const std::string& name) const;
  /// `x` rounded (RNE) to this format.
  T num(double x) const;
  T var(const std::string& name) const { return ctx_.constant(name.c_str(), sort_); }
  T add(const T& a, const T& b) const { return a + b; }
  T sub(const T& a, const T& b) const { return a - b; }
  T mul(const T& a, const T& b) const { return a * b; }
  T div(const T& a, const T& b) const { return a / b; }
  T sqrt(const T& x) const { return z3::sqrt(x, rne()); }
  z3::expr rne() const;
  const z3::sort& sort() const { return sort_; }
  unsigned ebits() const { return eb_; }
  unsigned sbits() const { return sb_; }
  /// SMT-LIB2 spelling of the sort, e.g. "(_ FloatingPoint 8 24)".
  std::string sort_name() const;
  /// Bitwise equality (SMT `=`: same value, -0 ≠ +0, all NaNs equal).
  static z3::expr same_bits(const T& a, const T& b) { return a == b; }
  /// Finite and not NaN.
  static z3::expr finite(const T& a);

 private:
  z3::context& ctx_;
  unsigned eb_, sb_;
  z3::sort sort_;
  std::map<std::string, double> k_;
};

}  // namespace fusecert::smt
