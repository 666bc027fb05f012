#include "verifier/guards/facts.h"

#include <algorithm>
#include <set>

namespace fusecert::guards {

namespace {

Facts base_facts(const ir::Module& m, const ir::Candidate& c) {
  Facts f;
  const ir::DialectTables& tables = ir::dialects();
  f.producer_spec = tables.find(m.ops[c.producer].name);
  if (c.form == ir::Form::Dag) {
    // The consumer is the DAG to the step's results; W is the argument the
    // step returns as W + u. No optimizer is named: legality is the DAG's
    // dependence, never a recognised update.
    f.dag = ir::analyze_dag(m, c.func, c.grad);
    f.weight_value = f.dag->weight;
    if (c.consumer >= 0) f.consumer_spec = tables.find(m.ops[c.consumer].name);
    return f;
  }
  if (c.consumer < 0) return f;
  const ir::Op& cons = m.ops[c.consumer];
  f.consumer_spec = tables.find(cons.name);
  const ir::OpSpec* spec = f.consumer_spec;
  if (spec && (spec->role == ir::OpRole::Fused || spec->role == ir::OpRole::Optimizer)) {
    // A fused op is judged by its epilogue's reference body; an optimizer op
    // by its declared name. Operand roles come from the table entry; extra
    // operands an optimizer's entry does not list count as state (they may
    // be, and state is what the guards check).
    const ir::DialectTable* table = tables.table_of(cons.name);
    f.optimizer = spec->role == ir::OpRole::Fused ? spec->body
                                                  : spec->name.substr(table ? table->dialect.size() + 1 : 0);
    f.reference = spec->body.empty() ? nullptr : ir::find_reference(spec->body);
    f.opaque = !f.reference;
    for (size_t i = 0; i < cons.operands.size(); ++i) {
      const std::string role = i < spec->operands.size() ? spec->operands[i] : "";
      if (role == "v") f.second_moment = true;
      if (role == "W") f.weight_value = cons.operands[i];
      else if (role == "m" || role == "v" || role == "B" ||
               (spec->role == ir::OpRole::Optimizer && role != "g"))
        f.state_values.push_back(cons.operands[i]);
    }
    return f;
  }
  // Linalg on tensors: the consumer is the slice of element-wise ops from
  // the gradient to the step's results, analysed by dependence as the DAG
  // form's is (verifier/ir/dependence.h, linalg ops through their indexing
  // maps and scalar bodies). Single use, locality (P9) and a norm scaling
  // the gradient (P2) are decided from it, never from a recognised name.
  if (c.form == ir::Form::Linalg) {
    f.dag = ir::analyze_dag(m, c.func, c.grad);
    // What the consumer updates, by dataflow: every shaped input that does
    // not depend on the gradient may be W or its state (the routing and
    // accumulator guards check them all); W itself when the slice shows it
    // (a function argument the step returns as W + u).
    if (!f.dag->problem.empty() && cons.kind == ir::Op::Kind::Generic && cons.body && c.uses.size() == 1 &&
        c.uses[0].first == c.consumer && c.consumer_operand >= 0 && c.consumer_operand < cons.num_inputs) {
      // Where the analysis stopped: a collective taking a result of the consumer.
      for (int r : cons.results)
        for (const auto& u : m.values[r].uses) {
          const ir::Op& op = m.ops[u.first];
          const ir::OpSpec* s = tables.find(op.name);
          if (s && s->role == ir::OpRole::Collective && op.loc.line == f.dag->problem_loc.line &&
              op.loc.col == f.dag->problem_loc.col)
            f.reduced_outputs = true;
        }
    }
    if (f.dag->problem.empty() || f.reduced_outputs)
      for (int k = 0; k < cons.num_inputs && k < static_cast<int>(cons.operands.size()); ++k) {
        const int v = cons.operands[k];
        if (k == c.consumer_operand || m.values[v].type.kind != ir::Type::Kind::Tensor ||
            m.values[v].type.shape.empty() || ir::depends_on(m, v, c.grad))
          continue;
        if (v == f.dag->weight) f.weight_value = v;
        else f.state_values.push_back(v);
      }
    return f;
  }
  // Any other linalg.generic consumer (bufferized): every shaped input but
  // the gradient may be W or its state, by dataflow as above.
  if (cons.kind == ir::Op::Kind::Generic)
    for (int k = 0; k < cons.num_inputs && k < static_cast<int>(cons.operands.size()); ++k) {
      const int v = cons.operands[k];
      const auto kind = m.values[v].type.kind;
      if (k != c.consumer_operand && v != c.grad && !m.values[v].type.shape.empty() &&
          (kind == ir::Type::Kind::Tensor || kind == ir::Type::Kind::MemRef) && !ir::depends_on(m, v, c.grad))
        f.state_values.push_back(v);
    }
  return f;
}

/// Facts::stating_ops: the consumer, then each op of its function that reads
/// a value computed from the gradient, by a forward walk in program order.
std::vector<int> stating_ops(const ir::Module& m, const ir::Candidate& c) {
  if (c.consumer < 0) return {};
  std::vector<int> ops{c.consumer};
  std::set<int> reach;
  if (c.grad >= 0) reach.insert(c.grad);
  auto take = [&](const ir::Op& op) {
    reach.insert(op.results.begin(), op.results.end());
    for (int k = std::max(op.num_inputs, 0); op.num_inputs >= 0 && k < static_cast<int>(op.operands.size()); ++k)
      if (m.values[op.operands[k]].type.kind == ir::Type::Kind::MemRef) reach.insert(op.operands[k]);
  };
  take(m.ops[c.consumer]);
  for (int id : m.funcs[c.func].ops) {
    const ir::Op& op = m.ops[id];
    if (id == c.consumer || id == c.producer || op.is_return) continue;
    if (std::none_of(op.operands.begin(), op.operands.end(), [&](int v) { return reach.count(v) > 0; })) continue;
    ops.push_back(id);
    take(op);
  }
  return ops;
}

}  // namespace

Facts compute_facts(const ir::Module& m, const ir::Candidate& c) {
  Facts f = base_facts(m, c);
  std::vector<int> held = f.state_values;
  if (f.weight_value >= 0) held.push_back(f.weight_value);
  f.routed = ir::routed_structure(m, c, held);
  f.stating_ops = stating_ops(m, c);
  return f;
}

}  // namespace fusecert::guards
