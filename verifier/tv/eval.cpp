#include "verifier/tv/eval.h"

#include <cmath>

#include "verifier/witness/numeric.h"

namespace fusecert::tv {

namespace {
/// Correctly rounded for +, −, ×, ÷, √ of operands of `f` (numeric.h: the
/// double rounding through binary64 and binary32 is innocuous).
double rnd(double x, Fmt f) {
  float r = static_cast<float>(x);
  return static_cast<double>(f == Fmt::F32 ? r : witness::round_bf16(r));
}
}  // namespace

std::vector<double> evaluate(const Program& p, const std::map<std::string, double>& inputs) {
  std::vector<double> v;
  v.reserve(p.nodes().size());
  for (const Node& n : p.nodes()) {
    auto x = [&](int i) { return v.at(static_cast<size_t>(i)); };
    double r = 0;
    switch (n.kind) {
      case Node::Kind::Var: {
        auto it = inputs.find(n.name);
        r = it == inputs.end() ? 0.0 : it->second;
        break;
      }
      case Node::Kind::Const: r = n.value; break;
      case Node::Kind::Add: r = rnd(x(n.a) + x(n.b), n.fmt); break;
      case Node::Kind::Sub: r = rnd(x(n.a) - x(n.b), n.fmt); break;
      case Node::Kind::Mul: r = rnd(x(n.a) * x(n.b), n.fmt); break;
      case Node::Kind::Div: r = rnd(x(n.a) / x(n.b), n.fmt); break;
      case Node::Kind::Sqrt: r = rnd(std::sqrt(x(n.a)), n.fmt); break;
      case Node::Kind::Neg: r = -x(n.a); break;
      case Node::Kind::Convert: r = rnd(x(n.a), n.fmt); break;
    }
    v.push_back(r);
  }
  return v;
}

uint64_t bits_in(double x, Fmt f) {
  uint32_t u = witness::bits_of(static_cast<float>(x));
  if (std::isnan(x)) u = 0x7fc00000u;  // canonical quiet NaN, as the solver reports it
  return f == Fmt::F32 ? u : (u >> 16);
}

}  // namespace fusecert::tv
