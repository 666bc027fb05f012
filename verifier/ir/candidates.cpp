#include "verifier/ir/candidates.h"

#include <algorithm>

namespace fusecert::ir {

std::string to_string(Form f) {
  switch (f) {
    case Form::Linalg: return "linalg";
    case Form::Tessera: return "tessera";
    case Form::Bufferized: return "bufferized";
    case Form::Fused: return "fused";
  }
  return "?";
}

bool is_tessera_optimizer(const std::string& n) {
  return n == "tessera.adamw" || n == "tessera.sgd" || n == "tessera.momentum" || n == "tessera.lion" ||
         n == "tessera.adafactor";
}

bool is_known_tessera(const std::string& n) {
  return is_tessera_optimizer(n) || n == "tessera.matmul" || n == "tessera.add" ||
         n == "tessera.clip_by_global_norm" || n == "tessera.optim.decay" ||
         is_tessera_collective(n) || n.rfind("tessera.training.wgrad_", 0) == 0;
}

bool is_tessera_collective(const std::string& n) { return n == "tessera.all_reduce" || n == "tessera.reduce_scatter"; }

std::vector<KeyProblem> collective_key_problems(const Module& m, const Op& op) {
  std::vector<KeyProblem> out;
  const Attr* red = op.attr("reduction");
  if (!red)
    out.push_back({"reduction", "missing semantic key 'reduction' on " + op.name +
                                    ": fusecert does not assume a default (the element-wise reduction; only \"sum\" "
                                    "is modelled)",
                   true});
  else if (red->kind != Attr::Kind::String || red->text != "sum")
    out.push_back({"reduction", op.name + ": reduction = " + (red->kind == Attr::Kind::String ? "\"" + red->text + "\"" : red->text) +
                                    " is not modelled (only \"sum\")"});
  const Attr* ranks = op.attr("ranks");
  if (!ranks)
    out.push_back({"ranks", "missing semantic key 'ranks' on " + op.name +
                                ": fusecert does not assume a default (the number of ranks R >= 1 the collective "
                                "reduces over)",
                   true});
  else if (ranks->kind != Attr::Kind::Int || ranks->num < 1)
    out.push_back({"ranks", op.name + ": ranks = " +
                                (ranks->kind == Attr::Kind::String ? "\"" + ranks->text + "\"" : ranks->text) +
                                " is not an integer >= 1"});
  if (op.operands.size() != 1 || op.results.size() > 1)
    out.push_back({"", op.name + " takes one operand and returns at most one result (it has " +
                           std::to_string(op.operands.size()) + " operands, " + std::to_string(op.results.size()) +
                           " results)"});
  for (const auto& [k, v] : op.attrs) {
    if (k == "reduction" || k == "ranks") continue;
    if (k == "scatter_dim" && op.name == "tessera.reduce_scatter") {
      if (v.kind != Attr::Kind::Int || v.num < 0)
        out.push_back({k, op.name + ": scatter_dim = " + v.text + " is not an integer >= 0"});
      continue;
    }
    out.push_back({k, op.name + ": attribute '" + k +
                          "' is not a key whose semantics fusecert models (known: reduction, ranks" +
                          std::string(op.name == "tessera.reduce_scatter" ? ", scatter_dim" : "") +
                          "); an unknown key may change what the collective computes, so it is not ignored"});
  }
  // The types must agree with the keys (fail closed: a collective whose
  // shapes contradict its ranks or dimension is not one fusecert can model).
  if (op.operands.size() == 1 && ranks && ranks->kind == Attr::Kind::Int && ranks->num >= 1) {
    const Type& in = m.values[op.operands[0]].type;
    const std::string shape_of = op.name + ": the operand's type " + in.text;
    const bool dynamic = std::any_of(in.shape.begin(), in.shape.end(), [](int64_t d) { return d < 0; });
    if ((in.kind != Type::Kind::Tensor && in.kind != Type::Kind::MemRef) || dynamic) {
      out.push_back({"", shape_of + " is not a ranked tensor or memref of static shape"});
    } else {
      std::vector<int64_t> want = in.shape;
      const Attr* sd = op.attr("scatter_dim");
      const int64_t d = sd && sd->kind == Attr::Kind::Int ? static_cast<int64_t>(sd->num) : 0;
      bool ok = true;
      if (op.name == "tessera.reduce_scatter") {
        if (d < 0 || d >= static_cast<int64_t>(in.shape.size())) {
          out.push_back({"scatter_dim", op.name + ": scatter_dim = " + std::to_string(d) + " is outside " + in.text +
                                            " (rank " + std::to_string(in.shape.size()) + ")"});
          ok = false;
        } else if (in.shape[d] % static_cast<int64_t>(ranks->num) != 0) {
          out.push_back({"ranks", op.name + ": dimension " + std::to_string(d) + " of " + in.text + " (" +
                                      std::to_string(in.shape[d]) + ") is not divisible by ranks = " +
                                      std::to_string(static_cast<long long>(ranks->num)) +
                                      ": fusecert does not model uneven shards"});
          ok = false;
        } else {
          want[d] /= static_cast<int64_t>(ranks->num);
        }
      }
      if (ok && op.results.size() == 1) {
        const Type& r = m.values[op.results[0]].type;
        if (r.shape != want || r.kind != in.kind)
          out.push_back({"", op.name + ": result type " + r.text + " does not match the operand " + in.text +
                                 (op.name == "tessera.reduce_scatter"
                                      ? " with dimension " + std::to_string(d) + " divided by ranks = " +
                                            std::to_string(static_cast<long long>(ranks->num))
                                      : std::string(" (an all-reduce keeps the shape)"))});
      }
    }
  }
  return out;
}

std::vector<int> inputs(const Op& op) {
  if (op.num_inputs < 0) return {};
  return {op.operands.begin(), op.operands.begin() + std::min<size_t>(op.operands.size(), op.num_inputs)};
}
std::vector<int> inits(const Op& op) {
  if (op.num_inputs < 0 || static_cast<size_t>(op.num_inputs) > op.operands.size()) return {};
  return {op.operands.begin() + op.num_inputs, op.operands.end()};
}

namespace {

bool reads_reduction(const AffineExpr& e, const std::vector<std::string>& it) {
  std::vector<int64_t> ds;
  e.dims(ds);
  for (auto d : ds)
    if (d >= 0 && static_cast<size_t>(d) < it.size() && it[d] == "reduction") return true;
  return false;
}

/// A linalg.generic computing C += A·B with A K-major (A: [K, M]).
bool is_kmajor_contraction(const Op& op) {
  if (op.name != "linalg.generic" || !op.body || op.num_inputs != 2 || op.operands.size() != 3) return false;
  if (std::count(op.iterators.begin(), op.iterators.end(), "reduction") < 1) return false;
  const Body& b = *op.body;
  if (b.yields.size() != 1 || b.yields[0] < 0) return false;
  const BodyNode& y = b.nodes[b.yields[0]];
  if (y.op != "arith.addf" || y.operands.size() != 2) return false;
  bool mul = false;
  for (int o : y.operands)
    if (o >= 0 && b.nodes[o].op == "arith.mulf") mul = true;
  if (!mul || op.maps.size() != 3 || op.maps[0].results.empty()) return false;
  // K-major A: its first reduction (K) index comes before its last index that
  // the output also carries (A = [K, M], or [S, K, M] when split).
  std::vector<int64_t> out_dims;
  for (auto& e : op.maps[2].results) e.dims(out_dims);
  int first_k = -1, last_m = -1;
  const auto& a = op.maps[0].results;
  for (size_t r = 0; r < a.size(); ++r) {
    std::vector<int64_t> ds;
    a[r].dims(ds);
    if (first_k < 0 && reads_reduction(a[r], op.iterators)) first_k = static_cast<int>(r);
    for (auto d : ds)
      if (std::find(out_dims.begin(), out_dims.end(), d) != out_dims.end() && op.iterators[d] == "parallel")
        last_m = static_cast<int>(r);
  }
  return first_k >= 0 && last_m > first_k;
}

/// A generic that only sums its single input over reduction dims (split-K's
/// second stage).
bool is_sum_reduction(const Op& op) {
  if (op.name != "linalg.generic" || !op.body || op.num_inputs != 1) return false;
  if (std::count(op.iterators.begin(), op.iterators.end(), "reduction") < 1) return false;
  const Body& b = *op.body;
  return b.yields.size() == 1 && b.yields[0] >= 0 && b.nodes[b.yields[0]].op == "arith.addf";
}

bool is_wgrad_producer(const Module& m, const Op& op) {
  if (op.name == "linalg.matmul_transpose_a") return true;
  if (op.name == "linalg.matmul" && !op.operands.empty()) {
    int d = m.values[op.operands[0]].def_op;
    return d >= 0 && m.ops[d].name == "linalg.transpose";
  }
  if (op.name == "linalg.generic") return is_kmajor_contraction(op);
  if (op.name == "tessera.matmul") {
    const Attr* t = op.attr("transposeA");
    return t && t->kind == Attr::Kind::Bool && t->num != 0;
  }
  return false;
}

std::vector<std::pair<int, int>> uses_of(const Module& m, int v, int producer) {
  std::vector<std::pair<int, int>> out;
  for (auto& u : m.values[v].uses) {
    if (u.first == producer) continue;
    if (m.ops[u.first].index < m.ops[producer].index) continue;  // e.g. the zero fill of the gradient buffer
    const std::string& n = m.ops[u.first].name;
    if (n == "memref.dealloc") continue;
    out.push_back(u);
  }
  return out;
}

bool may_be_optimizer(const Op& op) { return is_tessera_optimizer(op.name) || op.name == "linalg.generic"; }

/// Follows single-result element-wise users (add, clip) to an optimizer.
int find_downstream(const Module& m, int op_id, int depth = 0) {
  if (depth > 4) return -1;
  const Op& op = m.ops[op_id];
  for (int r : op.results)
    for (auto& u : m.values[r].uses) {
      if (may_be_optimizer(m.ops[u.first])) return u.first;
      int d = find_downstream(m, u.first, depth + 1);
      if (d >= 0) return d;
    }
  return -1;
}

}  // namespace

std::vector<Candidate> find_candidates(const Module& m, std::vector<Candidate>* no_optimizer) {
  std::vector<Candidate> out;
  for (const Func& f : m.funcs)
    for (int id : f.ops) {
      const Op& op = m.ops[id];
      Candidate c;
      c.func = op.func;
      c.producer = id;
      if (op.name.rfind("tessera.training.wgrad_", 0) == 0) {
        c.form = Form::Fused;
        c.consumer = id;
        out.push_back(c);
        continue;
      }
      if (!is_wgrad_producer(m, op)) continue;
      c.form = op.dialect() == "tessera" ? Form::Tessera : Form::Linalg;
      if (!op.results.empty()) {
        c.result_no = 0;
        c.grad = op.results[0];
      } else {
        auto in = inits(op);
        if (in.empty()) continue;
        c.form = Form::Bufferized;
        c.grad = in[0];
        c.result_no = static_cast<int>(op.operands.size() - in.size());
      }
      c.uses = uses_of(m, c.grad, id);
      // split-K in linalg form: partial products over a split dimension, then
      // a sum over it. The sum's result is the gradient.
      if (c.form == Form::Linalg && c.uses.size() == 1 && is_sum_reduction(m.ops[c.uses[0].first]) &&
          m.values[c.grad].type.shape.size() == 3) {
        c.split_reduce = c.uses[0].first;
        c.grad = m.ops[c.split_reduce].results.at(0);
        c.uses = uses_of(m, c.grad, c.split_reduce);
      }
      if (c.uses.size() == 1 && may_be_optimizer(m.ops[c.uses[0].first])) {
        c.consumer = c.uses[0].first;
        c.consumer_operand = c.uses[0].second;
      } else {
        for (auto& u : c.uses) {
          if (may_be_optimizer(m.ops[u.first])) { c.downstream = u.first; break; }
          int d = find_downstream(m, u.first);
          if (d >= 0) { c.downstream = d; break; }
        }
      }
      // A weight gradient that reaches no optimizer (returned, stored, or
      // unused) offers nothing to fuse: not a candidate, and not an alarm.
      if (c.consumer < 0 && c.downstream < 0) {
        if (no_optimizer) no_optimizer->push_back(c);
        continue;
      }
      out.push_back(c);
    }
  return out;
}

std::vector<diag::Diagnostic> unknown_ops(const Module& m) {
  std::vector<diag::Diagnostic> out;
  for (const Op& op : m.ops) {
    if (op.registered) continue;
    if (op.dialect() == "tessera" && is_known_tessera(op.name)) continue;
    out.push_back(diag::error(op.loc, "input.unknown_op",
                              "unknown op '" + op.name + "': fusecert has no semantics for it (it may read or write "
                              "any buffer), so no candidate in this module can be certified"));
  }
  return out;
}

std::vector<diag::Diagnostic> unknown_op_diags(const Module& m, const std::vector<Candidate>& cands,
                                        const std::vector<Candidate>& no_optimizer) {
  std::vector<diag::Diagnostic> out = unknown_ops(m);
  if (!cands.empty() || out.empty()) return out;
  // No candidate: an unknown op matters only where a candidate may hide.
  std::vector<bool> near(m.ops.size(), false);
  // Forward from every weight gradient that reached no known optimizer: an
  // unknown op it reaches may be that optimizer.
  std::vector<int> work;
  std::vector<bool> seen(m.values.size(), false);
  for (const auto& c : no_optimizer)
    if (c.grad >= 0) work.push_back(c.grad);
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    for (const auto& u : m.values[v].uses) {
      near[u.first] = true;
      for (int r : m.ops[u.first].results) work.push_back(r);
    }
  }
  // Backward from the gradient operand of every optimizer a table knows: an
  // unknown op that computes it may be a weight-gradient producer.
  std::fill(seen.begin(), seen.end(), false);
  for (const Op& op : m.ops)
    if (is_tessera_optimizer(op.name) && op.operands.size() > 1) work.push_back(op.operands[1]);
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    int d = m.values[v].def_op;
    if (d < 0) continue;
    near[d] = true;
    for (int o : m.ops[d].operands) work.push_back(o);
  }
  std::vector<int> unknown;
  for (const Op& op : m.ops)
    if (!op.registered && !(op.dialect() == "tessera" && is_known_tessera(op.name))) unknown.push_back(op.id);
  for (size_t i = 0; i < out.size() && i < unknown.size(); ++i) {
    if (near[unknown[i]]) continue;
    out[i].severity = diag::Severity::Remark;
    out[i].message = "unknown op '" + m.ops[unknown[i]].name +
                     "': fusecert has no semantics for it; no weight gradient reaches it and it feeds no optimizer's "
                     "gradient, so it is off every candidate's slice (the module has no candidate)";
  }
  return out;
}

std::vector<diag::Diagnostic> collective_key_diags(const Module& m, const std::vector<int>& reported) {
  std::vector<diag::Diagnostic> out;
  for (const Op& op : m.ops) {
    if (!is_tessera_collective(op.name) || std::find(reported.begin(), reported.end(), op.id) != reported.end()) continue;
    for (auto& p : collective_key_problems(m, op))
      out.push_back(diag::error(op.loc, "input.collective",
                                p.message + "; fusecert has no semantics for this collective, so no candidate in "
                                            "this module can be certified"));
  }
  return out;
}

}  // namespace fusecert::ir
