// P2c — clipping is exact under SGD: W − η·(c·g) = W − (η·c)·g over the reals,
// so the clip scale folds into the learning rate. In binary32 the two
// associations may round differently: the concrete ulp counterexample is
// reported, not bit equality. Source: propositions.md §P2c.
//
//  P2c.fold.reals        (unsat) the identity over the reals
//  P2c.rounding.binary32 (sat)   η⊗(c⊗g) ≠ (η⊗c)⊗g for some finite c, g (so with W = 0
//                                 the two weight updates differ)
#include <cmath>

#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/smt/values.h"
#include "verifier/witness/numeric.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

long ulp_distance(float a, float b) {
  auto key = [](float x) {
    int32_t i = static_cast<int32_t>(witness::bits_of(x));
    return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
  };
  return static_cast<long>(std::llabs(key(a) - key(b)));
}
}  // namespace

FUSECERT_ENCODER(encode_P2c) {
  (void)spec;
  auto h = hyper_from(params);
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr W = re.var("W"), g = re.var("g"), c = re.var("c"), lr = re.c("lr");
    smt::Query q(ctx);
    q.add(!(W - lr * (c * g) == W - (lr * c) * g));
    discharge(out, "P2c.fold.reals", "W - lr*(c*g) = W - (lr*c)*g for all W, g, c (reals)",
              Scope{"reals", "W, g, c", fixed_params(params, {"lr"}), ""}, q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::FpArith fp(ctx, 8, 24, h.constants());
    // The update term alone (W = 0): W − x and W − y differ whenever x ≠ y here.
    z3::expr g = fp.var("g"), c = fp.var("c"), lr = fp.c("lr");
    z3::expr a = lr * (c * g), b = (lr * c) * g;
    smt::Query q(ctx);
    q.add(smt::FpArith::finite(g) && smt::FpArith::finite(a) && smt::FpArith::finite(b));
    // Realistic ranges: a clip scale of at least 2^-10 and a normal gradient
    // element of magnitude in [2^-20, 2^20].
    q.add(c >= fp.num(std::ldexp(1.0, -10)) && c <= fp.num(1.0));
    q.add(z3::abs(g) >= fp.num(std::ldexp(1.0, -20)) && z3::abs(g) <= fp.num(std::ldexp(1.0, 20)));
    q.add(!(a == b));
    auto& ob = discharge(out, "P2c.rounding.binary32",
                         "in binary32 the two associations of the update can round differently (no bit-equality claim)",
                         Scope{"binary32", "g with |g| in [2^-20, 2^20], c in [2^-10, 1]", fixed_params(params, {"lr"}), ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      float Wf = 0.0f, gf = static_cast<float>(model_double(ob, "g"));
      float cf = static_cast<float>(model_double(ob, "c")), lrf = static_cast<float>(h.lr);
      float x = Wf - lrf * (cf * gf), y = Wf - (lrf * cf) * gf;
      long d = ulp_distance(x, y);
      Counterexample cx = counterexample_from(ob, "binary32 rounding of lr*(c*g) vs (lr*c)*g differs by " +
                                                      std::to_string(d) + " ulp");
      cx.replay = {{"W - lr*(c*g)", smt::format_fp(x) + " (" + smt::hex_bits(witness::bits_of(x), 32) + ")"},
                   {"W - (lr*c)*g", smt::format_fp(y) + " (" + smt::hex_bits(witness::bits_of(y), 32) + ")"},
                   {"ulp_distance", std::to_string(d)}};
      cx.replay_confirms = witness::bits_of(x) != witness::bits_of(y);
      out.counterexample = cx;
      out.notes.push_back("over the reals the clip folds into lr exactly; in binary32 the result may differ by " +
                          std::to_string(d) + " ulp (concrete counterexample above), so the claim is exactness in R, "
                          "not bit equality");
    }
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
}

}  // namespace fusecert::verifier::props
