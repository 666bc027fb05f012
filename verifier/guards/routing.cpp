// P5 guard, routing: `routing` must be declared; "conditional" (MoE experts
// that receive no gradient on some steps) is rejected unless a gradient-free
// decay pass (tessera.optim.decay) covers the same optimizer state. The SMT
// obligation compares the β-folded fused update with the correct per-step
// update over the reals on a routed-or-not step.
#include <algorithm>

#include <map>
#include <optional>
#include <set>

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

/// The unrouted pass of a linalg.generic consumer, found by dataflow over
/// the same state values (never by name; it may be several ops): the
/// gradient-free, element-wise linalg.generic ops (identity indexing maps,
/// parallel iterators, no operand computed from the gradient) that read W,
/// a state value, or a result of another such op. Each result of the
/// consumer is matched to one value the pass gives outside itself (a result
/// some op other than the pass's uses, the function's return included, that
/// reaches an output of the step: a dead pass is no pass) of
/// the same type, computed from the same held values (W, m, v) as the
/// consumer's body computes that result from.
struct UnroutedPass {
  std::vector<const ir::Op*> ops;  ///< in program order
  std::vector<int> outputs;        ///< the pass value standing for each consumer result
  bool ambiguous = false;          ///< some result had several candidates (the first was taken)
  std::string names() const {
    std::string s;
    for (const ir::Op* op : ops) s += (s.empty() ? "" : ", ") + op->name + " at " + op->loc.str();
    return s;
  }
};

bool elementwise(const ir::Op& op) {
  if (std::any_of(op.iterators.begin(), op.iterators.end(), [](const std::string& it) { return it != "parallel"; }))
    return false;
  for (const ir::AffineMap& mp : op.maps) {
    if (mp.num_symbols || mp.results.size() != mp.num_dims) return false;
    for (size_t i = 0; i < mp.results.size(); ++i)
      if (mp.results[i].kind != ir::AffineExpr::Kind::Dim || mp.results[i].value != static_cast<int64_t>(i)) return false;
  }
  return true;
}

/// The block arguments each node of `body` is computed from.
std::vector<std::set<int>> body_args(const ir::Body& body) {
  std::vector<std::set<int>> deps(body.nodes.size());
  for (size_t n = 0; n < body.nodes.size(); ++n) {  // operands precede their users
    const ir::BodyNode& node = body.nodes[n];
    if (node.kind == ir::BodyNode::Kind::Arg) deps[n].insert(node.arg);
    for (int o : node.operands)
      if (o >= 0 && o < static_cast<int>(n)) deps[n].insert(deps[o].begin(), deps[o].end());
  }
  return deps;
}

/// Whether `v` reaches an output of the step: the top-level return of its
/// function, through the results of the ops computed from it. A value only
/// a store or a region reads (an op without results) is not followed: a
/// pass value that reaches no output changes nothing a later step sees, so
/// it is no unrouted pass (fail closed: not counted for legality).
bool reaches_output(const ir::Module& m, int v) {
  std::vector<int> todo{v};
  std::set<int> seen{v};
  while (!todo.empty()) {
    const int x = todo.back();
    todo.pop_back();
    for (const auto& u : m.values[x].uses) {
      const ir::Op& op = m.ops[u.first];
      if (op.is_return && op.parent < 0) return true;
      for (int r : op.results)
        if (seen.insert(r).second) todo.push_back(r);
    }
  }
  return false;
}

