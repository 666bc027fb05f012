#include "verifier/guards/facts.h"

namespace fusecert::guards {

namespace {

Facts base_facts(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms) {
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
  // the gradient (P2) are decided from it; recognition below is a remark
  // that names the optimizer and its roles when a body is proven.
  if (c.form == ir::Form::Linalg) {
    f.dag = ir::analyze_dag(m, c.func, c.grad);
    // What the consumer updates, by dataflow: every shaped input that does
    // not depend on the gradient may be W or its state (the routing and
    // accumulator guards check them all); a proof below names them.
    if (f.dag->problem.empty())
      for (int k = 0; k < cons.num_inputs && k < static_cast<int>(cons.operands.size()); ++k) {
        const int v = cons.operands[k];
        if (k != c.consumer_operand && m.values[v].type.kind == ir::Type::Kind::Tensor && !m.values[v].type.shape.empty() &&
            !ir::depends_on(m, v, c.grad))
          f.state_values.push_back(v);
      }
  }
  // A linalg.generic reading the gradient directly, as its one use: prove
  // what it computes.
  const bool direct = c.uses.size() == 1 && c.uses[0].first == c.consumer;
  if (!cons.body || c.consumer_operand >= cons.num_inputs || !direct) return f;
  f.recognition = ir::recognize(*cons.body, c.consumer_operand, cons.num_inputs,
                                [&](const std::string& k) { return cons.attr(k); }, timeout_ms);
  const ir::Recognition& rec = *f.recognition;
  if (rec.smt2.empty()) return f;
  f.recognition_answer = smt::solve_smt2(rec.smt2, timeout_ms);
  const smt::CheckResult& r = f.recognition_answer;
  // Proven only when unsat over satisfiable premises (non-vacuous).
  if (r.answer == smt::Answer::Unsat && r.premises && *r.premises == smt::Answer::Sat) {
    f.optimizer = rec.kind;
    f.reference = ir::find_reference(rec.kind);
    f.roles = rec.roles;
    f.outputs = rec.outputs;
    f.state_values.clear();
    for (size_t i = 0; i < rec.roles.size() && i < cons.operands.size(); ++i) {
      if (rec.roles[i] == "v") f.second_moment = true;
      if (rec.roles[i] == "W") f.weight_value = cons.operands[i];
      else if (rec.roles[i] != "g") f.state_values.push_back(cons.operands[i]);
    }
  }
  return f;
}

}  // namespace

Facts compute_facts(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms) {
  Facts f = base_facts(m, c, timeout_ms);
  std::vector<int> held = f.state_values;
  if (f.weight_value >= 0) held.push_back(f.weight_value);
  f.routed = ir::routed_structure(m, c, held);
  return f;
}

}  // namespace fusecert::guards
