// P3 guard, reduce-into-state: a collective ("tessera.all_reduce",
// "tessera.reduce_scatter", reduction = "sum") applied to an OUTPUT of the
// optimizer consumer (the yielded m1 / v1 / B1 of a linalg.generic, a state
// result of a tessera optimizer op or of the fused wgrad op) is the
// reduce-into-state protocol of P3: the owner rank computes f(S, g_owner),
// every other rank f(0, g_r), and the state is summed instead of the
// gradient. That is exact iff the update of that output is affine in g with
// the state seeded once:
//
//   P3.reduce_into_state.out<i>  (QF_NRA, unsat = exact)
//     ∃ s, g1, g2 (every other input x symbolic, the same on every rank):
//       f(s, g1; x) + f(0, g2; x) ≠ f(s, g1 + g2; x)
//
// The two-rank form implies any number of ranks R by induction: with the
// identity for two ranks, f(s, g1) + f(0, g2) + ... + f(0, gR)
// = f(s, g1 + g2) + f(0, g3) + ... = f(s, g1 + ... + gR). (f(0, ·) is the
// non-owner's contribution; the induction step reuses the identity with
// g1 + ... + gk in place of g1.)
//
// f is the consumer's OWN body for that output when it has one (a
// linalg.generic: the state is, by dataflow, the one input other than the
// gradient that the output's yield reads; never a recognised role or the
// `optimizer` hint), else the reference update of verifier/model/optimizer.h
// for the declared optimizer, instantiated with its declared hyper-parameters;
// a state that cannot be identified is `missing` (fail closed). sat: illegal,
// with the counterexample (AdamW's v: (1−β₂)·((g1+g2)² − g1² − g2²) ≠ 0).
// unknown / timeout: inconclusive, never legal.
//
// Memref (bufferized) consumers: output i is the init buffer i; a collective
// taking it after the consumer in program order reduces the updated state.
#include <algorithm>
#include <map>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/recognize.h"
#include "verifier/model/hyper.h"
#include "verifier/model/optimizer.h"
#include "verifier/smt/arith.h"

