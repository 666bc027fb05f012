// P2 — exact global-norm clipping cannot be fused into the epilogue.
// Source: propositions.md §P2 (the assessment's identity and impossibility).
//
//  P2.identity.m  (unsat) m_t(c) − c·m_t(1) = (1−c)·β₁·m_{t−1}, over the reals,
//                         for all c ∈ (0,1], β₁ ∈ [0,1) (QF_NRA)
//  P2.identity.v  (unsat) v_t(c) − c²·v_t(1) = (1−c²)·β₂·v_{t−1}, for all c, β₂
//  P2.impossible.m (unsat) for all c, β₁ ∈ (0,1) and ‖g‖: a closed-form pair of
//                         states agrees on all an epilogue keeps in O(1) space
//                         (m_t(1), c, ‖g‖) yet differs in m_t(c) (QF_NRA)
//  P2.impossible.v (unsat) the same for v, β₂ ∈ (0,1)
//  P2.recover.m   (sat)   at the given c, β₁: such a pair exists (solver model, replayed)
//  P2.recover.v   (sat)   the same for v
// Verdict: refuted when the identities hold and some moment is not
// recoverable; holds when both are recoverable (e.g. β₁ = β₂ = 0 or c = 1).
#include <stdexcept>
#include <string>

#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

// The real arithmetic of model::adam_m / adam_v with β₁ and β₂ the symbolic
// constants `beta1`, `beta2` (and one_minus_beta* their complements) instead
// of the parameters' values: a query over it covers every β, not one.
struct SymbolicBetas {
  using T = z3::expr;
  z3::context& ctx;
  T c(const std::string& name) const {
    if (name == "beta1" || name == "beta2") return ctx.real_const(name.c_str());
    if (name == "one_minus_beta1") return 1 - c("beta1");
    if (name == "one_minus_beta2") return 1 - c("beta2");
    throw std::invalid_argument("unknown constant '" + name + "' in P2's symbolic identity");
  }
  T add(const T& a, const T& b) const { return a + b; }
  T mul(const T& a, const T& b) const { return a * b; }
};
}  // namespace

