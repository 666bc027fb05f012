// P5 guard, routing: `routing` must be declared; "conditional" (MoE experts
// that receive no gradient on some steps) is rejected unless a gradient-free
// decay pass (tessera.optim.decay) covers the same optimizer state. The SMT
// obligation compares the β-folded fused update with the correct per-step
// update over the reals on a routed-or-not step.
#include <algorithm>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"

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

}  // namespace

void guard_routing(GuardContext& g) {
  if (g.c.form == ir::Form::Dag) {
    // The step is the whole function: the producer contracts the whole token
    // axis of its operands (no expert index, no gather: such an op has no
    // table entry and is an input error on the slice), and the DAG computes
    // every result on every call.
    if (!g.facts.dag->problem.empty()) return;
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
  const ir::Attr* a = g.fact(*cons, k_routing, "routing", "P5", id, "\"dense\" or \"conditional\"");
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
  if (g.facts.state_values.empty()) {
    g.structural(id, claim, "holds", k_routing + " = \"conditional\" but " + cons->name + " keeps no state to decay");
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
  if (decay) {
    g.structural(id, claim, "holds",
                 k_routing + " = \"conditional\"; " + decay->name + " at " + decay->loc.str() +
                     " decays the same state on steps without a gradient");
    g.smt("P5.decay_pass", "fused update on routed steps + decay pass on unrouted steps equals the per-step reference",
          memo_query(std::string("folded:1:") + (second ? "1" : "0"), [&] { return folded_query(true, second); }), "unsat", "QF_NRA");
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
