#include "verifier/smt/arith.h"

#include <z3.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace fusecert::smt {

std::string exact_decimal(double x) {
  // NaN and ±inf are no real number: a caller that reaches here with one
  // has skipped its boundary check (model::hyper_problem, a body constant).
  if (!std::isfinite(x))
    throw std::invalid_argument(std::string("the non-finite value ") + (std::isnan(x) ? "NaN" : x > 0 ? "+inf" : "-inf") +
                                " has no real-number encoding");
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  // buf is d.ddddde±XX; expand into plain decimal.
  std::string s(buf);
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  auto epos = s.find('e');
  int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (char ch : s.substr(0, epos))
    if (ch != '.') digits.push_back(ch);
  int point = 1 + exp;  // position of the decimal point within digits
  std::string out;
  if (point <= 0) {
    out = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (point >= static_cast<int>(digits.size())) {
    out = digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
  }
  return neg ? "-" + out : out;
}

z3::expr RealArith::c(const std::string& name) const {
  auto it = k_.find(name);
  if (it == k_.end()) throw std::invalid_argument("unknown constant '" + name + "' in real encoding");
  return num(it->second);
}

z3::expr RealArith::sqrt(const z3::expr& x) {
  z3::expr s = ctx_.real_const(("sqrt_" + std::to_string(fresh_++)).c_str());
  side_.push_back(s >= 0);
  side_.push_back(s * s == x);
  return s;
}

FpArith::FpArith(z3::context& ctx, unsigned ebits, unsigned sbits, std::map<std::string, double> constants)
    : ctx_(ctx), eb_(ebits), sb_(sbits), sort_(ctx.fpa_sort(ebits, sbits)), k_(std::move(constants)) {
  ctx_.set_rounding_mode(z3::RNE);
}

z3::expr FpArith::rne() const { return ctx_.fpa_rounding_mode(); }

z3::expr FpArith::num(double x) const {
  // Exact double, then one RNE conversion to this format.
  z3::expr d(ctx_, Z3_mk_fpa_numeral_double(ctx_, x, ctx_.fpa_sort(11, 53)));
  z3::expr r(ctx_, Z3_mk_fpa_to_fp_float(ctx_, rne(), d, sort_));
  return r.simplify();
}

z3::expr FpArith::c(const std::string& name) const {
  auto it = k_.find(name);
  if (it == k_.end()) throw std::invalid_argument("unknown constant '" + name + "' in FP encoding");
  return num(it->second);
}

std::string FpArith::sort_name() const {
  return "(_ FloatingPoint " + std::to_string(eb_) + " " + std::to_string(sb_) + ")";
}

z3::expr FpArith::finite(const z3::expr& a) {
  return !a.mk_is_inf() && !a.mk_is_nan();
}

}  // namespace fusecert::smt
