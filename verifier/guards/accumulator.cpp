// P6 guard, accumulator: the accumulator dtype must be declared (tessera:
// numeric_policy = {accum, storage}; linalg: the producer's result element
// type) and is carried to the epilogue. Whether the precision gain of reading
// the accumulator instead of the stored gradient is realizable depends on the
// state dtype: the error-budget bound gain ≤ 1 + u_grad / u_state is proven
// over the reals, and a bound ≤ 2 (bf16 state) becomes a warning.
#include <cmath>

#include "verifier/guards/guards.h"
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

}  // namespace

void guard_accumulator(GuardContext& g) {
  const ir::Op& p = g.producer();
  const std::string id = "P6.accumulator";
  std::string accum, storage;
  if (p.dialect() == "tessera") {
    const ir::Attr* np = g.require(p, "numeric_policy", "P6", id, "a dictionary {accum = \"f32\", storage = \"bf16\"}");
    if (!np) return;
    const ir::Attr* a = np->get("accum");
    const ir::Attr* s = np->get("storage");
    if (!a || !s) {
      std::string k = !a ? "accum" : "storage";
      g.structural(id, "the accumulator dtype is declared and carried to the epilogue", "missing",
                   "numeric_policy lacks '" + k + "'");
      g.error("P6", id, p.loc, "missing semantic key 'numeric_policy." + k + "' on " + p.name +
                                   ": fusecert does not assume the accumulator or storage dtype");
      return;
    }
    accum = a->text;
    storage = s->text;
  } else {
    accum = storage = g.m.values[g.c.grad].type.elem;
  }
  g.structural(id, "the accumulator dtype is declared and carried to the epilogue", "holds",
               "accumulator " + accum + ", gradient storage " + storage);
  // State dtype.
  std::string state;
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  if (cons->dialect() == "tessera") {
    if (g.out.recognized == "sgd") return;  // no state: nothing can mask the gain
    const ir::Attr* sd = g.require(*cons, "state_dtype", "P6", "P6.state_dtype", "the element type of the optimizer state, e.g. \"f32\"");
    if (!sd) return;
    state = sd->text;
  } else if (!g.out.state_values.empty()) {
    state = g.m.values[g.out.state_values[0]].type.elem;
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
  if (o.actual == "unsat" && bound <= 2.0) {
    auto& d = g.warning("P6", "P6.gain_bound", cons->loc,
                        "fusion removes " + storage + " gradient rounding but " + state +
                            " state masks it: the precision gain is at most " + smt::exact_decimal(bound) +
                            "x (proved)");
    d.notes.push_back(g.producer_note("the " + accum + " accumulator reaches the epilogue here; keep the optimizer "
                                      "state in f32 (state_dtype = \"f32\") to realise the gain"));
  }
}

}  // namespace fusecert::guards
