// linalg on tensors and arith/math scalar bodies, per output element (i, j):
//  linalg.matmul_transpose_a ins(A, B) outs(C): C[i,j] + Σ_k A[k,i]·B[k,j],
//    linalg.matmul: A[i,k]; accumulated in C's element type, ascending k
//    (the order of linalg's loop form; linalg itself does not fix it).
//  linalg.fill ins(c) outs(T): c converted to T's element type.
//  linalg.generic with parallel iterators and identity indexing maps: its
//    body (arith.addf/subf/mulf/divf/negf, arith.extf/truncf, math.sqrt).
//  func.func with a scalar arith/math body (a fused op's epilogue).
#include "verifier/tv/side.h"

namespace fusecert::tv {

std::vector<int> SideTranslator::linalg_matmul(const ir::Op& op) {
  if (op.num_inputs != 2 || op.operands.size() != 3 || op.results.size() != 1)
    fail(op.loc, op.name + ": expected ins(A, B) outs(C) on tensors");
  Fmt out = fmt_of(m_.values.at(static_cast<size_t>(op.results[0])).type, op.loc);
  int init = p_.convert(element(op.operands[2]), out);
  side_.abstractions.insert("linalg contraction: ascending k from the init value in the result element type (linalg's "
                            "loop order; linalg does not fix the association)");
  return {contraction(op, op.operands[0], op.operands[1], op.kind == ir::Op::Kind::MatmulTransposeA, out, init, 1)};
}

std::vector<int> SideTranslator::linalg_fill(const ir::Op& op) {
  if (op.operands.size() != 2 || op.results.size() != 1) fail(op.loc, "linalg.fill: expected ins(c) outs(T)");
  return {p_.convert(element(op.operands[0]), fmt_of(m_.values.at(static_cast<size_t>(op.results[0])).type, op.loc))};
}

namespace {
bool identity(const ir::AffineMap& m) {
  if (m.num_symbols != 0 || m.results.size() != m.num_dims) return false;
  for (size_t d = 0; d < m.results.size(); ++d)
    if (m.results[d].kind != ir::AffineExpr::Kind::Dim || m.results[d].value != static_cast<int64_t>(d)) return false;
  return true;
}

/// Node kind of what a scalar op computes (ir::ScalarFn, set by the front
/// end from the typed op); false if not modelled.
bool scalar_kind(ir::ScalarFn f, Node::Kind& k) {
  switch (f) {
    case ir::ScalarFn::Add: k = Node::Kind::Add; return true;
    case ir::ScalarFn::Sub: k = Node::Kind::Sub; return true;
    case ir::ScalarFn::Mul: k = Node::Kind::Mul; return true;
    case ir::ScalarFn::Div: k = Node::Kind::Div; return true;
    case ir::ScalarFn::Neg: k = Node::Kind::Neg; return true;
    case ir::ScalarFn::Sqrt: k = Node::Kind::Sqrt; return true;
    case ir::ScalarFn::Convert: k = Node::Kind::Convert; return true;
    default: return false;
  }
}
}  // namespace

std::vector<int> SideTranslator::linalg_generic(const ir::Op& op) {
  if (!op.body) fail(op.loc, "linalg.generic without a body");
  for (auto& it : op.iterators)
    if (it != "parallel") fail(op.loc, "linalg.generic with a reduction iterator is not modelled as an epilogue (only element-wise bodies)");
  for (auto& mp : op.maps)
    if (!identity(mp)) fail(op.loc, "linalg.generic indexing map " + mp.text + " is not the identity: only element-wise bodies are modelled");
  std::vector<int> args(op.body->num_args, -1);
  for (int i = 0; i < op.num_inputs; ++i) args[static_cast<size_t>(i)] = element(op.operands[static_cast<size_t>(i)]);
  // Init block arguments are read only if the body uses them (then element() of the init).
  for (size_t i = static_cast<size_t>(op.num_inputs); i < args.size() && i < op.operands.size(); ++i) {
    bool used = false;
    for (auto& n : op.body->nodes)
      for (int o : n.operands)
        used = used || (o >= 0 && op.body->nodes[static_cast<size_t>(o)].kind == ir::BodyNode::Kind::Arg &&
                        op.body->nodes[static_cast<size_t>(o)].arg == static_cast<int>(i));
    if (used) args[i] = element(op.operands[i]);
  }
  side_.abstractions.insert("linalg.generic body: arith/math ops as IEEE operations rounded to nearest-even "
                            "(fastmath flags are not read)");
  std::vector<int> r = body(*op.body, args, op);
  for (size_t i = 0; i < r.size() && i < op.results.size(); ++i)
    r[i] = p_.convert(r[i], fmt_of(m_.values.at(static_cast<size_t>(op.results[i])).type, op.loc));
  return r;
}

std::vector<int> SideTranslator::body(const ir::Body& b, const std::vector<int>& args, const ir::Op& at) {
  if (!b.unsupported.empty()) {
    std::string list;
    for (auto& u : b.unsupported) list += (list.empty() ? "" : ", ") + u;
    fail(at.loc, "linalg.generic body uses ops without modelled semantics: " + list);
  }
  std::vector<int> val(b.nodes.size(), -1);
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    const ir::BodyNode& n = b.nodes[i];
    if (n.kind == ir::BodyNode::Kind::Arg) {
      val[i] = n.arg >= 0 && static_cast<size_t>(n.arg) < args.size() ? args[static_cast<size_t>(n.arg)] : -1;
      continue;
    }
    Fmt f;
    if (!parse_fmt(n.type, f)) fail(at.loc, "body value of type " + n.type + " is not modelled (f32, bf16)");
    if (n.kind == ir::BodyNode::Kind::Const) {
      val[i] = p_.constant(n.value, f);
      continue;
    }
    Node::Kind k;
    if (!scalar_kind(n.fn, k)) fail(at.loc, "body op " + n.op + " has no modelled semantics");
    std::vector<int> in;
    for (int o : n.operands) {
      if (o < 0 || val[static_cast<size_t>(o)] < 0) fail(at.loc, "body op " + n.op + " reads a value that is not modelled (an unread init?)");
      in.push_back(val[static_cast<size_t>(o)]);
    }
    if (k == Node::Kind::Convert) val[i] = p_.convert(in.at(0), f);
    else if (in.size() == 1) val[i] = p_.op(k, in[0]);
    else val[i] = p_.op(k, in.at(0), in.at(1));
  }
  std::vector<int> out;
  for (int y : b.yields) {
    if (y < 0 || val[static_cast<size_t>(y)] < 0) fail(at.loc, "linalg.yield of a value that is not modelled");
    out.push_back(val[static_cast<size_t>(y)]);
  }
  return out;
}

