// P2 — exact global-norm clipping cannot be fused into the epilogue.
// Source: propositions.md §P2 (the assessment's identity and impossibility).
//
//  P2.identity.m  (unsat) m_t(c) − c·m_t(1) = (1−c)·β₁·m_{t−1}, over the reals
//  P2.identity.v  (unsat) v_t(c) − c²·v_t(1) = (1−c²)·β₂·v_{t−1}
//  P2.recover.m   (sat)   two states agree on all an epilogue keeps in O(1)
//                         space (m_t(1), c, ‖g‖) yet differ in m_t(c)
//  P2.recover.v   (sat)   the same for v
// Verdict: refuted when the identities hold and some moment is not
// recoverable; holds when both are recoverable (e.g. β₁ = β₂ = 0 or c = 1).
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;
}

FUSECERT_ENCODER(encode_P2) {
  (void)spec;
  auto h = hyper_from(params);
  const double c = rparam(params, "c", 0, false, 1, true);  // c = min(1, τ/‖g‖) ∈ (0, 1]
  auto k = h.constants();
  if (opt.mutations.count("P2.swap_beta")) std::swap(k["beta1"], k["beta2"]);  // mutation: β₁ ↔ β₂ in the identity
  const Param& cp = params.at("c");

  // Identities.
  for (const char* which : {"m", "v"}) {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    smt::RealArith idk(ctx, k);
    z3::expr prev = re.var(std::string(which) + "_prev"), g = re.var("g"), cc = ctx.real_val(smt::exact_decimal(cp.value).c_str());
    bool is_m = which[0] == 'm';
    z3::expr clipped = is_m ? model::adam_m(re, prev, cc * g) : model::adam_v(re, prev, cc * g);
    z3::expr unclipped = is_m ? model::adam_m(re, prev, g) : model::adam_v(re, prev, g);
    z3::expr scale = is_m ? cc : cc * cc;
    z3::expr rhs = (1 - scale) * idk.c(is_m ? "beta1" : "beta2") * prev;
    smt::Query q(ctx);
    q.add(!(clipped - scale * unclipped == rhs));
    discharge(out, std::string("P2.identity.") + which,
              is_m ? "m_t(c) - c*m_t(1) = (1-c)*beta1*m_{t-1} for all m_{t-1}, g"
                   : "v_t(c) - c^2*v_t(1) = (1-c^2)*beta2*v_{t-1} for all v_{t-1}, g",
              Scope{"reals", std::string(which) + "_{t-1}, g",
                    fixed_params(params, {"c", is_m ? "beta1" : "beta2"}), ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  // Impossibility of recovery from O(1) data.
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
  auto proved = [](const Obligation& o) { return o.decided() && o.result == Answer::Unsat; };
  bool identities = proved(ob[0]) && proved(ob[1]);
  bool m_unrecoverable = ob[2].result == Answer::Sat, v_unrecoverable = ob[3].result == Answer::Sat;
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  if (!identities)
    out.notes.push_back("an identity obligation did not hold: the encoding does not support the argument");
  if (proved(ob[2]))
    out.notes.push_back("with beta1 = " + params.at("beta1").text + ", c = " + cp.text +
                        " the first moment IS recoverable from m_t(1) (m_t(c) = c*m_t(1) + (1-c)*beta1*m_{t-1} needs no "
                        "O(P) tensor)");
  if (proved(ob[3]))
    out.notes.push_back("with beta2 = " + params.at("beta2").text + ", c = " + cp.text +
                        " the second moment IS recoverable from v_t(1)");
  if (proved(ob[2]) && v_unrecoverable)
    out.notes.push_back("the second moment still is not recoverable: exact fusion still needs an O(P) tensor");
  const Obligation* sat_ob = v_unrecoverable ? &ob[3] : (m_unrecoverable ? &ob[2] : nullptr);
  if (identities && sat_ob) {
    bool is_m = sat_ob->id.back() == 'm';
    std::string w = is_m ? "m" : "v";
    double s1 = model_double(*sat_ob, w + "_prev"), s2 = model_double(*sat_ob, w + "_prev_alt");
    double g1 = model_double(*sat_ob, "g"), g2 = model_double(*sat_ob, "g_alt");
    auto step = [&](double s, double g) {
      return is_m ? h.beta1 * s + (1 - h.beta1) * g : h.beta2 * s + (1 - h.beta2) * g * g;
    };
    Counterexample cx = counterexample_from(
        *sat_ob, "the epilogue's O(1) data (" + w + "_t(1), c, ||g||) is equal for both states, " + w +
                     "_t(c) differs: exact clipping needs the whole previous " + w + " tensor");
    cx.replay = {{w + "_t(1)", fmt_exact(step(s1, g1))}, {w + "_t(1)_alt", fmt_exact(step(s2, g2))},
                 {w + "_t(c)", fmt(step(s1, c * g1))}, {w + "_t(c)_alt", fmt(step(s2, c * g2))}};
    double tol = 1e-9 * (1 + std::fabs(step(s1, g1)));
    cx.replay_confirms = std::fabs(step(s1, g1) - step(s2, g2)) <= tol && std::fabs(step(s1, c * g1) - step(s2, c * g2)) > tol;
    out.counterexample = cx;
  }
}

}  // namespace fusecert::verifier::props
