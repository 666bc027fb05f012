#include "verifier/tv/encode_fp.h"

#include "verifier/smt/arith.h"

namespace fusecert::tv {

std::vector<z3::expr> encode_fp(z3::context& ctx, const Program& p) {
  smt::FpArith f32(ctx, 8, 24, {}), bf16(ctx, 8, 8, {});
  auto dom = [&](Fmt f) -> smt::FpArith& { return f == Fmt::F32 ? f32 : bf16; };
  std::vector<z3::expr> e;
  e.reserve(p.nodes().size());
  for (const Node& n : p.nodes()) {
    smt::FpArith& a = dom(n.fmt);
    auto x = [&](int i) { return e.at(static_cast<size_t>(i)); };
    switch (n.kind) {
      case Node::Kind::Var: e.push_back(a.var(n.name)); break;
      case Node::Kind::Const: e.push_back(a.num(n.value)); break;  // exact: value is representable
      case Node::Kind::Add: e.push_back(a.add(x(n.a), x(n.b))); break;
      case Node::Kind::Sub: e.push_back(a.sub(x(n.a), x(n.b))); break;
      case Node::Kind::Mul: e.push_back(a.mul(x(n.a), x(n.b))); break;
      case Node::Kind::Div: e.push_back(a.div(x(n.a), x(n.b))); break;
      case Node::Kind::Sqrt: e.push_back(a.sqrt(x(n.a))); break;
      case Node::Kind::Neg: e.push_back(-x(n.a)); break;
      case Node::Kind::Convert: e.push_back(z3::fpa_to_fpa(x(n.a), a.sort())); break;
    }
  }
  return e;
}

}  // namespace fusecert::tv