std::optional<UnroutedPass> unrouted_pass(const GuardContext& g, const ir::Op& cons, const std::vector<int>& held) {
  if (cons.kind != ir::Op::Kind::Generic || !cons.body || held.empty() ||
      cons.body->yields.size() != cons.results.size())
    return std::nullopt;
  UnroutedPass p;
  std::set<int> reach(held.begin(), held.end()), in_pass;
  for (int id : g.m.funcs[g.c.func].ops) {
    const ir::Op& op = g.m.ops[id];
    if (op.id == cons.id || op.parent >= 0 || op.kind != ir::Op::Kind::Generic || !op.body || !elementwise(op))
      continue;
    const auto in = ir::inputs(op);
    if (std::none_of(in.begin(), in.end(), [&](int v) { return reach.count(v) > 0; })) continue;
    if (std::any_of(op.operands.begin(), op.operands.end(),
                    [&](int v) { return g.c.grad >= 0 && ir::depends_on(g.m, v, g.c.grad); }))
      continue;
    p.ops.push_back(&op);
    in_pass.insert(op.id);
    reach.insert(op.results.begin(), op.results.end());
  }
  if (p.ops.empty()) return std::nullopt;
  // The held values each pass result is computed from, through the scalar
  // bodies (a result of a multi-result op reads only the block arguments
  // its yield reads); a value from outside the pass, through its defining ops.
  std::map<int, std::set<int>> from_of;
  auto from_value = [&](int v) {
    if (auto it = from_of.find(v); it != from_of.end()) return it->second;
    std::set<int> from;
    for (int h : held)
      if (ir::depends_on(g.m, v, h)) from.insert(h);
    return from;
  };
  for (const ir::Op* op : p.ops) {
    const auto deps = body_args(*op->body);
    for (size_t r = 0; r < op->results.size(); ++r) {
      std::set<int> from;
      const int y = r < op->body->yields.size() ? op->body->yields[r] : -1;
      if (y < 0 || y >= static_cast<int>(deps.size())) return std::nullopt;
      for (int k : deps[y])
        if (k < static_cast<int>(op->operands.size())) {
          auto f = from_value(op->operands[k]);
          from.insert(f.begin(), f.end());
        }
      from_of[op->results[r]] = from;
    }
  }
  // The values the pass gives outside itself, with the held values each is computed from.
  std::vector<std::pair<int, std::set<int>>> given;
  for (const ir::Op* op : p.ops)
    for (int r : op->results) {
      const auto& uses = g.m.values[r].uses;
      if (std::all_of(uses.begin(), uses.end(), [&](auto& u) { return in_pass.count(u.first) > 0; }) ||
          !reaches_output(g.m, r))
        continue;
      given.emplace_back(r, from_of[r]);
    }
  const auto deps = body_args(*cons.body);
  std::set<int> taken;
  for (size_t r = 0; r < cons.results.size(); ++r) {
    std::set<int> from;
    const int y = cons.body->yields[r];
    if (y >= 0 && y < static_cast<int>(deps.size()))
      for (int k : deps[y])
        if (k < cons.num_inputs && k < static_cast<int>(cons.operands.size()) &&
            std::find(held.begin(), held.end(), cons.operands[k]) != held.end())
          from.insert(cons.operands[k]);
    int pick = -1, count = 0;
    for (auto& [v, vf] : given) {
      if (taken.count(v) || vf != from || g.m.values[v].type.text != g.m.values[cons.results[r]].type.text) continue;
      if (pick < 0) pick = v;
      ++count;
    }
    if (pick < 0) return std::nullopt;  // no pass value for this result: the pass does not cover it
    p.ambiguous = p.ambiguous || count > 1;
    taken.insert(pick);
    p.outputs.push_back(pick);
  }
  return p;
}

/// The consumer body's block arguments at g = 0: the gradient argument is 0,
/// each other input the variable `of` gives its operand, each init (outs)
/// argument its own variable.
template <class Of>
std::vector<z3::expr> args_at_zero_grad(const GuardContext& g, const ir::Op& cons, z3::context& ctx, Of&& of) {
  std::vector<z3::expr> args;
  for (size_t k = 0; k < cons.body->num_args; ++k)
    args.push_back(static_cast<int>(k) == g.c.consumer_operand ? ctx.real_val(0)
                   : k < cons.operands.size() && static_cast<int>(k) < cons.num_inputs
                       ? of(cons.operands[k])
                       : ctx.real_const(("consumer_out" + std::to_string(k)).c_str()));
  return args;
}

