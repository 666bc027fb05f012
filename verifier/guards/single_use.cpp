// P1 guard, single use: the weight gradient has exactly one use and that use
// is an optimizer. A linalg.generic consumer is recognised by proving its body
// equal to a reference update (verifier/ir/recognize.h); a table optimizer
// op (role optimizer) by its table entry and operand position, and one whose
// entry has no body is opaque: inconclusive, never assumed.
#include <algorithm>
#include <stdexcept>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/recognize.h"

namespace fusecert::guards {

namespace {
bool has_role(const ir::Op& op, ir::OpRole r) {
  const ir::OpSpec* s = ir::spec_of(op);
  return s && s->role == r;
}
/// An element-wise add: an upstream one (typed, ir::Op::Kind::Add) or a
/// table entry of role add.
bool is_add(const ir::Op& op) { return op.kind == ir::Op::Kind::Add || has_role(op, ir::OpRole::Add); }
}  // namespace

/// The consumer (or fused op) is a table op without a body: fusecert knows
/// its operands and keys, not what it computes, so whether its only use of
/// the gradient is an optimizer update is not established (`missing`), and
/// the candidate is inconclusive unless a producer-side guard already makes
/// it illegal. The note says what would decide it.
void opaque_consumer(GuardContext& g, const std::string& id, const std::string& claim) {
  const ir::Op& cons = *g.consumer();
  const ir::DialectTable* table = ir::table_of(cons);
  const std::string source = table ? table->source : "its dialect table";
  g.structural(id, claim, "missing",
               cons.name + " has no body in " + source + ": what it computes is unknown (opaque)");
  auto& d = g.error("P1", id, cons.loc,
                    "cannot decide whether fusing " + cons.name +
                        " into the weight-gradient epilogue is legal: " + source +
                        " gives it no element-wise body, so fusecert does not know what it computes (opaque); "
                        "legality through it is inconclusive, never assumed from its name or keys");
  d.notes.push_back({cons.loc, "decidable with a `body:` for " + cons.name + " in " + source +
                                   " (a reference update fusecert has), or on the IR lowered" +
                                   (table && !table->lowering.empty() ? " with " + table->lowering : "") +
                                   ", where fusecert proves the element-wise body it lowers to"});
  d.notes.push_back(g.producer_note("weight-gradient producer here"));
}

/// P1.single_producer on a DAG consumer: the contractions summing into the
/// gradient this step are the producer alone (or its split-K partners,
/// which P1.k_whole judges).
static void single_producer(GuardContext& g, const std::string& gname) {
  const auto& m = g.m;
  const ir::Dag& dag = *g.facts.dag;
  const std::string id = "P1.single_producer";
  const std::string claim = "one contraction produces the weight gradient: no contraction over other operands sums "
                            "into it, and no other contraction reaches the updated values";
  if (dag.tied_at >= 0) {
    const ir::Op& at = m.ops[dag.tied_at];
    const ir::Op& other = m.ops[dag.tied_with];
    // The second contraction reads other operands (a tied weight), the
    // operands of the producer (or of a split-K partner) again (the same
    // values, or the same token window of the same X and dY: the same
    // product summed twice), or a token window of the same X and dY that
    // overlaps theirs (the shared tokens counted twice: no partition of K).
    using Tied = ir::Dag::Tied;
    const bool of_producer = dag.tied_of < 0 || dag.tied_of == g.c.producer;
    const std::string of = of_producer ? std::string("the producer")
                                       : "the split-K partial sum " + m.ops[dag.tied_of].name + " at " +
                                             m.ops[dag.tied_of].loc.str();
    auto window = [](const ir::AxisWindow& w) {
      return "[" + std::to_string(w.start) + ", " + std::to_string(w.limit) + ")" +
             (w.stride == 1 ? std::string() : " by " + std::to_string(w.stride));
    };
    std::string what = "over different operands";
    if (dag.tied_operands == Tied::Same)
      what = "over the same operands as " + of + " (the same token window of the same X and dY: the same product "
             "summed twice)";
    if (dag.tied_operands == Tied::Overlapping)
      what = "over token window " + window(dag.tied_window) + " of the same X and dY, which overlaps the window " +
             window(dag.of_window) + " of " + of + " (the tokens in both are counted twice: no partition of K)";
    if (dag.tied_operands == Tied::Unseen)
      what = "over operands fusecert does not relate to the producer's (arguments of @" +
             m.funcs[dag.tied_unseen].name + ", which several ops call: no one value, so it does not see through "
             "them)";
    g.structural(id, claim, "violated",
                 at.name + " at " + at.loc.str() + " sums " + other.name + " at " + other.loc.str() +
                     " into the gradient: two contractions " + what + " produce W's gradient");
    auto& d = g.error("P1", id, at.loc,
                      "cannot fuse the update into the weight-gradient epilogue: " + at.name + " sums a second "
                      "contraction (" + other.name + " at " + other.loc.str() + ") " + what + " into " + gname +
                          (dag.tied_operands == Tied::Other ? " (a tied weight)" : "") +
                          ", so no single producer's tile holds the finished gradient");
    d.notes.push_back(g.producer_note(
        dag.tied_operands == Tied::Same ? "weight-gradient producer here; legal when this one contraction alone "
                                          "produces the gradient"
        : dag.tied_operands == Tied::Overlapping
            ? "weight-gradient producer here; legal when one contraction counts each token once (over the whole "
              "K, or a split-K whose windows do not overlap, judged by P1.k_whole)"
        : dag.tied_operands == Tied::Unseen
            ? "weight-gradient producer here; legal when one contraction produces the gradient (a split-K "
              "through a helper is seen, and judged by P1.k_whole, when each helper has one call site)"
            : "weight-gradient producer here; legal when one contraction (over the concatenated K) produces the "
              "gradient"));
    return;
  }
  if (dag.other_contraction >= 0) {
    // Another contraction's result reaches an updated value by a path that
    // is not a sum into the gradient (a product with it, a norm of it,
    // through a reduction): no rule here decides how many producers that
    // step has. Fail closed: inconclusive, never legal.
    const ir::Op& other = m.ops[dag.other_contraction];
    const std::string how = dag.other_reduced ? "through a reduction" : "element-wise, but not as a sum into it";
    g.structural(id, claim, "missing",
                 "result " + std::to_string(dag.other_output) + " of the step reads the gradient and the result of " +
                     other.name + " at " + other.loc.str() + " (" + how + ")");
    auto& d = g.error("P1", id, other.loc,
                      "cannot decide the producers of " + gname + ": result " + std::to_string(dag.other_output) +
                          " of the step reads it together with this second contraction's result (" + how +
                          "); fusecert certifies only a step whose updated values read no contraction but the "
                          "gradient's, so the candidate is inconclusive");
    d.notes.push_back(g.producer_note("weight-gradient producer here; legal when no other contraction of the step "
                                      "reaches the updated weight or state"));
    return;
  }
  if (!dag.split_partners.empty()) {
    g.structural(id, claim, "holds",
                 std::to_string(dag.split_partners.size()) + " other contraction(s) over token slices of the same "
                 "operands sum into the gradient: one contraction split along K (judged by P1.k_whole)");
    return;
  }
  std::string norm;
  for (int c : dag.norm_contractions)
    norm += (norm.empty() ? "" : ", ") + m.ops[c].name + " at " + m.ops[c].loc.str();
  g.structural(id, claim, "holds",
               "one contraction: " + g.producer().name + " at " + g.producer().loc.str() +
                   " produces the gradient, and no other contraction sums into it or reaches the updated values" +
                   (norm.empty() ? std::string()
                                 : " but through the norm that scales the gradient (" + norm +
                                       ": other layers' squares in a global norm, judged by P2.clip_scope)"));
}

/// Whether P1 is decided on the dependence slice: always for the DAG form;
/// for linalg on tensors when the slice could be followed and either the
/// consumer's body is not proven equal to a reference update (recognition is
/// a remark, never a reason to reject) or a second contraction reaches it.
bool uses_dag(const GuardContext& g) {
  if (g.c.form == ir::Form::Dag) return true;
  if (g.c.form != ir::Form::Linalg || !g.facts.dag || !g.facts.dag->problem.empty() || g.c.consumer < 0) return false;
  const ir::Dag& dag = *g.facts.dag;
  return !g.facts.reference || dag.tied_at >= 0 || dag.other_contraction >= 0;
}

void guard_single_use(GuardContext& g) {
  const auto& m = g.m;
  const auto& c = g.c;
  const std::string id = "P1.single_use";
  const std::string claim = "the weight gradient has exactly one use, and it is an optimizer";
  if (c.consumer >= 0 && g.facts.opaque) {
    opaque_consumer(g, id, claim);
    return;
  }
  if (c.form == ir::Form::Fused) {
    const ir::Op& f = g.producer();
    // The fused op's table entry (the candidate's facts) says which
    // optimizer its epilogue is and which operands are W and its state.
    const std::string& kind = g.facts.optimizer;
    g.structural(id, claim, "holds",
                 "fused op " + f.name + ": the gradient is internal to the op; its only consumer is the " + kind +
                     " epilogue");
    return;
  }
  const std::string gname = "the weight gradient (result " + std::to_string(c.result_no) + " of " +
                            g.producer().name + ")";
  if (uses_dag(g)) {
    // The consumer is the DAG; what it computes is the other guards'
    // business, never a name. Single use: the DAG could be followed.
    // Single producer (the spec's "single producer" fact): no contraction
    // over other operands sums into the gradient before the update (a tied
    // weight); contractions over other token slices of the same X and dY
    // are split-K, the K-whole guard's.
    const ir::Dag& dag = *g.facts.dag;
    if (!dag.problem.empty()) {
      g.structural(id, claim, "missing", "the consumer DAG cannot be followed: " + dag.problem);
      g.error("P1", id, dag.problem_loc.line ? dag.problem_loc : g.producer().loc,
              "cannot follow the consumer of " + gname + ": " + dag.problem +
                  "; fusecert does not guess what it computes, so the candidate is inconclusive")
          .notes.push_back(g.producer_note("weight-gradient producer here"));
      return;
    }
    // A result of the entry computed from the gradient and constants alone
    // (the gradient itself, scaled or cast) leaves the step whole: a second
    // use beside the update, so no tile's epilogue can consume the gradient.
    if (c.form == ir::Form::Dag && ir::leaves_module(m, dag.func))
      for (const auto& o : dag.outputs) {
        if (!o.dep.local()) continue;
        ir::Loc at = g.producer().loc;  // the return that hands it out
        for (int r : m.funcs[dag.func].ops)
          if (m.ops[r].is_return && m.ops[r].parent < 0) at = m.ops[r].loc;
        g.structural(id, claim, "violated",
                     "result " + std::to_string(o.result_no) + " of " + m.funcs[dag.func].name +
                         " is computed from the gradient and constants alone and leaves the module (" +
                         m.funcs[dag.func].name + " is public or has no caller): a use beside the update");
        auto& d = g.error("P1", id, at,
                          "cannot fuse the update into the weight-gradient epilogue: " + gname + " is also result " +
                              std::to_string(o.result_no) + " of @" + m.funcs[dag.func].name +
                              " (element-wise, from the gradient and constants only), a second use that needs the "
                              "whole gradient beside the update");
        d.notes.push_back(g.producer_note("weight-gradient producer here; legal when the gradient is not returned "
                                          "and its only use is the update"));
        return;
      }
    std::string outs;
    for (const auto& o : dag.outputs) outs += (outs.empty() ? "" : ", ") + std::to_string(o.result_no);
    g.structural(id, claim, "holds",
                 "the gradient's consumer is the element-wise DAG from " + g.producer().name + " at " +
                     g.producer().loc.str() + " to the step's results " + outs + ", followed op by op");
    single_producer(g, gname);
    // A declared optimizer is a hint, cross-checked against the body: one
    // the body is not proven to compute is a warning, never a verdict.
    if (c.form == ir::Form::Linalg && g.facts.recognition && !g.facts.recognition->declared.empty() &&
        !g.facts.reference)
      g.warning("P1", id, g.consumer()->loc,
                "the op declares optimizer = \"" + g.facts.recognition->declared +
                    "\" but its body is not proven equal to that reference update; the declaration is a hint only, "
                    "and legality is decided by what the body reads");
    return;
  }
  if (c.consumer < 0) {
    std::string uses;
    for (auto& u : c.uses) uses += (uses.empty() ? "" : ", ") + m.ops[u.first].name + " at " + m.ops[u.first].loc.str();
    g.structural(id, claim, "violated",
                 std::to_string(c.uses.size()) + " use(s)" + (uses.empty() ? "" : ": " + uses));
    bool clip = std::any_of(c.uses.begin(), c.uses.end(),
                            [&](auto& u) { return has_role(m.ops[u.first], ir::OpRole::Clip); });
    if (clip) return;  // reported by the clip-scope guard as P2
    bool tied = c.uses.size() == 1 && is_add(m.ops[c.uses[0].first]);
    // A collective on the gradient (data parallelism: all-reduce or ZeRO-2
    // reduce-scatter before the optimizer) is a use that is not the optimizer:
    // the optimizer runs on the reduced gradient after the communication, not
    // in this GEMM's epilogue. Same verdict as any other non-optimizer use.
    bool collective = c.uses.size() == 1 && has_role(m.ops[c.uses[0].first], ir::OpRole::Collective);
    const ir::Loc at = c.uses.empty() ? g.producer().loc : m.ops[c.uses[0].first].loc;
    if (collective) {
      auto& d = g.error("P1", id, at,
                        "cannot fuse the optimizer into the weight-gradient epilogue: " + gname + " is reduced by " +
                            m.ops[c.uses[0].first].name +
                            " before the optimizer, so the optimizer needs the gradients of every rank and runs "
                            "after the collective, not on this rank's tile");
      d.notes.push_back(g.producer_note(
          "weight-gradient producer here; to fuse under data parallelism, step the state on each rank and reduce "
          "the state instead (reduce-into-state, P3), legal only for state that is affine in the gradient"));
      if (c.downstream >= 0) d.notes.push_back({m.ops[c.downstream].loc, "the optimizer of the reduced gradient is here"});
    } else if (tied) {
      auto& d = g.error("P1", id, at,
                        "cannot fuse the optimizer into the weight-gradient epilogue: " + gname + " feeds " +
                            m.ops[c.uses[0].first].name +
                            " (a tied weight), not the optimizer; stepping each gradient in turn is not one step "
                            "on their sum");
      d.notes.push_back(g.producer_note(
          "weight-gradient producer here; legal if the tied uses accumulate into one producer (one GEMM over the "
          "concatenated K) whose single use is the optimizer"));
      if (c.downstream >= 0) d.notes.push_back({m.ops[c.downstream].loc, "the optimizer of the tied weight is here"});
    } else {
      auto& d = g.error("P1", id, at,
                        "cannot fuse into the weight-gradient epilogue: " + gname + " has " +
                            std::to_string(c.uses.size()) + " use(s)" +
                            (c.uses.empty() ? "" : " (" + uses + ")") +
                            "; the single-use guard needs exactly one, an optimizer");
      d.notes.push_back(g.producer_note("weight-gradient producer here; legal when its only use is the optimizer"));
    }
    return;
  }
  const ir::Op& cons = *g.consumer();
  if (g.facts.consumer_spec && g.facts.consumer_spec->role == ir::OpRole::Optimizer) {
    // The gradient's position is the entry's (operands: role g), never a
    // fixed index: a dialect may take (g, W, m, v).
    const int g_pos = g.facts.consumer_spec->operand("g");
    if (g_pos < 0) {
      g.structural(id, claim, "missing",
                   "the table entry of " + cons.name + " names no gradient operand (role g)");
      const ir::DialectTable* table = ir::table_of(cons);
      g.error("P1", id, cons.loc,
              "cannot decide whether " + gname + " is the gradient " + cons.name + " updates W with: its entry in " +
                  (table ? table->source : std::string("its dialect table")) + " gives no operand the role g")
          .notes.push_back({cons.loc, "decidable when the entry's `operands:` names the gradient operand g"});
      return;
    }
    const std::string at = "operand " + std::to_string(g_pos);
    if (c.consumer_operand != g_pos) {
      g.structural(id, claim, "violated",
                   "the gradient is operand " + std::to_string(c.consumer_operand) + " of " + cons.name +
                       ", not its gradient operand (" + std::to_string(g_pos) + ")");
      auto& d = g.error("P1", id, cons.loc,
                        "cannot fuse: " + gname + " is operand " + std::to_string(c.consumer_operand) + " of " +
                            cons.name + ", not the gradient operand (" + at + ")");
      d.notes.push_back(g.producer_note("weight-gradient producer here"));
      return;
    }
    g.structural(id, claim, "holds", "single use: " + at + " (gradient) of " + cons.name + " at " + cons.loc.str());
    return;
  }
  // linalg.generic: prove what it computes.
  if (!cons.body || c.consumer_operand >= cons.num_inputs) {
    g.structural(id, claim, "violated", "the gradient is an init (outs) operand of " + cons.name);
    g.error("P1", id, cons.loc, "cannot fuse: " + gname + " is written, not read, by this " + cons.name)
        .notes.push_back(g.producer_note("weight-gradient producer here"));
    return;
  }
  if (!g.facts.recognition) throw std::logic_error("facts: no recognition for a consumer with a body");
  const ir::Recognition& rec = *g.facts.recognition;
  if (!rec.smt2.empty()) {
    auto& o = g.smt_answered("P1.consumer_is_optimizer", rec.claim, rec.smt2, "unsat", "QF_NRA",
                             g.facts.recognition_answer);
    std::string roles;
    for (size_t i = 0; i < rec.roles.size(); ++i) roles += (i ? ", " : "") + std::string("in") + std::to_string(i) + "=" + rec.roles[i];
    for (size_t i = 0; i < rec.outputs.size(); ++i) roles += ", out" + std::to_string(i) + "=" + rec.outputs[i];
    o.evidence = "role assignment: " + roles;
    if (o.answer == "unsat" && o.decided()) {  // non-vacuous: the premises are satisfiable
      g.structural(id, claim, "holds",
                   "single use: operand " + std::to_string(c.consumer_operand) + " of the " + cons.name + " at " +
                       cons.loc.str() + ", proven to compute " + rec.kind);
      if (!rec.declared.empty() && rec.declared != rec.kind)
        g.warning("P1", id, cons.loc,
                  "the op declares optimizer = \"" + rec.declared + "\" but its body is proven to compute " + rec.kind);
    } else if (o.answer == "sat") {
      // The same obligation set whether sampling or Z3 rejected the body:
      // P1.consumer_is_optimizer (sat) and P1.single_use (violated).
      auto& s = g.structural(id, claim, "violated",
                             "unknown consumer: " + (rec.detail.empty() ? "Z3 refutes that " + rec.claim : rec.detail));
      for (auto& [name, value] : rec.samples) s.model.push_back({name, "Real", value, ""});
      g.error("P1", "P1.consumer_is_optimizer", cons.loc,
              "unknown consumer: the " + cons.name + " body is not equal to the reference update (Z3 found inputs where "
              "they differ" + std::string(rec.samples.empty() ? "" : "; so do the sample points") + ")")
          .notes.push_back(g.producer_note("weight-gradient producer here"));
    } else {
      g.error("P1", "P1.consumer_is_optimizer", cons.loc,
              "could not decide whether the " + cons.name + " body is an optimizer update: solver answered " + o.answer +
                  (o.reason.empty() ? "" : " (" + o.reason + ")"));
    }
    return;
  }
  if (!rec.missing.empty()) {
    std::string keys;
    for (auto& k : rec.missing) keys += (keys.empty() ? "" : ", ") + k;
    g.structural(id, claim, "missing", "hyper-parameter attributes needed to prove the body: " + keys);
    g.error("P1", id, cons.loc,
            "missing semantic keys to recognise the consumer by proof (" + keys +
                "): the reference update needs the hyper-parameters the body was built with")
        .notes.push_back(g.producer_note("weight-gradient producer here"));
    return;
  }
  g.structural(id, claim, "violated", "unknown consumer: " + rec.detail);
  g.error("P1", id, cons.loc,
          "unknown consumer: the " + cons.name + " reading the weight gradient is not an optimizer fusecert can prove "
          "(" + rec.detail + ")")
      .notes.push_back(g.producer_note("weight-gradient producer here"));
}

}  // namespace fusecert::guards
