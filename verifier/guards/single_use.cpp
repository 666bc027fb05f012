// P1 guard, single use: the weight gradient has exactly one use and that use
// is an optimizer update. What the update computes is the other guards'
// business, decided from the IR: for linalg on tensors and the DAG form the
// consumer is the dependence slice from the gradient to the step's results
// (verifier/ir/dependence.h); for a bufferized linalg.generic its own body
// and maps. Recognising the body as AdamW / SGD / momentum is a remark made
// after the verdict (verifier/guards/recognition.h), never read here. A table
// optimizer op (role optimizer) is judged by its table entry and operand
// position, and one whose entry has no body is opaque: inconclusive, never
// assumed.
#include <algorithm>
#include <stdexcept>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/init_chain.h"
#include "verifier/ir/scalar_fn.h"

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
  // A chain through the accumulator's init (ir/init_chain.h): the earlier
  // links, and a contraction the first link's init reads otherwise.
  int beside = -1;
  const std::vector<int> chain = ir::init_chain(m, g.c.producer, &beside);
  if (dag.init_of >= 0 && !ir::split_partner(m, g.c.producer, dag.init_of)) {
    // The gradient is the init of a later contraction over other operands:
    // a partial sum of W's gradient, which that chain finishes.
    const ir::Op& next = m.ops[dag.init_of];
    g.structural(id, claim, "violated",
                 next.name + " at " + next.loc.str() + " accumulates into the result of " + g.producer().name +
                     " (its init): two contractions over different operands produce W's gradient, and this one's "
                     "result is a partial sum of it");
    auto& d = g.error("P1", id, next.loc,
                      "cannot fuse the update into the weight-gradient epilogue: " + gname + " is the init of a "
                      "later contraction (" + next.name + " at " + next.loc.str() + ") over other operands, so it "
                      "is a partial sum, not W's gradient; the chain's last link holds the finished gradient");
    d.notes.push_back(g.producer_note("partial-sum producer here; the update may be fused into the epilogue of the "
                                      "chain's last link"));
    return;
  }
  if (beside >= 0) {
    const ir::Op& other = m.ops[beside];
    const ir::Op& first = m.ops[chain.front()];
    g.structural(id, claim, "violated",
                 "the init of " + first.name + " at " + first.loc.str() + " is computed from " + other.name + " at " +
                     other.loc.str() + " other than as its result: a second contraction sums into W's gradient, "
                     "and not as a chain through the accumulator's init");
    g.error("P1", id, first.loc,
            "cannot fuse the update into the weight-gradient epilogue: the init of this " + first.name +
                " is computed from a second contraction (" + other.name + " at " + other.loc.str() +
                ") other than as its result, so the contractions summing into " + gname +
                " are no chain through the accumulator's init")
        .notes.push_back(g.producer_note("weight-gradient producer here; legal with one contraction, or a chain "
                                         "whose links each accumulate into the previous one's result"));
    return;
  }
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
  if (!dag.split_partners.empty() || dag.init_of >= 0) {
    g.structural(id, claim, "holds",
                 std::to_string(dag.split_partners.size() + (dag.init_of >= 0)) + " other contraction(s) over token "
                 "slices of the same operands sum into the gradient" +
                     (dag.init_of >= 0 ? " (" + m.ops[dag.init_of].name + " at " + m.ops[dag.init_of].loc.str() +
                                             " accumulates into it through its init)"
                                       : std::string()) +
                     ": one contraction split along K (judged by P1.k_whole)");
    return;
  }
  if (chain.size() > 1) {
    g.structural(id, claim, "holds",
                 "a chain through the accumulator's init, in order: " + ir::chain_text(m, chain) +
                     "; each link accumulates into the previous one's result, and the last, " + g.producer().name +
                     " at " + g.producer().loc.str() + ", produces the gradient; no other contraction sums into it "
                     "or reaches the updated values" +
                     (ir::token_window(m, g.c.producer) ? std::string(" (its links contract token slices: split "
                                                                      "along K, judged by P1.k_whole)")
                                                        : std::string()));
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

/// Whether P1 is decided on the dependence slice: always for the DAG form
/// and for linalg on tensors (a slice that cannot be followed is
/// inconclusive, never judged by resemblance to a reference update), except
/// where the slice stops only at collectives reducing the consumer's outputs
/// (reduce-into-state, the P3 guard's): there, as for a bufferized consumer,
/// the one linalg.generic reading the gradient is read by its own body.
bool uses_dag(const GuardContext& g) {
  if (g.c.form == ir::Form::Dag) return true;
  return g.c.form == ir::Form::Linalg && g.facts.dag && g.c.consumer >= 0 && !g.facts.reduced_outputs;
}

/// Which block arguments each yield of `body` reads, directly or not.
std::vector<std::vector<bool>> yield_reads(const ir::Body& body) {
  std::vector<std::vector<bool>> out;
  for (int y : body.yields) {
    std::vector<bool> args(body.num_args, false), seen(body.nodes.size(), false);
    std::vector<int> stack{y};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (n < 0 || static_cast<size_t>(n) >= seen.size() || seen[n]) continue;
      seen[n] = true;
      const ir::BodyNode& node = body.nodes[n];
      if (node.kind == ir::BodyNode::Kind::Arg && node.arg >= 0 && static_cast<unsigned>(node.arg) < body.num_args)
        args[node.arg] = true;
      for (int o : node.operands) stack.push_back(o);
    }
    out.push_back(std::move(args));
  }
  return out;
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
  // A bufferized linalg.generic (or one whose outputs are reduced): its own
  // body, read op by op (what it computes is the other guards' business: P9
  // from its maps, ...).
  if (!cons.body || c.consumer_operand >= cons.num_inputs) {
    g.structural(id, claim, "violated", "the gradient is an init (outs) operand of " + cons.name);
    g.error("P1", id, cons.loc, "cannot fuse: " + gname + " is written, not read, by this " + cons.name)
        .notes.push_back(g.producer_note("weight-gradient producer here"));
    return;
  }
  // Dependence needs no scalar semantics: every op of a linalg.generic
  // body combines its operands at one loop point (an op fusecert has no
  // real-number model for, such as Lion's cmpf / select, included). Only an
  // operand from outside the body can read elsewhere (a captured buffer, a
  // load): that body is not read.
  const ir::Body& body = *cons.body;
  const auto outside = std::find_if(body.nodes.begin(), body.nodes.end(), [](const ir::BodyNode& n) {
    return std::find(n.operands.begin(), n.operands.end(), -1) != n.operands.end();
  });
  if (outside != body.nodes.end() || std::find(body.yields.begin(), body.yields.end(), -1) != body.yields.end()) {
    const std::string what = outside != body.nodes.end() ? outside->op : std::string("its yield");
    g.structural(id, claim, "missing",
                 "the body of the " + cons.name + " reads a value defined outside it (" + what + ")");
    g.error("P1", id, cons.loc,
            "cannot read the consumer of " + gname + ": " + what + " in the body of this " + cons.name +
                " reads a value defined outside the body, which may be any element of any buffer; fusecert does not "
                "guess what the body reads, so the candidate is inconclusive")
        .notes.push_back(g.producer_note("weight-gradient producer here; decidable when the body reads only its block "
                                         "arguments and constants defined inside it"));
    return;
  }
  // A second contraction's result read by the update (a tied weight, as
  // the dependence slice finds in tensor form): summed with the gradient in
  // the body, two contractions produce W's gradient; read otherwise, which
  // producers the step has is not decided here.
  {
    std::vector<std::vector<bool>> reads(body.nodes.size(), std::vector<bool>(body.num_args, false));
    for (size_t n = 0; n < body.nodes.size(); ++n) {
      const ir::BodyNode& node = body.nodes[n];
      if (node.kind == ir::BodyNode::Kind::Arg && node.arg >= 0 && static_cast<unsigned>(node.arg) < body.num_args)
        reads[n][node.arg] = true;
      for (int o : node.operands)
        if (o >= 0 && static_cast<size_t>(o) < n)
          for (unsigned a = 0; a < body.num_args; ++a) reads[n][a] = reads[n][a] || reads[o][a];
    }
    for (int k = 0; k < cons.num_inputs && static_cast<size_t>(k) < cons.operands.size(); ++k) {
      if (k == c.consumer_operand) continue;
      const int v = cons.operands[k];
      const ir::Op* other = nullptr;
      for (int id2 : m.funcs[c.func].ops) {
        const ir::Op& op = m.ops[id2];
        if (id2 == c.producer || op.index > cons.index) continue;
        const ir::OpSpec* s = ir::spec_of(op);
        const bool contraction = op.kind == ir::Op::Kind::MatmulTransposeA || op.kind == ir::Op::Kind::Matmul ||
                                 (s && s->role == ir::OpRole::Contraction) ||
                                 (op.kind == ir::Op::Kind::Generic &&
                                  std::find(op.iterators.begin(), op.iterators.end(), "reduction") != op.iterators.end());
        const auto in = ir::inits(op);
        if (contraction && std::find(in.begin(), in.end(), v) != in.end()) other = &op;
      }
      if (!other) continue;
      bool summed = false;
      for (size_t n = 0; n < body.nodes.size(); ++n) {
        const ir::BodyNode& node = body.nodes[n];
        if (node.kind != ir::BodyNode::Kind::Op || !ir::sums(node.fn) || node.operands.size() != 2) continue;
        const int a = node.operands[0], b = node.operands[1];
        if (a < 0 || b < 0) continue;
        const unsigned gk = static_cast<unsigned>(c.consumer_operand), ok = static_cast<unsigned>(k);
        if ((reads[a][gk] && reads[b][ok]) || (reads[a][ok] && reads[b][gk])) summed = true;
      }
      const std::string pid = "P1.single_producer";
      const std::string pclaim = "one contraction produces the weight gradient: no contraction over other operands "
                                 "sums into it, and no other contraction reaches the updated values";
      if (summed) {
        g.structural(pid, pclaim, "violated",
                     "the " + cons.name + " at " + cons.loc.str() + " sums the result of " + other->name + " at " +
                         other->loc.str() + " (its input " + std::to_string(k) + ") with the gradient");
        g.error("P1", pid, cons.loc,
                "cannot fuse the update into the weight-gradient epilogue: this " + cons.name + " sums " + gname +
                    " with the result of a second contraction (" + other->name + " at " + other->loc.str() +
                    ", a tied weight), so no single producer's tile holds the finished gradient")
            .notes.push_back(g.producer_note("weight-gradient producer here; legal when one contraction (over the "
                                             "concatenated K) produces the gradient"));
      } else {
        g.structural(pid, pclaim, "missing",
                     "the " + cons.name + " reads the result of " + other->name + " at " + other->loc.str() +
                         " (its input " + std::to_string(k) + ") other than as a sum into the gradient");
        g.error("P1", pid, cons.loc,
                "cannot decide the producers of " + gname + ": this " + cons.name + " also reads the result of " +
                    other->name + " at " + other->loc.str() + "; fusecert certifies only a step whose update reads "
                    "no contraction but the gradient's, so the candidate is inconclusive")
            .notes.push_back(g.producer_note("weight-gradient producer here"));
      }
      return;
    }
  }
  // An update combines the gradient with a value the step holds (W, its
  // state): some yield reads the gradient's block argument and another input.
  bool reads_g = false, updates = false;
  for (const auto& args : yield_reads(body)) {
    const bool g_read = static_cast<unsigned>(c.consumer_operand) < args.size() && args[c.consumer_operand];
    bool other = false;
    for (int k = 0; k < cons.num_inputs && static_cast<size_t>(k) < args.size(); ++k)
      other = other || (k != c.consumer_operand && args[k]);
    reads_g = reads_g || g_read;
    updates = updates || (g_read && other);
  }
  if (!updates) {
    const std::string why = reads_g ? "its results are computed from the gradient and constants alone: it updates no "
                                      "weight or state"
                                    : "none of its results reads the gradient";
    g.structural(id, claim, "violated", "the " + cons.name + " at " + cons.loc.str() + " is no update: " + why);
    g.error("P1", id, cons.loc,
            "cannot fuse into the weight-gradient epilogue: the only use of " + gname + " is this " + cons.name +
                ", and " + why)
        .notes.push_back(g.producer_note("weight-gradient producer here; legal when its only use updates W (and its "
                                         "state) from the gradient"));
    return;
  }
  // Its results are computed from the gradient: an op after it that reads
  // a buffer it wrote (directly or through a view) continues the slice
  // (LAMB's norm of u, read back by the W update), which fusecert does not
  // follow on buffers. Returning them (or views of them) ends it; a
  // collective reducing one is reduce-into-state (the P3 guard's).
  if (c.form == ir::Form::Bufferized) {
    // The buffers that hold only this step's values: the gradient buffer and
    // those allocated in the step. A buffer updated in place (W) read after
    // the update is the in-place order guard's (P7).
    std::vector<int> alias;
    for (int v : ir::inits(cons)) {
      const int def = m.values[v].def_op;
      const bool fresh = def >= 0 && m.ops[def].kind == ir::Op::Kind::Alloc;
      if (m.values[v].type.kind == ir::Type::Kind::MemRef && (v == c.grad || fresh)) alias.push_back(v);
    }
    const ir::Op* reader = nullptr;
    for (int id2 : m.funcs[c.func].ops) {
      const ir::Op& op = m.ops[id2];
      if (op.index <= cons.index || reader) continue;
      const bool touches = std::any_of(op.operands.begin(), op.operands.end(), [&](int v) {
        return std::find(alias.begin(), alias.end(), v) != alias.end();
      });
      if (!touches || op.kind == ir::Op::Kind::Dealloc) continue;
      // A collective reducing a state it wrote is reduce-into-state, P3's.
      if (const ir::OpSpec* s = ir::spec_of(op); s && s->role == ir::OpRole::Collective) continue;
      if (op.access == ir::Op::Access::View) {
        for (int r : op.results) alias.push_back(r);
      } else if (op.access != ir::Op::Access::None) {
        auto in_alias = [&](int v) { return std::find(alias.begin(), alias.end(), v) != alias.end(); };
        const std::vector<int> read = op.access == ir::Op::Access::Inputs ? ir::inputs(op)
                                      : op.access == ir::Op::Access::Operand0
                                          ? std::vector<int>(op.operands.begin(), op.operands.begin() + 1)
                                          : op.operands;
        if (std::any_of(read.begin(), read.end(), in_alias)) reader = &op;
      }
    }
    if (reader) {
      g.structural(id, claim, "missing",
                   reader->name + " at " + reader->loc.str() + " reads a buffer the " + cons.name +
                       " wrote from the gradient");
      g.error("P1", id, reader->loc,
              "cannot follow the consumer of " + gname + ": this " + reader->name + " reads a buffer the " +
                  cons.name + " at " + cons.loc.str() + " wrote from the gradient, and fusecert does not follow a "
                  "bufferized slice past one op; it does not guess what the step computes, so the candidate is "
                  "inconclusive")
          .notes.push_back(g.producer_note("weight-gradient producer here; decidable on the IR on tensors (before buffers are assigned)"));
      return;
    }
  }
  g.structural(id, claim, "holds",
               "single use: operand " + std::to_string(c.consumer_operand) + " of the " + cons.name + " at " +
                   cons.loc.str() + ", an update whose body is read op by op (results combine the gradient with W "
                   "or its state)");
}

}  // namespace fusecert::guards
