// P7 — with value-semantic optimizer ops the ΔX-before-update hazard cannot
// occur; after in-place bufferization it is exactly a write-after-read
// ordering violation. Source: propositions.md §P7.
//
// Model: a schedule assigns distinct integer positions to the ops of one
// backward step: the producer of ΔY, the weight-gradient GEMM (reads X, ΔY),
// the optimizer update (reads dW, writes W or W'), and `reads` ops that read
// W (the ΔX = ΔY·Wᵀ GEMM first). Data dependences order ΔY before both GEMMs
// and the wgrad GEMM before the update; nothing orders a read of W against the
// update. A read at position r sees W' (the new weights) iff the update is
// in place and ran before it (u < r).
//
//  P7.value_semantics   (unsat) SSA W ≠ W': no schedule makes a read see the new weights
//  P7.inplace_hazard    (sat)   in place: a dependence-respecting schedule where the ΔX GEMM reads W'
//  P7.order_condition   (unsat) in place and every read of W before the update ⇒ every read sees W
//                               (the condition the IR checker's P7 guard enforces)
#include "verifier/props/common.h"
#include "verifier/props/props.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

struct Schedule {
  z3::expr dy, wgrad, update;
  std::vector<z3::expr> reads;
};

/// Positions, distinctness and the data dependences of the backward step.
Schedule schedule(z3::context& c, smt::Query& q, long reads) {
  Schedule s{c.int_const("pos_dY"), c.int_const("pos_wgrad"), c.int_const("pos_update"), {}};
  z3::expr_vector all(c);
  all.push_back(s.dy);
  all.push_back(s.wgrad);
  all.push_back(s.update);
  for (long i = 0; i < reads; ++i) {
    s.reads.push_back(c.int_const(("pos_readW" + std::to_string(i)).c_str()));
    all.push_back(s.reads.back());
  }
  q.add(z3::distinct(all));
  for (unsigned i = 0; i < all.size(); ++i) q.add(all[i] >= 0 && all[i] < static_cast<int>(all.size()));
  q.add(s.dy < s.wgrad && s.wgrad < s.update);
  q.add(s.dy < s.reads[0]);  // the ΔX GEMM reads ΔY and W
  return s;
}

/// The value read i sees: W' iff in place and the update ran first.
z3::expr sees_new(const Schedule& s, size_t i, bool inplace) {
  return inplace ? s.update < s.reads[i] : s.update.ctx().bool_val(false);
}

}  // namespace

FUSECERT_ENCODER(encode_P7) {
  (void)spec;
  const long reads = iparam(params, "reads", 1, 8);
  {
    z3::context c;
    smt::Query q(c);
    auto s = schedule(c, q, reads);
    z3::expr any = c.bool_val(false);
    for (size_t i = 0; i < s.reads.size(); ++i) any = any || sees_new(s, i, false);
    q.add(any);
    discharge(out, "P7.value_semantics",
              "with value semantics (W and W' distinct SSA values) no dependence-respecting schedule lets a read of W "
              "see the updated weights",
              Scope{"integers", "the schedule positions", fixed_params(params, {"reads"}),
                    "with value semantics a read never sees W' by definition (sees_new is the constant false): the "
                    "negated claim is the literal false"},
              q, Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context c;
    smt::Query q(c);
    auto s = schedule(c, q, reads);
    q.add(sees_new(s, 0, true));
    auto& ob = discharge(out, "P7.inplace_hazard",
                         "after in-place bufferization a dependence-respecting schedule runs the update before the "
                         "ΔX GEMM, which then reads the updated W",
                         Scope{"integers", "the schedule positions", fixed_params(params, {"reads"}), ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      auto pos = [&](const char* n) { return static_cast<long>(model_double(ob, n)); };
      long d = pos("pos_dY"), w = pos("pos_wgrad"), u = pos("pos_update"), r = pos("pos_readW0");
      Counterexample cx = counterexample_from(
          ob, "schedule dY@" + std::to_string(d) + ", wgrad@" + std::to_string(w) + ", in-place update@" +
                  std::to_string(u) + ", dX GEMM reads W@" + std::to_string(r) + ": a write-after-read violation");
      cx.replay = {{"update_before_read", u < r ? "true" : "false"},
                   {"dependences_respected", d < w && w < u && d < r ? "true" : "false"}};
      cx.replay_confirms = u < r && d < w && w < u && d < r;
      out.counterexample = cx;
    }
  }
  {
    z3::context c;
    smt::Query q(c);
    auto s = schedule(c, q, reads);
    z3::expr any = c.bool_val(false);
    for (size_t i = 0; i < s.reads.size(); ++i) {
      q.add(s.reads[i] < s.update);
      any = any || sees_new(s, i, true);
    }
    q.add(any);
    discharge(out, "P7.order_condition",
              "in place, if every read of W precedes the update in program order, every read sees the old W",
              Scope{"integers", "the schedule positions", fixed_params(params, {"reads"}), ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  out.notes.push_back("the IR checker enforces P7.order_condition after bufferization: every read of the W buffer "
                      "precedes the in-place update (guard verifier/guards/inplace_order.cpp)");
}

}  // namespace fusecert::verifier::props
