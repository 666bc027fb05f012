// IEEE-754 helpers shared by model rendering, counterexample checking and the
// bit-exact emulation used by witnesses: decode a bit pattern of any
// (ebits, sbits) format into a double, render hex and decimal, round to bf16.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fusecert::smt {

/// Bit pattern of a Z3 floating-point numeral of format (eb, sb) (sb counts
/// the hidden bit, as SMT-LIB does). nullopt if `v` is not an FP numeral.
/// NaN is rendered as the canonical quiet NaN.
std::optional<uint64_t> fp_numeral_bits(const z3::expr& v, unsigned eb, unsigned sb);

/// Exact value of an IEEE bit pattern of format (eb, sb) as a double. Exact
/// for every format with eb <= 11 and sb <= 53 (binary32, bf16, binary16).
double decode_fp(uint64_t bits, unsigned eb, unsigned sb);

/// "0x" + zero-padded hex of the low `width` bits.
std::string hex_bits(uint64_t bits, unsigned width);

/// Shortest-faithful decimal rendering: "%.9g", or NaN / +oo / -oo.
std::string format_fp(double x);

}  // namespace fusecert::smt