/// SMT-LIB2 (QF_NRA): ∃ inputs such that some result of the consumer's body
/// at g = 0 differs from the pass value matched to it, the pass's bodies
/// composed in program order. Each value the consumer or the pass reads
/// from outside is one variable; the gradient is 0; every init (outs) block
/// argument is its own variable. unsat: the pass is the body at g = 0 over
/// the reals (where −0 and +0 are one value: β·m + (1−β)·0 and β·m are
/// equal). nullopt when a body uses an op the real-number translation does
/// not model.
std::optional<std::string> zero_grad_query(const GuardContext& g, const ir::Op& cons, const UnroutedPass& pass) {
  z3::context ctx;
  smt::RealArith ra(ctx, {});
  std::map<int, z3::expr> var;  // value id -> its variable, or the pass's term for it
  auto of = [&](int v) {
    auto it = var.find(v);
    if (it == var.end()) it = var.emplace(v, ctx.real_const(("x" + std::to_string(v)).c_str())).first;
    return it->second;
  };
  for (const ir::Op* op : pass.ops) {
    std::vector<z3::expr> pa;
    for (size_t k = 0; k < op->body->num_args; ++k)
      pa.push_back(k < op->operands.size() && static_cast<int>(k) < op->num_inputs
                       ? of(op->operands[k])
                       : ctx.real_const(("pass" + std::to_string(op->id) + "_out" + std::to_string(k)).c_str()));
    auto po = ir::eval_body_reals(ra, *op->body, pa);
    if (!po || po->size() != op->results.size()) return std::nullopt;
    for (size_t r = 0; r < po->size(); ++r) var.insert_or_assign(op->results[r], (*po)[r]);
  }
  auto co = ir::eval_body_reals(ra, *cons.body, args_at_zero_grad(g, cons, ctx, of));
  if (!co || co->size() != cons.results.size()) return std::nullopt;
  smt::Query q(ctx);
  for (const auto& e : ra.side()) q.add(e);
  z3::expr differ = ctx.bool_val(false);
  for (size_t i = 0; i < co->size(); ++i) differ = differ || (*co)[i] != of(pass.outputs[i]);
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
  auto out = ir::eval_body_reals(ra, *cons.body, args_at_zero_grad(g, cons, ctx, of));
  if (!out || static_cast<size_t>(wr) >= out->size()) return std::nullopt;
  smt::Query q(ctx);
  for (const auto& e : ra.side()) q.add(e);
  q.add((*out)[wr] != of(w));
  return q.smt2();
}

/// A later linalg.generic of the consumer slice (Facts::stating_ops): the
/// update is a chain of ops, and the unrouted-step checks below read the
/// consumer (its first op) alone; nullptr when the consumer is one op.
const ir::Op* chain_op(const GuardContext& g) {
  for (size_t i = 1; i < g.facts.stating_ops.size(); ++i)
    if (g.m.ops[g.facts.stating_ops[i]].kind == ir::Op::Kind::Generic) return &g.m.ops[g.facts.stating_ops[i]];
  return nullptr;
}

