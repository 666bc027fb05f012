#include "verifier/smt/values.h"

#include <z3.h>

#include <cmath>
#include <cstdio>

namespace fusecert::smt {

std::optional<uint64_t> fp_numeral_bits(const z3::expr& v, unsigned eb, unsigned sb) {
  Z3_context c = v.ctx();
  if (!Z3_fpa_is_numeral_nan(c, v) && !v.is_numeral()) {
    // Not a numeral at all (e.g. an uninterpreted term).
    bool is_fp_num = Z3_fpa_is_numeral_inf(c, v) || Z3_fpa_is_numeral_zero(c, v) ||
                     Z3_fpa_is_numeral_normal(c, v) || Z3_fpa_is_numeral_subnormal(c, v);
    if (!is_fp_num) return std::nullopt;
  }
  const uint64_t exp_all = (uint64_t{1} << eb) - 1;
  if (Z3_fpa_is_numeral_nan(c, v)) return (exp_all << (sb - 1)) | (uint64_t{1} << (sb - 2));
  bool neg = Z3_fpa_is_numeral_negative(c, v);
  uint64_t sign = neg ? 1 : 0;
  if (Z3_fpa_is_numeral_inf(c, v)) return (sign << (eb + sb - 1)) | (exp_all << (sb - 1));
  int64_t exp = 0;
  uint64_t sig = 0;
  if (!Z3_fpa_get_numeral_exponent_int64(c, v, &exp, /*biased=*/true)) return std::nullopt;
  if (!Z3_fpa_get_numeral_significand_uint64(c, v, &sig)) return std::nullopt;
  return (sign << (eb + sb - 1)) | (static_cast<uint64_t>(exp) << (sb - 1)) | sig;
}

double decode_fp(uint64_t bits, unsigned eb, unsigned sb) {
  const unsigned mbits = sb - 1;
  const uint64_t exp_all = (uint64_t{1} << eb) - 1;
  const int bias = static_cast<int>((1u << (eb - 1)) - 1);
  bool neg = (bits >> (eb + mbits)) & 1;
  uint64_t e = (bits >> mbits) & exp_all;
  uint64_t m = bits & ((uint64_t{1} << mbits) - 1);
  double x;
  if (e == exp_all) {
    x = m ? NAN : INFINITY;
  } else if (e == 0) {
    x = std::ldexp(static_cast<double>(m), 1 - bias - static_cast<int>(mbits));
  } else {
    x = std::ldexp(static_cast<double>(m | (uint64_t{1} << mbits)), static_cast<int>(e) - bias - static_cast<int>(mbits));
  }
  return neg ? -x : x;
}

std::string hex_bits(uint64_t bits, unsigned width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>((width + 3) / 4),
                static_cast<unsigned long long>(bits));
  return buf;
}

std::string format_fp(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "+oo" : "-oo";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

}  // namespace fusecert::smt
