// P5 guard, routing: `routing` must be declared; "conditional" (MoE experts
// that receive no gradient on some steps) is rejected unless a gradient-free
// decay pass (tessera.optim.decay) covers the same optimizer state. The SMT
// obligation compares the β-folded fused update with the correct per-step
// update over the reals on a routed-or-not step.
#include <algorithm>

#include <map>
#include <optional>

#include "verifier/guards/assumptions.h"
#include "verifier/guards/guards.h"
#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/recognize.h"

namespace fusecert::guards {

namespace {

/// SMT-LIB2 (QF_NRA): ∃ state, gradient, β ∈ (0,1), routed ∈ Bool: the fused
/// update (runs only on routed steps, plus the decay pass on unrouted steps if
/// `decay_pass`) differs from the correct update (decays every step).
std::string folded_query(bool decay_pass, bool second_moment) {
  z3::context ctx;
  smt::Query q(ctx);
  z3::expr b1 = ctx.real_const("beta1"), b2 = ctx.real_const("beta2"), m0 = ctx.real_const("m0"),
           v0 = ctx.real_const("v0"), g = ctx.real_const("g"), routed = ctx.bool_const("routed");
  q.add(b1 > 0 && b1 < 1 && b2 > 0 && b2 < 1 && v0 >= 0);
  z3::expr gr = z3::ite(routed, g, ctx.real_val(0));  // the gradient an unrouted expert sees is 0
  z3::expr m_correct = b1 * m0 + (1 - b1) * gr;
  z3::expr m_fused = z3::ite(routed, b1 * m0 + (1 - b1) * g, decay_pass ? b1 * m0 : m0);
  z3::expr differ = m_correct != m_fused;
  if (second_moment) {
    z3::expr v_correct = b2 * v0 + (1 - b2) * gr * gr;
    z3::expr v_fused = z3::ite(routed, b2 * v0 + (1 - b2) * g * g, decay_pass ? b2 * v0 : v0);
    differ = differ || v_correct != v_fused;
  }
  q.add(differ);
  return q.smt2();
}

/// A gradient-free pass of linalg ops over the values the consumer holds:
/// a linalg.generic, other than the consumer, that does not read the
/// gradient, takes every one of `held` as an input and yields as many
/// values as the consumer, of the same types (found by dataflow over the
/// same values, never by name).
const ir::Op* linalg_pass(const GuardContext& g, const ir::Op& cons, const std::vector<int>& held) {
  if (cons.kind != ir::Op::Kind::Generic || !cons.body || held.empty()) return nullptr;
  for (int id : g.m.funcs[g.c.func].ops) {
    const ir::Op& op = g.m.ops[id];
    if (op.id == cons.id || op.kind != ir::Op::Kind::Generic || !op.body || op.results.size() != cons.results.size())
      continue;
    const auto in = ir::inputs(op);
    bool ok = std::all_of(held.begin(), held.end(),
                          [&](int v) { return std::find(in.begin(), in.end(), v) != in.end(); });
    for (int v : op.operands) ok = ok && (g.c.grad < 0 || !ir::depends_on(g.m, v, g.c.grad));
    for (size_t r = 0; ok && r < op.results.size(); ++r)
      ok = g.m.values[op.results[r]].type.text == g.m.values[cons.results[r]].type.text;
    if (ok) return &op;
  }
  return nullptr;
}

/// SMT-LIB2 (QF_NRA): ∃ inputs such that some result of `pass` differs from
/// the same result of the consumer's body at g = 0. Each input the two read
/// is one variable; the gradient is 0; every other block argument is its
/// own variable. unsat: the pass is the body at g = 0 over the reals (where
/// −0 and +0 are one value: β·m + (1−β)·0 and β·m are equal). nullopt when a
/// body uses an op the real-number translation does not model.
std::optional<std::string> zero_grad_query(const GuardContext& g, const ir::Op& cons, const ir::Op& pass) {
  z3::context ctx;
  smt::RealArith ra(ctx, {});
  std::map<int, z3::expr> var;  // value id -> its variable
  auto of = [&](int v) {
    auto it = var.find(v);
    if (it == var.end()) it = var.emplace(v, ctx.real_const(("x" + std::to_string(v)).c_str())).first;
    return it->second;
  };
  std::vector<z3::expr> ca, pa;
  for (size_t k = 0; k < cons.body->num_args; ++k)
    ca.push_back(static_cast<int>(k) == g.c.consumer_operand ? ctx.real_val(0)
                 : k < cons.operands.size() && static_cast<int>(k) < cons.num_inputs
                     ? of(cons.operands[k])
                     : ctx.real_const(("consumer_out" + std::to_string(k)).c_str()));
  for (size_t k = 0; k < pass.body->num_args; ++k)
    pa.push_back(k < pass.operands.size() && static_cast<int>(k) < pass.num_inputs
                     ? of(pass.operands[k])
                     : ctx.real_const(("pass_out" + std::to_string(k)).c_str()));
  auto co = ir::eval_body_reals(ra, *cons.body, ca);
  auto po = ir::eval_body_reals(ra, *pass.body, pa);
  if (!co || !po || co->size() != po->size()) return std::nullopt;
  smt::Query q(ctx);
  for (const auto& e : ra.side()) q.add(e);
  z3::expr differ = ctx.bool_val(false);
  for (size_t i = 0; i < co->size(); ++i) differ = differ || (*co)[i] != (*po)[i];
  q.add(differ);
  return q.smt2();
}

/// SMT-LIB2 (QF_NRA): ∃ inputs such that the consumer's body at g = 0
/// gives a result other than the one value `w` it updates (the consumer
/// has one result and holds one value: W, proven or not). unsat: an
/// unrouted step that runs no pass is the body at g = 0 (W − lr·0 = W).
/// nullopt when a body op is not modelled.
std::optional<std::string> unchanged_query(const GuardContext& g, const ir::Op& cons, int w) {
  const int wr = 0;
  if (!cons.body || w < 0 || cons.results.size() != 1) return std::nullopt;
  z3::context ctx;
  smt::RealArith ra(ctx, {});
  std::map<int, z3::expr> var;
  auto of = [&](int v) {
    auto it = var.find(v);
    if (it == var.end()) it = var.emplace(v, ctx.real_const(("x" + std::to_string(v)).c_str())).first;
    return it->second;
  };
  std::vector<z3::expr> args;
  for (size_t k = 0; k < cons.body->num_args; ++k)
    args.push_back(static_cast<int>(k) == g.c.consumer_operand ? ctx.real_val(0)
                   : k < cons.operands.size() && static_cast<int>(k) < cons.num_inputs
                       ? of(cons.operands[k])
                       : ctx.real_const(("consumer_out" + std::to_string(k)).c_str()));
  auto out = ir::eval_body_reals(ra, *cons.body, args);
  if (!out || static_cast<size_t>(wr) >= out->size()) return std::nullopt;
  smt::Query q(ctx);
  for (const auto& e : ra.side()) q.add(e);
  q.add((*out)[wr] != of(w));
  return q.smt2();
}

}  // namespace

void guard_routing(GuardContext& g) {
  if (g.c.form == ir::Form::Dag) {
    // The step is the whole function: the producer contracts the whole token
    // axis of its operands (no expert index, no gather: such an op has no
    // table entry and is an input error on the slice), and the DAG computes
    // every result on every call.
    if (!g.facts.dag->problem.empty()) return;
    if (g.facts.routed) {
      // Per expert by the IR's structure: an unrouted step is not shown by a
      // DAG consumer (no state operands, no pass), so it is not decided.
      g.structural("P5.routing",
                   "every step applies the state decay the reference update applies (dense routing, or a "
                   "gradient-free decay pass covering the same state)",
                   "missing", "conditional by structure: " + g.facts.routed->what);
      g.error("P5", "P5.routing", g.m.ops[g.facts.routed->op].loc,
              "cannot decide the unrouted steps of this weight gradient: " + g.facts.routed->what +
                  ", so its routing is conditional whatever is stated or assumed, and fusecert does not check the "
                  "unrouted steps of a DAG consumer")
          .notes.push_back(g.producer_note("weight-gradient producer here"));
      return;
    }
    g.structural("P5.routing",
                 "every step applies the state decay the reference update applies (dense routing, or a "
                 "gradient-free decay pass covering the same state)",
                 "holds",
                 "dense: " + g.producer().name + " at " + g.producer().loc.str() +
                     " contracts the whole token axis of its operands, and the step's results are computed from it "
                     "on every call");
    return;
  }
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  const std::string id = "P5.routing";
  const std::string claim = "every step applies the state decay the reference update applies (dense routing, or a "
                            "gradient-free decay pass covering the same state)";
  const std::string k_routing = ir::key_of(*cons, "routing");
  // Structure beats both: a grouped or expert-indexed weight gradient is
  // conditional whatever the attribute or the assumption says (issue #16).
  ir::Attr by_structure;
  by_structure.kind = ir::Attr::Kind::String;
  by_structure.text = "conditional";
  const ir::Attr* a = nullptr;
  if (g.facts.routed) {
    const ir::Attr* stated = cons->attr(k_routing);
    const ir::Attr* told = stated ? nullptr : assumed("routing");
    const ir::Attr* said = stated ? stated : told;
    const ir::Loc at = g.m.ops[g.facts.routed->op].loc;
    if (said && !(said->kind == ir::Attr::Kind::String && said->text == "conditional")) {
      auto& w = g.warning("P5", id, cons->loc,
                          std::string(stated ? k_routing + " = " + said->text + " on " + cons->name
                                             : "the assumption routing = \"" + said->text + "\" (--assume)") +
                              " is overridden by the IR's structure: " + g.facts.routed->what +
                              ", so routing is conditional whatever is stated or assumed");
      w.notes.push_back({at, "the structure that makes the routing conditional is here"});
    } else {
      g.remark("P5", id, at, "routing is conditional by the IR's structure: " + g.facts.routed->what);
    }
    a = &by_structure;
  } else {
    a = g.fact(*cons, k_routing, "routing", "P5", id, "\"dense\" or \"conditional\"");
  }
  if (!a) return;
  if (a->kind != ir::Attr::Kind::String || (a->text != "dense" && a->text != "conditional")) {
    g.structural(id, claim, "missing", k_routing + " = " + a->text + " is not dense or conditional");
    g.error("P5", id, cons->loc, k_routing + " = " + a->text + " is not one of \"dense\", \"conditional\"");
    return;
  }
  const bool second = g.facts.second_moment;
  if (a->text == "dense") {
    g.structural(id, claim, "holds", k_routing + " = \"dense\" on " + cons->name + ": every step carries a gradient");
    return;
  }
  // What an unrouted step must do (the team's reference): shown by an
  // `unrouted` attribute or assumed; neither is inconclusive.
  const ir::Attr* ref = g.fact(*cons, "unrouted", "unrouted", "P5", id,
                               "the reference semantics of an unrouted step: \"dense_zero_grad\" (the body at g = 0: m, v "
                               "decay, W moves) or \"skip\" (nothing changes)");
  if (!ref) return;
  if (ref->kind != ir::Attr::Kind::String || (ref->text != "dense_zero_grad" && ref->text != "skip")) {
    g.structural(id, claim, "missing", "unrouted = " + ref->text + " is not dense_zero_grad or skip");
    g.error("P5", id, cons->loc, "unrouted = " + ref->text + " is not one of \"dense_zero_grad\", \"skip\"");
    return;
  }
  if (ref->text == "skip") {
    // Nothing may change on an unrouted step: any op other than the consumer
    // that takes W or its state and gives a value of its type is a pass that
    // changes them (found by dataflow over the same values, not by name).
    std::vector<int> held = g.facts.state_values;
    if (g.facts.weight_value >= 0) held.push_back(g.facts.weight_value);
    const ir::Op* writer = nullptr;
    for (int id2 : g.m.funcs[g.c.func].ops) {
      const ir::Op& op = g.m.ops[id2];
      if (&op == cons || id2 == g.c.producer) continue;
      for (int v : held) {
        if (std::find(op.operands.begin(), op.operands.end(), v) == op.operands.end()) continue;
        for (int r : op.results)
          if (g.m.values[r].type.text == g.m.values[v].type.text) writer = &op;
      }
      if (writer) break;
    }
    if (!writer) {
      g.structural(id, claim, "holds",
                   k_routing + " = \"conditional\", unrouted = \"skip\": no op but " + cons->name +
                       " changes W or its state, so an unrouted step changes nothing");
      return;
    }
    g.structural(id, claim, "violated",
                 "unrouted = \"skip\" but " + writer->name + " at " + writer->loc.str() +
                     " computes a new value of W or its state outside the routed update");
    auto& d = g.error("P5", id, writer->loc,
                      "cannot fuse " + cons->name + " into the weight-gradient epilogue: under unrouted = \"skip\" an "
                      "unrouted step changes nothing, and this op updates W or its state on such steps");
    d.notes.push_back(g.producer_note("weight-gradient producer here; legal under unrouted = \"skip\" without a pass "
                                      "over the state on unrouted steps"));
    return;
  }
  // dense_zero_grad: the decay pass this dialect has (a table entry of role decay), to name
  // in the notes; and a decay op over the same state values.
  const ir::DialectTable* table = ir::table_of(*cons);
  const ir::OpSpec* pass = table ? table->first_of(ir::OpRole::Decay) : nullptr;
  if (!pass) pass = ir::table_of(g.producer()) ? ir::table_of(g.producer())->first_of(ir::OpRole::Decay) : nullptr;
  for (const auto& t : ir::dialects().tables())  // an IR no table lists: any decay pass a table has
    if (!pass) pass = t.first_of(ir::OpRole::Decay);
  const std::string pass_name = pass ? pass->name : "a decay op";
  const ir::Op* decay = nullptr;
  for (int id2 : g.m.funcs[g.c.func].ops) {
    const ir::Op& op = g.m.ops[id2];
    const ir::OpSpec* spec = ir::spec_of(op);
    if (!spec || spec->role != ir::OpRole::Decay) continue;
    // At g = 0 the reference body still moves W (m_hat, decoupled weight
    // decay), so the pass must take W as well as the state: a pass over m
    // and v alone leaves W where the reference moves it.
    std::vector<int> held = g.facts.state_values;
    if (g.facts.weight_value >= 0) held.push_back(g.facts.weight_value);
    bool covers = std::all_of(held.begin(), held.end(), [&](int v) {
      return std::find(op.operands.begin(), op.operands.end(), v) != op.operands.end();
    });
    if (covers) { decay = &op; break; }
  }
  if (!decay) {
    std::vector<int> held = g.facts.state_values;
    if (g.facts.weight_value >= 0) held.push_back(g.facts.weight_value);
    if (const ir::Op* pass = linalg_pass(g, *cons, held)) {
      // The pass must equal the consumer's body at g = 0, proven over both
      // bodies (the team's reference for an unrouted step), not assumed
      // from its shape.
      const std::string pclaim = "the gradient-free pass " + pass->name + " at " + pass->loc.str() +
                                 " computes the consumer's body at g = 0 (every result, over the reals)";
      const auto q = zero_grad_query(g, *cons, *pass);
      if (!q) {
        g.structural(id, claim, "missing",
                     "the bodies of " + cons->name + " and the pass at " + pass->loc.str() +
                         " use an op the real-number translation does not model");
        g.error("P5", id, pass->loc,
                "cannot decide whether this pass is the body of " + cons->name + " at g = 0: its body or the "
                "consumer's uses an op fusecert cannot translate");
        return;
      }
      auto& o = g.smt("P5.decay_pass", pclaim, *q, "unsat", "QF_NRA");
      if (o.answer == "unsat") {
        g.structural(id, claim, "holds",
                     k_routing + " = \"conditional\", unrouted = \"dense_zero_grad\": " + pass->name + " at " +
                         pass->loc.str() + " is proven to compute the body at g = 0 on unrouted steps");
        return;
      }
      g.structural(id, claim, o.answer == "sat" ? "violated" : "missing",
                   "the pass at " + pass->loc.str() + " is not proven equal to the body at g = 0 (" + o.answer + ")");
      auto& d = g.error("P5", id, pass->loc,
                        o.answer == "sat"
                            ? "cannot fold the unrouted steps of " + cons->name + " into this pass: Z3 finds W and state "
                              "values where it differs from the routed body at g = 0 (unrouted = \"dense_zero_grad\")"
                            : "could not decide whether this pass equals the body of " + cons->name +
                                  " at g = 0: the solver answered " + o.answer);
      d.notes.push_back(g.producer_note("weight-gradient producer here; legal when the unrouted pass computes the "
                                        "same body with g = 0 (m and v decay, W moves)"));
      return;
    }
  }
  if (decay) {
    g.structural(id, claim, "holds",
                 k_routing + " = \"conditional\"; " + decay->name + " at " + decay->loc.str() +
                     " decays the same state on steps without a gradient");
    g.smt("P5.decay_pass", "fused update on routed steps + decay pass on unrouted steps equals the per-step reference",
          memo_query(std::string("folded:1:") + (second ? "1" : "0"), [&] { return folded_query(true, second); }), "unsat", "QF_NRA");
    return;
  }
  std::vector<int> held = g.facts.state_values;
  if (g.facts.weight_value >= 0) held.push_back(g.facts.weight_value);
  if (held.size() == 1 && cons->results.size() == 1) {
    // No state (SGD, its body proven or not: one value held, one result): an
    // unrouted step that runs no pass is the reference when the body at
    // g = 0 leaves W where it is (W − lr·0 = W), proven over the body.
    const auto q = unchanged_query(g, *cons, held[0]);
    if (!q) {
      g.structural(id, claim, "missing",
                   "no pass over W on unrouted steps, and whether the body of " + cons->name +
                       " at g = 0 leaves W unchanged is not decided (its body uses an op the real-number translation does not "
                       "model)");
      g.error("P5", id, cons->loc,
              "cannot decide the unrouted steps of " + cons->name + " (unrouted = \"dense_zero_grad\"): no pass "
              "runs on them, and fusecert cannot show that the body at g = 0 leaves W unchanged")
          .notes.push_back(g.producer_note("weight-gradient producer here"));
      return;
    }
    auto& o = g.smt("P5.decay_pass",
                    "the body of " + cons->name + " at g = 0 leaves W unchanged (over the reals), so an unrouted step "
                    "that runs no pass is the reference",
                    *q, "unsat", "QF_NRA");
    if (o.answer == "unsat") {
      g.structural(id, claim, "holds",
                   k_routing + " = \"conditional\", unrouted = \"dense_zero_grad\": " + cons->name +
                       " keeps no state, and its body at g = 0 is proven to leave W unchanged, so unrouted steps "
                       "need no pass");
      return;
    }
    g.structural(id, claim, o.answer == "sat" ? "violated" : "missing",
                 "the body of " + cons->name + " at g = 0 is not proven to leave W unchanged (" + o.answer +
                     "), and no pass moves W on unrouted steps");
    g.error("P5", id, cons->loc,
            o.answer == "sat"
                ? "cannot fuse " + cons->name + " into the weight-gradient epilogue: under unrouted = "
                  "\"dense_zero_grad\" an unrouted step is the body at g = 0, which moves W (Z3 finds values where "
                  "it differs from W), and no pass moves W on the steps the expert receives no gradient"
                : "could not decide whether the body of " + cons->name + " at g = 0 leaves W unchanged: the solver "
                  "answered " + o.answer)
        .notes.push_back(g.producer_note("weight-gradient producer here; legal with a gradient-free pass over W "
                                         "that computes the body at g = 0 on unrouted steps"));
    return;
  }
  g.structural(id, claim, "violated",
               k_routing + " = \"conditional\", unrouted = \"dense_zero_grad\" on " + cons->name + " and no " + pass_name +
                   " covers W and its state");
  g.smt("P5.decay_pass", "the β-folded fused update equals the per-step reference on every step",
        memo_query(std::string("folded:0:") + (second ? "1" : "0"), [&] { return folded_query(false, second); }), "unsat", "QF_NRA");
  auto& d = g.error("P5", id, cons->loc,
                    "cannot fold the state decay of " + cons->name +
                        " into the weight-gradient epilogue: " + k_routing + " = \"conditional\" skips the update (and the "
                        "decay of m" + std::string(second ? ", v" : "") +
                        ") on steps where the expert receives no gradient");
  d.notes.push_back(g.producer_note("weight-gradient producer here; legal with a gradient-free decay pass "
                                    "(" + pass_name + ") over W and the same state on unrouted steps (unrouted = \"dense_zero_grad\": the body at g = 0 moves W)"));
}

}  // namespace fusecert::guards
