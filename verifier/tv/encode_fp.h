// Encodes a per-element scalar Program (scalar.h) in Z3's floating-point
// theory: every node in its own format (binary32 = (8, 24), bf16 = (8, 8)),
// every operation rounded to nearest, ties to even, as IEEE-754 specifies.
#pragma once
#include <z3++.h>

#include <vector>

#include "verifier/tv/scalar.h"

namespace fusecert::tv {

/// The Z3 terms of the nodes of `p`, indexed like p.nodes(). Variables are
/// FP constants named after Node::name (the same name is the same constant).
std::vector<z3::expr> encode_fp(z3::context& ctx, const Program& p);

}  // namespace fusecert::tv