/// The conditional routing's claim holds by `evidence` — unless the
/// consumer is a chain: what its first op does on an unrouted step is not
/// what the step does (a pass matched to the first op's results leaves the
/// later ops' W' unchecked), so the claim stays open (inconclusive, never
/// legal on part of the update).
void unrouted_holds(GuardContext& g, const std::string& id, const std::string& claim, const std::string& evidence) {
  const ir::Op* later = chain_op(g);
  if (!later) {
    g.structural(id, claim, "holds", evidence);
    return;
  }
  const ir::Op& cons = *g.consumer();
  g.structural(id, claim, "missing",
               evidence + "; but the update continues in " + later->name + " at " + later->loc.str() +
                   ", which that check does not read");
  g.warning("P5", id, cons.loc,
            "cannot decide the unrouted steps of this consumer: the update is a chain of ops (" + later->name +
                " continues it), and fusecert checks an unrouted step against one op; the candidate is inconclusive")
      .notes.push_back({later->loc, "the chain continues here"});
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
  const ir::Op* stating = cons;  // the op stating the routing
  if (g.facts.routed) {
    const ir::Attr* stated = g.stated("routing");
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
    a = g.fact("routing", "P5", id, "\"dense\" or \"conditional\"", &stating);
  }
  if (!a) return;
  if (a->kind != ir::Attr::Kind::String || (a->text != "dense" && a->text != "conditional")) {
    g.structural(id, claim, "missing", k_routing + " = " + a->text + " is not dense or conditional");
    g.error("P5", id, cons->loc, k_routing + " = " + a->text + " is not one of \"dense\", \"conditional\"");
    return;
  }
  const bool second = g.facts.second_moment;
  if (a->text == "dense") {
    g.structural(id, claim, "holds", k_routing + " = \"dense\" on " + stating->name + ": every step carries a gradient");
    return;
  }
  // What an unrouted step must do (the team's reference): shown by an
  // `unrouted` attribute or assumed; neither is inconclusive.
  const ir::Attr* ref = g.fact("unrouted", "P5", id,
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
          if (g.m.values[r].type.text == g.m.values[v].type.text && reaches_output(g.m, r)) writer = &op;
      }
      if (writer) break;
    }
    if (!writer) {
      unrouted_holds(g, id, claim,
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
  // A linalg consumer's pass is linalg ops (found by dataflow below), never
  // a table op of another dialect.
  const std::string pass_name = cons->kind == ir::Op::Kind::Generic ? cons->name + " ops computing the body at g = 0"
                                : pass                              ? pass->name
                                                                    : "a decay op";
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
    if (const auto pass = unrouted_pass(g, *cons, held)) {
      // The pass must equal the consumer's body at g = 0, proven over the
      // bodies (the team's reference for an unrouted step), not assumed
      // from its shape.
      const ir::Loc& at = pass->ops.front()->loc;
      const std::string what = pass->ops.size() == 1 ? "the gradient-free pass " + pass->names()
                                                     : "the gradient-free pass of " + std::to_string(pass->ops.size()) +
                                                           " ops (" + pass->names() + ")";
      const std::string pclaim = what + " computes the consumer's body at g = 0 (every result, over the reals)";
      const auto q = zero_grad_query(g, *cons, *pass);
      if (!q) {
        // What the translation did not model, first the consumer's (a
        // captured value that is not a constant: what it is, the IR does
        // not show).
        std::string untranslated;
        if (cons->body && !cons->body->unsupported.empty())
          untranslated = cons->body->unsupported.front() + " in " + cons->name;
        for (const ir::Op* o : pass->ops)
          if (o->body && !o->body->unsupported.empty() && untranslated.empty())
            untranslated = o->body->unsupported.front() + " in the pass's " + o->name;
        const std::string which = untranslated.empty() ? std::string() : " (" + untranslated + ")";
        g.structural(id, claim, "missing",
                     "the bodies of " + cons->name + " and " + what + " use an op the real-number translation does "
                     "not model" + which);
        g.error("P5", id, at,
                "cannot decide whether this pass is the body of " + cons->name + " at g = 0: its body or the "
                "consumer's uses an op fusecert cannot translate" + which);
        return;
      }
      auto& o = g.smt("P5.decay_pass", pclaim, *q, "unsat", "QF_NRA");
      if (o.answer == "unsat") {
        unrouted_holds(g, id, claim,
                     k_routing + " = \"conditional\", unrouted = \"dense_zero_grad\": " + what +
                         " is proven to compute the body at g = 0 on unrouted steps");
        return;
      }
      // A sat answer is a counterexample only for the one matching of pass
      // values to results the dataflow gave; when another was possible the
      // verdict is not known (fail closed, never illegal on a guess).
      const bool violated = o.answer == "sat" && !pass->ambiguous;
      g.structural(id, claim, violated ? "violated" : "missing",
                   what + " is not proven equal to the body at g = 0 (" + o.answer + ")" +
                       (pass->ambiguous ? "; several of its values could stand for one result of " + cons->name : ""));
      auto& d = g.error("P5", id, at,
                        violated ? "cannot fold the unrouted steps of " + cons->name + " into this pass: Z3 finds W and "
                                   "state values where it differs from the routed body at g = 0 (unrouted = "
                                   "\"dense_zero_grad\")"
                        : o.answer == "sat"
                            ? "could not decide whether this pass equals the body of " + cons->name +
                                  " at g = 0: several of its values have the type and the inputs of one result, and "
                                  "the one matched differs"
                            : "could not decide whether this pass equals the body of " + cons->name +
                                  " at g = 0: the solver answered " + o.answer);
      d.notes.push_back(g.producer_note("weight-gradient producer here; legal when the unrouted pass computes the "
                                        "same body with g = 0 (m and v decay, W moves)"));
      return;
    }
  }
  if (decay) {
    unrouted_holds(g, id, claim,
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
      unrouted_holds(g, id, claim,
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
               k_routing + " = \"conditional\", unrouted = \"dense_zero_grad\" on " + cons->name + " and no pass (" + pass_name + ")" +
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