std::vector<int> SideTranslator::scalar_call(const std::string& callee, const std::vector<int>& args, const ir::Op& at,
                                             Fmt*) {
  const ir::Func* fn = nullptr;
  for (auto& f : m_.funcs)
    if (f.name == callee) fn = &f;
  if (!fn) fail(at.loc, "epilogue @" + callee + " is not a function of this module");
  if (fn->args.size() != args.size())
    fail(fn->loc, "epilogue @" + callee + " must take " + std::to_string(args.size()) + " scalar arguments (W, g, m, v)");
  std::map<int, int> val;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Value& a = m_.values.at(static_cast<size_t>(fn->args[i]));
    val[fn->args[i]] = p_.convert(args[i], fmt_of(a.type, fn->loc));
  }
  for (int id : fn->ops) {
    const ir::Op& op = m_.ops.at(static_cast<size_t>(id));
    auto in = [&](size_t i) {
      auto it = val.find(op.operands.at(i));
      if (it == val.end()) fail(op.loc, op.name + " reads a value that is not modelled");
      return it->second;
    };
    if (op.is_return) {
      std::vector<int> out;
      for (size_t i = 0; i < op.operands.size(); ++i) out.push_back(in(i));
      return out;
    }
    if (op.results.size() != 1) fail(op.loc, "epilogue op " + op.name + " has no modelled semantics");
    Fmt f = fmt_of(m_.values.at(static_cast<size_t>(op.results[0])).type, op.loc);
    Node::Kind k;
    if (op.kind == ir::Op::Kind::Constant) {
      const ir::Attr& v = require(op, "value", "the constant");
      val[op.results[0]] = p_.constant(v.num, f);
    } else if (scalar_kind(op.fn, k)) {
      int r = k == Node::Kind::Convert ? p_.convert(in(0), f)
              : op.operands.size() == 1 ? p_.op(k, in(0))
                                        : p_.op(k, in(0), in(1));
      val[op.results[0]] = r;
    } else {
      fail(op.loc, "epilogue op " + op.name + " has no modelled semantics");
    }
  }
  fail(fn->loc, "epilogue @" + callee + " has no func.return");
}

}  // namespace fusecert::tv