namespace fusecert::guards {

namespace {

/// The state an output carries: "m1" → "m".
std::string state_of(const std::string& out) { return out.size() > 1 && out.back() == '1' ? out.substr(0, out.size() - 1) : ""; }

struct Built {
  std::string smt2;
  std::string role;     ///< the reduced output's role ("v1")
  std::string state;    ///< its state input ("v")
  std::string why_not;  ///< non-empty: the state could not be identified
};

/// Asserts reduced = f(s,g1)+f(0,g2), stepped = f(s,g1+g2), reduced ≠ stepped.
std::string finish(z3::context& ctx, const z3::expr& lhs, const z3::expr& rhs, const z3::expr_vector& side) {
  smt::Query q(ctx);
  for (unsigned i = 0; i < side.size(); ++i) q.add(side[i]);
  z3::expr reduced = ctx.real_const("reduced"), stepped = ctx.real_const("stepped");
  q.add(reduced == lhs);
  q.add(stepped == rhs);
  q.add(reduced != stepped);
  return q.smt2();
}

/// From a linalg.generic body: yield `out` as a function of its block
/// arguments, the gradient argument and the state argument varied. The
/// state is shown by dataflow: the one input other than the gradient that
/// the yield reads (B1 = mu*B + g reads B; m1 = b1*m + (1-b1)*g reads m).
/// A yield reading several (AdamW's W1 reads W, m, v) has no one state to
/// seed, and is `missing`.
Built body_query(const ir::Op& cons, int grad_arg, size_t out) {
  Built b;
  b.role = "result " + std::to_string(out);
  const ir::Body& full = *cons.body;
  const std::vector<bool> reads =
      out < full.yields.size() ? yield_reads(full)[out] : std::vector<bool>(full.num_args, false);
  std::vector<int> states;
  for (int k = 0; k < cons.num_inputs && static_cast<unsigned>(k) < full.num_args; ++k)
    if (k != grad_arg && reads[k]) states.push_back(k);
  if (out >= full.yields.size() || grad_arg < 0 || states.size() != 1) {
    b.why_not = out >= full.yields.size() ? "the body yields no value " + std::to_string(out)
                : states.empty()           ? "result " + std::to_string(out) + " reads no input but the gradient, so it "
                                             "carries no state"
                                           : "result " + std::to_string(out) + " reads " + std::to_string(states.size()) +
                                                 " inputs besides the gradient, so which one is its state is not shown";
    return b;
  }
  const int state_arg = states[0];
  b.state = "in" + std::to_string(state_arg);
  z3::context ctx;
  smt::RealArith ra(ctx, {});
  // Only the nodes this yield depends on: an unrelated √ (AdamW's W1) would
  // add side constraints that make the query needlessly hard (cvc5 times out).
  ir::Body body = *cons.body;
  {
    std::vector<bool> live(body.nodes.size(), false);
    std::vector<int> stack;
    if (out < body.yields.size() && body.yields[out] >= 0) stack.push_back(body.yields[out]);
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (n < 0 || static_cast<size_t>(n) >= live.size() || live[n]) continue;
      live[n] = true;
      for (int o : body.nodes[n].operands) stack.push_back(o);
    }
    for (size_t n = 0; n < body.nodes.size(); ++n)
      if (!live[n] && body.nodes[n].kind == ir::BodyNode::Kind::Op) {
        body.nodes[n].kind = ir::BodyNode::Kind::Const;
        body.nodes[n].value = 0;
        body.nodes[n].operands.clear();
      }
    body.yields = {out < body.yields.size() ? body.yields[out] : -1};
  }
  z3::expr s = ctx.real_const(b.state.c_str()), g1 = ctx.real_const("g1"), g2 = ctx.real_const("g2");
  auto args = [&](const z3::expr& sv, const z3::expr& gv) {
    std::vector<z3::expr> a;
    for (unsigned k = 0; k < body.num_args; ++k) {
      if (static_cast<int>(k) == grad_arg) a.push_back(gv);
      else if (static_cast<int>(k) == state_arg) a.push_back(sv);
      else if (static_cast<int>(k) < cons.num_inputs) a.push_back(ctx.real_const(("in" + std::to_string(k)).c_str()));
      else a.push_back(ctx.real_const(("init" + std::to_string(k)).c_str()));
    }
    return a;
  };
  auto f1 = ir::eval_body_reals(ra, body, args(s, g1));
  auto f2 = ir::eval_body_reals(ra, body, args(ctx.real_val(0), g2));
  auto f3 = ir::eval_body_reals(ra, body, args(s, g1 + g2));
  if (!f1 || !f2 || !f3 || f1->size() != 1) {
    b.why_not = "the body uses an op fusecert cannot model over the reals";
    return b;
  }
  b.smt2 = finish(ctx, (*f1)[0] + (*f2)[0], (*f3)[0], ra.side());
  return b;
}

/// From the declared reference update (table ops and the fused op have no
/// body of their own), instantiated with the hyper-parameters the op
/// declares (only those this output reads, each under its dialect's
/// spelling; a missing one is reported by the caller).
Built reference_query(const ir::Op& op, const ir::Reference& ref, size_t out, std::vector<std::string>& missing) {
  Built b;
  if (out >= ref.out.size()) {
    b.why_not = "result " + std::to_string(out) + " is not an updated weight or state of the " + ref.kind +
                " reference update (it updates " + std::to_string(ref.out.size()) + ")";
    return b;
  }
  b.role = ref.out[out];
  b.state = state_of(b.role);
  model::Hyper h;
  double step = 1;
  for (const std::string& meaning : ref.reads.at(out)) {
    const std::string k = ir::key_of(op, meaning);
    const ir::Attr* a = op.attr(k);
    if (!a || (a->kind != ir::Attr::Kind::Float && a->kind != ir::Attr::Kind::Int)) {
      missing.push_back(k);
      continue;
    }
    if (auto bad = model::hyper_value_problem(meaning, a->num)) {
      missing.push_back(k + " (" + *bad + ")");
      continue;
    }
    if (!ir::set_hyper(h, step, meaning, a->num)) missing.push_back(k + " (not a hyper-parameter fusecert models)");
  }
  if (!missing.empty()) return b;
  if (auto t = model::step_value(step)) h.step = *t;
  else missing.push_back(ir::key_of(op, "step") + " (must be a whole number from 1 to 2^31-1)");
  if (auto bad = model::hyper_problem(h)) missing.push_back(*bad);
  if (!missing.empty()) return b;
  z3::context ctx;
  smt::RealArith a(ctx, h.constants());
  z3::expr g1 = ctx.real_const("g1"), g2 = ctx.real_const("g2");
  auto in = [&](bool zero, const z3::expr& g) {
    std::map<std::string, z3::expr> m;
    for (auto& r : ref.in)
      if (r != "g") m.emplace(r, r == b.state && zero ? ctx.real_val(0) : ctx.real_const(r.c_str()));
    m.emplace("g", g);
    return m;
  };
  z3::expr f1 = ir::reference_output_reals(a, ref, out, in(false, g1));
  z3::expr f2 = ir::reference_output_reals(a, ref, out, in(true, g2));
  z3::expr f3 = ir::reference_output_reals(a, ref, out, in(false, g1 + g2));
  b.smt2 = finish(ctx, f1 + f2, f3, a.side());
  return b;
}

/// The counterexample: the state, g1, g2, every other input the model fixes
/// (the same on every rank: without them the numbers cannot be replayed),
/// then both sides. Z3 marks a decimal it cut short with '?'.
std::string model_text(const Obligation& o, const std::string& state) {
  std::string t;
  auto add = [&](const std::string& name) {
    for (auto& v : o.model)
      if (v.name == name) t += (t.empty() ? "" : ", ") + name + " = " + v.value;
  };
  for (const std::string& n : {state, std::string("g1"), std::string("g2")}) add(n);
  for (auto& v : o.model)
    if (v.name != state && v.name != "g1" && v.name != "g2" && v.name != "reduced" && v.name != "stepped")
      add(v.name);
  add("reduced");
  add("stepped");
  return t;
}

}  // namespace