FUSECERT_ENCODER(encode_P2) {
  (void)spec;
  auto h = hyper_from(params);
  const double c = rparam(params, "c", 0, false, 1, true);  // c = min(1, τ/‖g‖) ∈ (0, 1]
  const Param& cp = params.at("c");

  // Identities, for every c ∈ (0,1] and β ∈ [0,1) (the values the parameters
  // accept), over the model's update (QF_NRA): the parameters' values do not
  // enter the query.
  for (const char* which : {"m", "v"}) {
    z3::context ctx;
    SymbolicBetas sb{ctx};
    const bool is_m = which[0] == 'm';
    const std::string beta = is_m ? "beta1" : "beta2";
    z3::expr prev = ctx.real_const((std::string(which) + "_prev").c_str()), g = ctx.real_const("g"),
             cc = ctx.real_const("c"), b = sb.c(beta);
    z3::expr clipped = is_m ? model::adam_m(sb, prev, cc * g) : model::adam_v(sb, prev, cc * g);
    z3::expr unclipped = is_m ? model::adam_m(sb, prev, g) : model::adam_v(sb, prev, g);
    z3::expr scale = is_m ? cc : cc * cc;
    // mutation P2.swap_beta: the right-hand side reads the other moment's β
    const std::string rhs_beta = opt.mutations.count("P2.swap_beta") ? (is_m ? "beta2" : "beta1") : beta;
    z3::expr rhs = (1 - scale) * sb.c(rhs_beta) * prev;
    smt::Query q(ctx);
    q.add(cc > 0 && cc <= 1 && b >= 0 && b < 1);
    q.add(!(clipped - scale * unclipped == rhs));
    discharge(out, std::string("P2.identity.") + which,
              is_m ? "m_t(c) - c*m_t(1) = (1-c)*beta1*m_{t-1} for all c in (0,1], beta1 in [0,1), m_{t-1}, g"
                   : "v_t(c) - c^2*v_t(1) = (1-c^2)*beta2*v_{t-1} for all c in (0,1], beta2 in [0,1), v_{t-1}, g",
              Scope{"reals (QF_NRA)",
                    "c in (0,1], " + beta + " in [0,1) (every value the parameters accept), " + which + "_{t-1}, g",
                    "", ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  // Impossibility for every c ∈ (0,1), β ∈ (0,1) and gradient norm: a witness
  // pair in closed form. Two elements of the gradient, (x, y) and its swap
  // (y, x), have the same norm √(x² + y² + r) (r: the other elements); the
  // second state's moments are chosen so that the unclipped moments the
  // epilogue wrote agree element by element; then the clipped moments differ.
  // Unsat of the negation proves it for all parameters (QF_NRA).
  for (const char* which : {"m", "v"}) {
    z3::context ctx;
    const bool is_m = which[0] == 'm';
    auto R = [&](const std::string& n) { return ctx.real_const(n.c_str()); };
    // For v the pair is (x, 0) and (0, x), and the second element's moment is
    // k + w (w >= 0): v stays >= 0 in both states, and every premise is
    // linear, so another solver (cvc5) also finds them satisfiable.
    z3::expr b = R(is_m ? "beta1" : "beta2"), c = R("c"), x = R("x"), r = R("norm_rest");
    z3::expr y = is_m ? R("y") : ctx.real_val(0);
    z3::expr s1 = R(std::string(which) + "1"), w = R("w");
    // m: the moment of g, v: of g². The state update is s' = b·s + (1 − b)·h(g).
    auto h = [&](const z3::expr& g) { return is_m ? g : g * g; };
    auto step = [&](const z3::expr& s, const z3::expr& g) { return b * s + (1 - b) * h(g); };
    auto clipped = [&](const z3::expr& s, const z3::expr& g) { return b * s + (1 - b) * h(c * g); };
    z3::expr k = (1 - b) * (h(x) - h(y)) / b;   // moves the unclipped moment by exactly the gradient's change
    z3::expr s2 = is_m ? R(std::string(which) + "2") : k + w;
    z3::expr s1_alt = s1 + k, s2_alt = s2 - k;  // the second state: gradient (y, x), moments (s1 + k, s2 − k)
    smt::Query q(ctx);
    q.add(b > 0 && b < 1 && c > 0 && c < 1 && r >= 0);
    if (is_m) {
      q.add(x != y);
    } else {
      q.add(x != 0 && s1 >= 0 && w >= 0);
    }
    z3::expr agree = step(s1, x) == step(s1_alt, y) && step(s2, y) == step(s2_alt, x) &&
                     x * x + y * y + r == y * y + x * x + r;  // same unclipped moments, same ‖g‖ (so the same c)
    z3::expr valid = is_m ? ctx.bool_val(true) : (s1_alt >= 0 && s2_alt >= 0);
    z3::expr differ = !(clipped(s1, x) == clipped(s1_alt, y));
    q.add(!(valid && agree && differ));
    discharge(out, std::string("P2.impossible.") + which,
              std::string("for every clip scale c in (0,1), ") + (is_m ? "beta1" : "beta2") +
                  " in (0,1) and gradient norm, the closed-form pair (gradients " + (is_m ? "(x, y) and (y, x)" : "(x, 0) and (0, x)") +
                  ", moments (" + which + "1, " + which + "2) and (" + which + "1 + k, " + which + "2 - k), k = (1-b)*" +
                  (is_m ? "(x - y)" : "x^2") + "/b" + (is_m ? "" : ", v2 = k + w with w >= 0") + ") agrees on the unclipped " + which +
                  "_t(1), c and ||g|| yet has different " + which + "_t(c)",
              Scope{"reals (QF_NRA)",
                    std::string("c in (0,1), ") + (is_m ? "beta1" : "beta2") +
                        " in (0,1), the gradient elements " + (is_m ? "x != y" : "x != 0") +
                        ", the rest of the squared norm r >= 0 (so ||g|| is a variable), the moments",
                    "", ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  // Impossibility of recovery from O(1) data, at the given parameters (a
  // concrete pair from the solver, replayed in C++; beta1 = 0 makes the
  // first moment recoverable, which only this fixed instance can show).
  for (const char* which : {"m", "v"}) {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    bool is_m = which[0] == 'm';
    z3::expr s1 = re.var(std::string(which) + "_prev"), g1 = re.var("g"), s2 = re.var(std::string(which) + "_prev_alt"),
             g2 = re.var("g_alt"), cc = ctx.real_val(smt::exact_decimal(cp.value).c_str());
    auto step = [&](const z3::expr& s, const z3::expr& g) {
      return is_m ? model::adam_m(re, s, g) : model::adam_v(re, s, g);
    };
    smt::Query q(ctx);
    if (!is_m) q.add(s1 >= 0 && s2 >= 0);
    q.add(step(s1, g1) == step(s2, g2));        // same unclipped moment: what the epilogue wrote
    q.add(!(step(s1, cc * g1) == step(s2, cc * g2)));  // yet different clipped moments
    discharge(out, std::string("P2.recover.") + which,
              std::string("two states with equal unclipped ") + which + "_t(1), equal c and ||g|| have different " +
                  which + "_t(c): no O(1) recovery function exists",
              Scope{"reals", std::string("both states (") + which + "_{t-1}, g) and (" + which + "'_{t-1}, g')",
                    fixed_params(params, {"c", is_m ? "beta1" : "beta2"}) +
                        "; ||g|| is not a variable (both states share c, which is all of ||g|| the query sees)",
                    ""},
              q, Answer::Sat, opt.timeout_ms);
  }
  const auto& ob = out.obligations;
  // Notes read only decided answers (an unsat over unsat premises proves nothing).
  auto proved = [](const Obligation& o) { return o.decided() && o.smt_answer() == Answer::Unsat; };
  bool identities = proved(ob[0]) && proved(ob[1]);
  const Obligation &rec_m = ob[4], &rec_v = ob[5];
  bool m_unrecoverable = rec_m.smt_answer() == Answer::Sat, v_unrecoverable = rec_v.smt_answer() == Answer::Sat;
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  if (!identities)
    out.notes.push_back("an identity obligation did not hold: the encoding does not support the argument");
  if (!proved(ob[2]) || !proved(ob[3]))
    out.notes.push_back("the impossibility for all c, beta in (0,1) and ||g|| was not proved: what remains is the "
                        "fixed instance below");
  if (proved(rec_m))
    out.notes.push_back("with beta1 = " + params.at("beta1").text + ", c = " + cp.text +
                        " the first moment IS recoverable from m_t(1) (m_t(c) = c*m_t(1) + (1-c)*beta1*m_{t-1} needs no "
                        "O(P) tensor)");
  if (proved(rec_v))
    out.notes.push_back("with beta2 = " + params.at("beta2").text + ", c = " + cp.text +
                        " the second moment IS recoverable from v_t(1)");
  if (proved(rec_m) && v_unrecoverable)
    out.notes.push_back("the second moment still is not recoverable: exact fusion still needs an O(P) tensor");
  const Obligation* sat_ob = v_unrecoverable ? &rec_v : (m_unrecoverable ? &rec_m : nullptr);
  if (identities && sat_ob) out.counterexample = replay_recovery(*sat_ob, h, c);
}

Counterexample replay_recovery(const Obligation& ob, const model::Hyper& h, double c) {
  bool is_m = ob.id.back() == 'm';
  std::string w = is_m ? "m" : "v";
  double s1 = model_double(ob, w + "_prev"), s2 = model_double(ob, w + "_prev_alt");
  double g1 = model_double(ob, "g"), g2 = model_double(ob, "g_alt");
  auto step = [&](double s, double g) {
    return is_m ? h.beta1 * s + (1 - h.beta1) * g : h.beta2 * s + (1 - h.beta2) * g * g;
  };
  Counterexample cx = counterexample_from(
      ob, "the epilogue's O(1) data (" + w + "_t(1), c, ||g||) is equal for both states, " + w +
              "_t(c) differs: exact clipping needs the whole previous " + w + " tensor");
  cx.replay = {{w + "_t(1)", fmt_exact(step(s1, g1))}, {w + "_t(1)_alt", fmt_exact(step(s2, g2))},
               {w + "_t(c)", fmt(step(s1, c * g1))}, {w + "_t(c)_alt", fmt(step(s2, c * g2))}};
  // The model's decimals are exact rationals rounded to doubles: equal
  // unclipped moments agree to rounding, a real difference is far larger.
  double tol = 1e-9 * (1 + std::fabs(step(s1, g1)));
  cx.replay_confirms =
      std::fabs(step(s1, g1) - step(s2, g2)) <= tol && std::fabs(step(s1, c * g1) - step(s2, c * g2)) > tol;
  return cx;
}

}  // namespace fusecert::verifier::props
