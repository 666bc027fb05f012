// P2 guard, clip scope: `grad_clip_scope` must be declared on the consumer;
// "global" is rejected (P2: exact global-norm clipping cannot be fused — the
// refutation query below is P2's impossibility in one coordinate), "layer" is
// legal but the residency falls to the layer, "none" is legal.
#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"

namespace fusecert::guards {

namespace {

/// SMT-LIB2 (QF_NRA): two histories (m0, g) and (m0', g') agree on everything
/// an O(1) epilogue keeps — the unclipped moment m_t(1), the clip factor c and
/// |g| — yet their clipped moments m_t(c) differ. sat ⇒ no recovery function.
/// The witness instance fixes β₁ = 1/2 and c = 1/2 (any β₁ ∈ (0,1), c < 1 works;
/// fixing them keeps the query easy for every solver).
std::string impossibility_query() {
  z3::context ctx;
  smt::Query q(ctx);
  auto R = [&](const char* n) { return ctx.real_const(n); };
  z3::expr b1 = ctx.real_val(1, 2), c = ctx.real_val(1, 2), m0 = R("m0"), g = R("g"), m0p = R("m0p"), gp = R("gp");
  auto mt = [&](const z3::expr& m, const z3::expr& gg, const z3::expr& cc) { return b1 * m + (1 - b1) * cc * gg; };
  q.add(mt(m0, g, ctx.real_val(1)) == mt(m0p, gp, ctx.real_val(1)));
  q.add(g * g == gp * gp);
  q.add(mt(m0, g, c) != mt(m0p, gp, c));
  return q.smt2();
}

}  // namespace

namespace {
/// A norm of the gradient scaling it, shown by the dependence slice (the
/// DAG form, and linalg on tensors when the slice could be followed): its
/// reduction, or nullptr.
const ir::Reduction* shown_norm(const GuardContext& g) {
  if (!g.facts.dag || !g.facts.dag->problem.empty()) return nullptr;
  for (const auto& red : g.facts.dag->reductions)
    if (red.scales >= 0) return &red;
  return nullptr;
}
}  // namespace

void guard_clip_scope(GuardContext& g) {
  if (g.c.form == ir::Form::Dag || (g.c.form == ir::Form::Linalg && shown_norm(g))) {
    // Shown by the DAG, not declared: a norm of the gradient (a rounded
    // reduction of a value computed from the gradient alone, over every
    // element) that an element-wise op applies to the gradient.
    const std::string id = "P2.clip_scope";
    const std::string claim = "no norm of the gradient scales it before the update (no global-norm clipping)";
    const ir::Dag& dag = *g.facts.dag;
    if (!dag.problem.empty()) return;  // the single-use guard made it inconclusive
    for (const auto& red : dag.reductions) {
      if (red.scales < 0) continue;
      const ir::Op& r = g.m.ops[red.op];
      const ir::Op& s = g.m.ops[red.scales];
      g.structural(id, claim, "violated",
                   r.name + " at " + r.loc.str() + " reduces a function of the gradient over all its elements, and " +
                       s.name + " at " + s.loc.str() + " applies the result to the gradient");
      g.smt("P2.recoverable", "an O(1)-space epilogue can recover the clipped moment m_t(c) from m_t(1), c and |g|",
            memo_query("p2:impossibility", [] { return impossibility_query(); }), "unsat", "QF_NRA");
      auto& d = g.error("P2", id, s.loc,
                        "cannot fuse the update into the weight-gradient epilogue: " + s.name +
                            " scales the gradient by a norm of the whole gradient (" + r.name + " at " + r.loc.str() +
                            " sums over every element), so every gradient element is needed before any tile may "
                            "update (global-norm clipping)");
      d.notes.push_back(g.producer_note("weight-gradient producer here; legal with per-layer clipping applied "
                                        "after the producer's reduction, or none"));
      d.notes.push_back({r.loc, "the norm is reduced here"});
      return;
    }
    g.structural(id, claim, "holds",
                 "no reduction of the gradient alone over all its elements is applied to the gradient (the DAG "
                 "holds " + std::to_string(dag.reductions.size()) + " reduction(s))");
    return;
  }
  const std::string id = "P2.clip_scope";
  const std::string claim = "gradient clipping needs no norm beyond what one tile holds (grad_clip_scope none or layer)";
  // An explicit global-norm clip op (a table entry of role clip) between the
  // producer and the optimizer.
  for (auto& u : g.c.uses) {
    const ir::Op& op = g.m.ops[u.first];
    const ir::OpSpec* spec = ir::spec_of(op);
    if (!spec || spec->role != ir::OpRole::Clip) continue;
    g.structural(id, claim, "violated", op.name + " at " + op.loc.str() + " reads the weight gradient");
    auto& o = g.smt("P2.recoverable", "an O(1)-space epilogue can recover the clipped moment m_t(c) from m_t(1), c and |g|",
                    memo_query("p2:impossibility", [] { return impossibility_query(); }), "unsat", "QF_NRA");
    (void)o;
    auto& d = g.error("P2", id, op.loc,
                      "cannot fuse the optimizer into the weight-gradient epilogue: " + op.name +
                          " needs the norm of every gradient before any tile may update");
    const ir::Op* cons = g.consumer();
    const std::string k_scope = ir::key_of(cons ? *cons : op, "grad_clip_scope");
    d.notes.push_back(g.producer_note("weight-gradient producer here; legal with per-layer clipping "
                                      "(" + k_scope + " = \"layer\") or none"));
    return;
  }
  const ir::Op* cons = g.consumer();
  if (!cons) return;  // nothing to check: the single-use guard already failed
  const ir::Op* at = cons;
  const ir::Attr* a = g.fact("grad_clip_scope", "P2", id, "one of \"none\", \"layer\", \"global\"", &at);
  if (!a) return;
  const std::string k_scope = ir::key_of(*at, "grad_clip_scope");
  const std::string v = a->text;
  if (a->kind != ir::Attr::Kind::String || (v != "none" && v != "layer" && v != "global")) {
    g.structural(id, claim, "missing", k_scope + " = " + v + " is not one of none, layer, global");
    g.error("P2", id, at->loc, k_scope + " = " + a->text + " is not one of \"none\", \"layer\", \"global\"");
    return;
  }
  if (v == "global") {
    g.structural(id, claim, "violated", k_scope + " = \"global\" on " + at->name + " at " + at->loc.str());
    g.smt("P2.recoverable", "an O(1)-space epilogue can recover the clipped moment m_t(c) from m_t(1), c and |g|",
          memo_query("p2:impossibility", [] { return impossibility_query(); }), "unsat", "QF_NRA");
    auto& d = g.error("P2", id, at->loc,
                      "cannot fuse " + cons->name +
                          " into the weight-gradient epilogue: " + k_scope + " = \"global\" needs the norm of every "
                          "gradient before any tile may update");
    d.notes.push_back(g.producer_note("weight-gradient producer here; legal with " + k_scope + " = \"layer\" "
                                      "(residency falls to the layer) or \"none\""));
    return;
  }
  g.structural(id, claim, "holds", k_scope + " = \"" + v + "\" on " + at->name);
  if (v == "layer") {
    g.out.residency = "layer";
    auto& d = g.out.diags.emplace_back();
    d.severity = diag::Severity::Remark;
    d.rule = id;
    d.loc = cons->loc;
    d.message = k_scope + " = \"layer\": legal, but the residency falls to the layer (the layer's gradient norm "
                "is needed before its tiles update)";
  }
}

}  // namespace fusecert::guards
