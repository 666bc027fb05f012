// Evaluates a per-element scalar Program in C++ with bit-exact binary32 and
// bf16 emulation (verifier/witness/numeric.h), to replay a counterexample
// independently of the solver.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "verifier/tv/scalar.h"

namespace fusecert::tv {

/// Values of every node of `p` (as doubles holding values of the node's
/// format). `inputs` maps variable names to values; a variable missing from
/// it is +0 (Z3 leaves unconstrained operands out of its model).
std::vector<double> evaluate(const Program& p, const std::map<std::string, double>& inputs);

/// IEEE bit pattern of `x` in format `f` (binary32 bits, or the top 16 bits
/// for bf16).
uint64_t bits_in(double x, Fmt f);

}  // namespace fusecert::tv
