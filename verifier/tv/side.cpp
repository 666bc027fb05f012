#include "verifier/tv/side.h"

#include "verifier/model/hyper.h"

#include <algorithm>

namespace fusecert::tv {

Fmt SideTranslator::fmt_of(const ir::Type& t, const ir::Loc& loc) const {
  Fmt f;
  if (!parse_fmt(t.elem, f))
    fail(loc, "element type '" + t.text + "' is not modelled (fusecert validate encodes f32 and bf16)");
  return f;
}

const ir::Attr& SideTranslator::require(const ir::Op& op, const std::string& key, const std::string& meaning) const {
  const ir::Attr* a = op.attr(key);
  if (!a) fail(op.loc, op.name + " lacks the semantic key '" + key + "' (" + meaning + "); no default is assumed");
  return *a;
}

double SideTranslator::number(const ir::Op& op, const std::string& key, const std::string& meaning) const {
  const ir::Attr& a = require(op, key, meaning);
  if (a.kind != ir::Attr::Kind::Float && a.kind != ir::Attr::Kind::Int)
    fail(op.loc, op.name + ": '" + key + "' must be a number, got " + a.text);
  if (auto bad = model::hyper_value_problem(key, a.num)) fail(op.loc, op.name + ": " + *bad + " (" + a.text + ")");
  return a.num;
}

int SideTranslator::k_for(int k_module, const ir::Op& at) {
  if (side_.k_module >= 0 && k_module >= 0 && side_.k_module != k_module)
    fail(at.loc, "two contractions with different K (" + std::to_string(side_.k_module) + " and " +
                     std::to_string(k_module) + ") in one function are not modelled");
  if (k_module >= 0) side_.k_module = k_module;
  int k = k_module > 0 ? std::min(k_module, opt_.k_bound) : opt_.k_bound;
  side_.k_used = k;
  if (k_module < 0 || k_module > k)
    side_.abstractions.insert("bounded K: every reduction is unrolled to K = " + std::to_string(k) +
                              (k_module > 0 ? " of the module's K = " + std::to_string(k_module) : " (dynamic K)") +
                              "; equivalence is proven for that K only");
  return k;
}

std::vector<int> SideTranslator::k_operand(int v, bool k_major, char other, const ir::Op& at, int k) {
  const ir::Value& val = m_.values.at(static_cast<size_t>(v));
  if (val.def_op >= 0)
    fail(at.loc, "contraction operand defined by " + m_.ops[val.def_op].name +
                     " is not modelled: the operands of the K reduction must be function arguments");
  Fmt f = fmt_of(val.type, at.loc);
  std::string base = "arg" + std::to_string(val.arg_no) + "_" + (k_major ? std::string("k") + other : std::string(1, other) + "k");
  std::vector<int> out;
  for (int i = 0; i < k; ++i) out.push_back(p_.var(base + "_k" + std::to_string(i), f));
  return out;
}

int SideTranslator::contraction(const ir::Op& op, int a, int b, bool transpose_a, Fmt accum, int init, int splits) {
  const ir::Type& ta = m_.values.at(static_cast<size_t>(a)).type;
  int km = -1;
  if (ta.shape.size() == 2) km = static_cast<int>(transpose_a ? ta.shape[0] : ta.shape[1]);
  const int K = k_for(km > 0 ? km : -1, op);
  std::vector<int> xs = k_operand(a, transpose_a, 'i', op, K), ys = k_operand(b, true, 'j', op, K);
  auto prod = [&](int k) {
    return p_.op(Node::Kind::Mul, p_.convert(xs[static_cast<size_t>(k)], accum), p_.convert(ys[static_cast<size_t>(k)], accum));
  };
  side_.contraction_ops.push_back(op.id);
  if (splits <= 1) {
    int acc = init;
    for (int k = 0; k < K; ++k) acc = p_.op(Node::Kind::Add, acc, prod(k));
    return acc;
  }
  if (K % splits != 0)
    fail(op.loc, "split_k = " + std::to_string(splits) + " does not divide the unrolled K = " + std::to_string(K) +
                     " (choose --k as a multiple of it)");
  const int chunk = K / splits;
  int total = init;
  for (int s = 0; s < K; s += chunk) {
    int part = p_.constant(0.0, accum);
    for (int k = s; k < s + chunk; ++k) part = p_.op(Node::Kind::Add, part, prod(k));
    total = p_.op(Node::Kind::Add, total, part);
  }
  return total;
}

std::vector<int> SideTranslator::results_of(const ir::Op& op) {
  if (auto it = op_results_.find(op.id); it != op_results_.end()) return it->second;
  if (!in_progress_.insert(op.id).second) fail(op.loc, "cyclic use-def chain");
  std::vector<int> r;
  const std::string& n = op.name;
  if (const ir::OpSpec* spec = ir::spec_of(op)) {
    switch (spec->role) {
      case ir::OpRole::Contraction: r = table_contraction(op, *spec); break;
      case ir::OpRole::Optimizer: r = table_optimizer(op, *spec); break;
      case ir::OpRole::Fused: r = table_fused(op, *spec); break;
      default:
        fail(op.loc, "no semantics for '" + n + "': fusecert validate models the table roles contraction, "
                                               "optimizer and fused; its entry gives the role " + ir::to_string(spec->role));
    }
  } else if (op.kind == ir::Op::Kind::Matmul || op.kind == ir::Op::Kind::MatmulTransposeA) {
    r = linalg_matmul(op);
  } else if (op.kind == ir::Op::Kind::Fill) {
    r = linalg_fill(op);
  } else if (op.kind == ir::Op::Kind::Generic) {
    r = linalg_generic(op);
  } else if (op.kind == ir::Op::Kind::Constant) {
    const ir::Attr& v = require(op, "value", "the constant");
    if (v.kind != ir::Attr::Kind::Float) fail(op.loc, "only scalar float constants are modelled");
    r = {p_.constant(v.num, fmt_of(m_.values.at(static_cast<size_t>(op.results.at(0))).type, op.loc))};
  } else {
    fail(op.loc, "no semantics for '" + n +
                     "': fusecert validate models the contraction, adamw optimizer and fused ops of a dialect table "
                     "(tessera.matmul, tessera.adamw, tessera.training.wgrad_adamw, or a --dialect table's), "
                     "linalg.matmul[_transpose_a], linalg.fill, element-wise linalg.generic and arith.constant");
  }
  side_.summary.push_back(n + " (" + op.loc.str() + ")");
  in_progress_.erase(op.id);
  op_results_[op.id] = r;
  return r;
}

int SideTranslator::element(int v) {
  const ir::Value& val = m_.values.at(static_cast<size_t>(v));
  if (val.def_op < 0) {
    ir::Loc loc = val.loc.file.empty() ? m_.funcs.at(static_cast<size_t>(func_)).loc : val.loc;
    return p_.var("arg" + std::to_string(val.arg_no) + "_ij", fmt_of(val.type, loc));
  }
  const ir::Op& op = m_.ops.at(static_cast<size_t>(val.def_op));
  std::vector<int> r = results_of(op);
  if (val.result_no < 0 || static_cast<size_t>(val.result_no) >= r.size())
    fail(op.loc, op.name + ": result #" + std::to_string(val.result_no) + " has no modelled semantics");
  return r[static_cast<size_t>(val.result_no)];
}

Side SideTranslator::run() {
  const ir::Func& f = m_.funcs.at(static_cast<size_t>(func_));
  const ir::Op* ret = nullptr;
  for (int id : f.ops)
    if (m_.ops[static_cast<size_t>(id)].is_return) ret = &m_.ops[static_cast<size_t>(id)];
  if (!ret) fail(f.loc, "@" + f.name + " has no func.return");
  for (size_t r = 0; r < ret->operands.size(); ++r) {
    int v = ret->operands[r];
    const ir::Value& val = m_.values.at(static_cast<size_t>(v));
    side_.outputs.push_back(element(v));
    side_.output_fmts.push_back(fmt_of(val.type, ret->loc));
    std::string what = val.def_op >= 0 ? m_.ops[static_cast<size_t>(val.def_op)].name + " #" + std::to_string(val.result_no)
                                        : "argument " + std::to_string(val.arg_no);
    side_.output_names.push_back("result " + std::to_string(r) + " (" + what + ")");
  }
  return side_;
}

}  // namespace fusecert::tv
