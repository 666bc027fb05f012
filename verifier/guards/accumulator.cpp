// P6 guard, accumulator: the accumulator dtype must be declared (tessera:
// numeric_policy = {accum, storage}; linalg: the producer's result element
// type) and is carried to the epilogue. Whether the precision gain of reading
// the accumulator instead of the stored gradient is realizable depends on the
// state dtype: the error-budget bound gain ≤ 1 + u_grad / u_state is proven
// over the reals, and a bound ≤ 2 (bf16 state) becomes a warning.
#include <cmath>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/smt/arith.h"

namespace fusecert::guards {

namespace {

/// Unit roundoff of a storage format.
double unit_roundoff(const std::string& t) {
  if (t == "bf16") return std::ldexp(1.0, -8);
  if (t == "f16") return std::ldexp(1.0, -11);
  if (t == "f64") return std::ldexp(1.0, -53);
  return std::ldexp(1.0, -24);  // f32
}

/// SMT-LIB2 (QF_NRA): with gradient-rounding error e_g ≤ u_grad and state
/// error e_s ≥ u_state > 0, the gain (e_g + e_s) / e_s exceeds 1 + u_grad/u_state.
std::string gain_query(double ug, double us) {
  z3::context ctx;
  smt::Query q(ctx);
  z3::expr eg = ctx.real_const("e_grad"), es = ctx.real_const("e_state"), gain = ctx.real_const("gain");
  z3::expr UG = ctx.real_val(smt::exact_decimal(ug).c_str()), US = ctx.real_val(smt::exact_decimal(us).c_str());
  q.add(eg >= 0 && eg <= UG && es >= US && gain * es == eg + es);
  q.add(gain > 1 + UG / US);
  return q.smt2();
}

/// The floating-point formats fusecert models (unit roundoff above). Any
/// other dtype string is a diagnostic, never a guess.
bool known_dtype(const std::string& t) { return t == "f64" || t == "f32" || t == "bf16" || t == "f16"; }

}  // namespace

void guard_accumulator(GuardContext& g) {
  const ir::Op& p = g.producer();
  const std::string id = "P6.accumulator";
  std::string accum, storage;
  // Keys by meaning: the producer's dialect table says how it spells them.
  const std::string k_policy = ir::key_of(p, "numeric_policy"), k_accum = ir::key_of(p, "accum"),
                    k_storage = ir::key_of(p, "storage");
  // The table path when the producer's entry declares the numeric-policy
  // key; otherwise the accumulator is the contraction's result type.
  if (g.facts.producer_spec && g.facts.producer_spec->attrs.count(k_policy)) {
    const ir::Attr* np = g.require(p, k_policy, "P6", id,
                                   "a dictionary {" + k_accum + " = \"f32\", " + k_storage + " = \"bf16\"}");
    if (!np) return;
    const ir::Attr* a = np->get(k_accum);
    const ir::Attr* s = np->get(k_storage);
    if (!a || !s) {
      std::string k = !a ? k_accum : k_storage;
      g.structural(id, "the accumulator dtype is declared and carried to the epilogue", "missing",
                   k_policy + " lacks '" + k + "'");
      g.error("P6", id, p.loc, "missing semantic key '" + k_policy + "." + k + "' on " + p.name +
                                   ": fusecert does not assume the accumulator or storage dtype");
      return;
    }
    accum = a->text;
    storage = s->text;
    for (auto [key, at] : {std::pair<std::string, const ir::Attr*>{k_accum, a}, {k_storage, s}}) {
      if (at->kind == ir::Attr::Kind::String && known_dtype(at->text)) continue;
      g.structural(id, "the accumulator dtype is declared and carried to the epilogue", "missing",
                   k_policy + "." + key + " = " + at->text + " is not a dtype fusecert knows (f64, f32, bf16, f16)");
      g.error("P6", id, p.loc, k_policy + "." + key + " = " + at->text + " on " + p.name +
                                   " is not one of \"f64\", \"f32\", \"bf16\", \"f16\": fusecert does not guess a dtype");
      return;
    }
  } else {
    accum = storage = g.m.values[g.c.grad].type.elem;
  }
  g.structural(id, "the accumulator dtype is declared and carried to the epilogue", "holds",
               "accumulator " + accum + ", gradient storage " + storage);
  // A half-precision accumulator: the K sum itself is rounded to 8 (bf16) or
  // 11 (f16) significand bits, so the epilogue reads nothing finer than the
  // stored gradient. Fusion stays legal (it changes no bits), but the
  // precision gain P6 is about is not realizable: say so.
  if (unit_roundoff(accum) > unit_roundoff("f32")) {
    // Where the accumulator dtype comes from, and so what to change: the
    // table's numeric-policy key (Tessera), or the contraction's result
    // element type (linalg, StableHLO: JAX's preferred_element_type).
    const bool keyed = g.facts.producer_spec && g.facts.producer_spec->attrs.count(k_policy);
    const std::string source = keyed ? k_policy + "." + k_accum : "the result element type of " + p.name;
    const std::string fix = keyed ? k_policy + "." + k_accum + " = \"f32\""
                                  : "an f32 result type on " + p.name + " (in JAX: preferred_element_type=jnp.float32 "
                                    "on the matmul), converting to " + storage + " after it";
    auto& d = g.warning("P6", id, p.loc,
                        "accumulator dtype " + accum + " (" + source + "): the K sum is rounded to " + accum +
                            ", so the fused epilogue reads no more precision than the stored " + storage +
                            " gradient; fusion is legal but the precision gain is not realizable");
    d.notes.push_back(g.producer_note("accumulate in f32 (" + fix + ") to realise the gain"));
  }
  // State dtype.
  std::string state;
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  if (g.facts.consumer_spec) {
    // An optimizer that keeps no state (the table gives it no state
    // operand) has nothing that can mask the gain, so the key is optional;
    // when it is declared anyway its value is still checked.
    const std::string k_state = ir::key_of(*cons, "state_dtype");
    const bool stateless = g.facts.state_values.empty();
    if (stateless && !cons->attr(k_state)) return;
    const ir::Attr* sd = g.require(*cons, k_state, "P6", "P6.state_dtype", "the element type of the optimizer state, e.g. \"f32\"");
    if (!sd) return;
    if (sd->kind != ir::Attr::Kind::String || !known_dtype(sd->text)) {
      g.structural("P6.state_dtype", "the optimizer state dtype is declared", "missing",
                   k_state + " = " + sd->text + " on " + cons->name + " is not a dtype fusecert knows (f64, f32, bf16, f16)");
      g.error("P6", "P6.state_dtype", cons->loc,
              k_state + " = " + sd->text + " on " + cons->name +
                  " is not one of \"f64\", \"f32\", \"bf16\", \"f16\": fusecert does not guess a dtype");
      return;
    }
    if (stateless) return;
    state = sd->text;
  } else if (!g.facts.state_values.empty()) {
    state = g.m.values[g.facts.state_values[0]].type.elem;
  } else {
    return;
  }
  double ug = unit_roundoff(storage), us = unit_roundoff(state);
  if (ug <= unit_roundoff(accum)) return;  // storage no coarser than the accumulator: no gain to realise
  double bound = 1 + ug / us;
  auto& o = g.smt("P6.gain_bound",
                  "the precision gain of the fused epilogue is at most 1 + u(" + storage + ")/u(" + state + ") = " +
                      smt::exact_decimal(bound) + " (error-budget model over the reals)",
                  memo_query("gain:" + std::to_string(ug) + ":" + std::to_string(us), [&] { return gain_query(ug, us); }), "unsat", "QF_NRA", /*decides=*/false);
  o.evidence = "accumulator " + accum + ", storage " + storage + ", state " + state;
  if (o.answer == "unsat" && o.decided() && bound <= 2.0) {
    auto& d = g.warning("P6", "P6.gain_bound", cons->loc,
                        "fusion removes " + storage + " gradient rounding but " + state +
                            " state masks it: the precision gain is at most " + smt::exact_decimal(bound) +
                            "x (proved)");
    d.notes.push_back(g.producer_note("the " + accum + " accumulator reaches the epilogue here; keep the optimizer "
                                      "state in f32 (" + ir::key_of(*cons, "state_dtype") + " = \"f32\") to realise the gain"));
  }
}

}  // namespace fusecert::guards