void guard_reduce_into_state(GuardContext& g) {
  const ir::Op* cons = g.consumer();
  if (!cons) return;  // the single-use guard already failed: no consumer outputs to reduce
  const auto& m = g.m;
  const bool generic = cons->kind == ir::Op::Kind::Generic;
  // The value carrying each output: the results, or (bufferized) the inits.
  std::vector<int> outs = cons->results;
  bool buffers = false;
  if (outs.empty() && generic) {
    outs = ir::inits(*cons);
    buffers = true;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    std::vector<const ir::Op*> colls;
    // Across calls: the updated state returned by a helper and reduced by
    // its caller is reduced all the same.
    for (auto& [u, operand] : ir::through_calls(m, m.values[outs[i]].uses)) {
      const ir::Op& op = m.ops[u];
      const ir::OpSpec* spec = ir::spec_of(op);
      if (!spec || spec->role != ir::OpRole::Collective) continue;
      // A collective before the update reads the old state.
      if (buffers && op.func == cons->func && op.index <= cons->index) continue;
      colls.push_back(&op);
      g.out.collectives.push_back(op.id);
    }
    if (colls.empty()) continue;
    const ir::Op& coll = *colls.front();
    const std::string id = "P3.reduce_into_state.out" + std::to_string(i);
    const std::string what = coll.name + " of result " + std::to_string(i) + " of " + cons->name;
    // Semantic keys of every collective on this output.
    bool keys_ok = true;
    for (const ir::Op* c : colls)
      for (auto& p : ir::collective_key_problems(g.m, *c)) {
        if (keys_ok)
          g.structural(id, "the collective on output " + std::to_string(i) + " has semantic keys fusecert models",
                       "missing", p.message + " (at " + c->loc.str() + ")");
        keys_ok = false;
        g.error("P3", id, c->loc,
                p.message + (p.missing ? "" : "; the reduce-into-state check cannot run, so the candidate is "
                                              "inconclusive (fail closed)"))
            .notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
      }
    if (!keys_ok) continue;
    // A clipped gradient (layer scope) is scaled by a factor of the summed
    // gradient's norm, which no rank has before the reduction: fail closed.
    const std::string k_scope = ir::key_of(*cons, "grad_clip_scope");
    if (const ir::Attr* clip = cons->attr(k_scope);
        clip && !(clip->kind == ir::Attr::Kind::String && clip->text == "none")) {
      g.structural(id, "reduce-into-state of result " + std::to_string(i) + " of " + cons->name + " is exact",
                   "missing", k_scope + " = " + clip->text + " on " + cons->name);
      g.error("P3", id, coll.loc,
              "cannot decide whether reducing result " + std::to_string(i) + " of " + cons->name +
                  " (reduce-into-state) is exact: " + k_scope + " = " + clip->text +
                  " scales each rank's gradient by a factor of the summed gradient's norm, which fusecert does not "
                  "model across ranks")
          .notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
      continue;
    }
    // f for this output: the consumer's own body, else the declared reference.
    Built b;
    std::string source;
    if (generic) {
      if (!cons->body) b.why_not = "the " + cons->name + " has no body";
      else b = body_query(*cons, g.c.consumer_operand, i);
      source = "the " + cons->name + " body";
    } else if (!g.facts.reference) {
      // Opaque (a table op without a body): the single-use guard already
      // made the candidate inconclusive; no guard runs past it.
      b.why_not = cons->name + " has no body in its dialect table, so what it computes for output " +
                  std::to_string(i) + " is unknown";
    } else {
      std::vector<std::string> missing;
      b = reference_query(*cons, *g.facts.reference, i, missing);
      if (!missing.empty()) {
        std::string keys;
        for (auto& k : missing) keys += (keys.empty() ? "" : ", ") + k;
        g.structural(id, "the hyper-parameters of " + b.role + "'s reference update are declared on " + cons->name,
                     "missing", "attribute(s) " + keys + " absent on " + cons->name + " at " + cons->loc.str());
        g.error("P3", id, cons->loc,
                "missing semantic key(s) " + keys + " on " + cons->name + ": the " + g.facts.optimizer +
                    " reference update of " + b.role + " (reduced by " + coll.name + " at " + coll.loc.str() +
                    ") needs them; fusecert does not assume a default")
            .notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
        continue;
      }
      source = "the " + g.facts.optimizer + " reference update (verifier/model/optimizer.h) with the declared "
               "hyper-parameters";
    }
    if (!b.why_not.empty()) {
      g.structural(id, "the state reduced by " + what + " can be identified", "missing", b.why_not);
      g.error("P3", id, coll.loc,
              "cannot decide whether reducing result " + std::to_string(i) + " of " + cons->name +
                  " (reduce-into-state) is exact: " + b.why_not + "; fusecert does not assume it is")
          .notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
      continue;
    }
    const std::string claim = "reduce-into-state of " + b.role + " (" + what + ") is exact: with " + source +
                              " as f, f(" + b.state + ", g1) + f(0, g2) = f(" + b.state +
                              ", g1 + g2) over the reals for every input (the update is affine in g)";
    auto& o = g.smt(id, claim, b.smt2, "unsat", "QF_NRA");
    // The ranks each collective declares (the identity is proven for two, and
    // so for any R by induction).
    std::string ranks;
    for (const ir::Op* c : colls) {
      const ir::Attr* r = c->attr(ir::key_of(*c, "ranks"));
      const ir::Attr* axis = c->attr(ir::key_of(*c, "axis"));
      ranks += (ranks.empty() ? "" : ", ") +
               (r ? std::to_string(static_cast<long long>(r->num))
                  : "R of mesh axis \"" + (axis ? axis->text : std::string("?")) + "\"");
    }
    o.evidence = what + " at " + coll.loc.str() + " (" + std::to_string(colls.size()) + " collective(s), ranks " +
                 ranks + "); f = " + b.role + " of " + source;
    if (o.answer == "unsat" && o.decided()) {  // non-vacuous: the premises are satisfiable
      auto& d = g.out.diags.emplace_back();
      d.severity = diag::Severity::Remark;
      d.rule = id;
      d.loc = coll.loc;
      d.message = "reduce-into-state of " + b.role + " is exact: Z3 proves " + b.role + " affine in the gradient (" +
                  source + "), so summing the per-rank states (owner seeded with the state, others with 0) equals "
                  "one step on the summed gradient";
      continue;
    }
    if (o.answer == "sat") {
      auto& d = g.error("P3", id, coll.loc,
                        "reduce-into-state is not exact: " + coll.name + " sums " + b.role + " of " + cons->name +
                            " stepped on per-rank gradients, but the owner's f(" + b.state +
                            ", g1) plus another rank's f(0, g2) is not f(" + b.state + ", g1 + g2) (" + b.role +
                            " is not the state seeded once plus a term linear in g); Z3: at " +
                            model_text(o, b.state));
      d.notes.push_back({cons->loc, "the optimizer whose " + b.role + " is reduced; legal if you reduce the gradient "
                                    "before the optimizer (standard ZeRO-2), or reduce only state that is affine in g, "
                                    "such as an exponential average of g (a first moment m, a velocity B)"});
      d.notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
      continue;
    }
    g.error("P3", id, coll.loc,
            "could not decide whether reducing " + b.role + " of " + cons->name +
                " (reduce-into-state) is exact: solver answered " + o.answer +
                (o.reason.empty() ? "" : " (" + o.reason + ")") + "; inconclusive, never legal");
  }
}

}  // namespace fusecert::guards
