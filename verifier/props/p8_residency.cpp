// P8 — a fused op whose gradient tile never leaves registers / shared memory
// materialises no gradient-shaped buffer (residency = tile). Source:
// propositions.md §P8. The IR side is a counting/escape check (guard
// verifier/guards/residency.cpp counts gradient-shaped operands and results of
// the fused op); here the accounting is proven for symbolic shapes.
//
// Model (integers): gradient M×N, producer tiles Tm×Tn with 1 ≤ Tm ≤ M,
// 1 ≤ Tn ≤ N, P tiles in flight (1 ≤ P). Gradient storage the fused op needs =
// P·Tm·Tn (accumulators) + alloc·M·N (a gradient-shaped allocation, alloc ∈
// {0,1}) + escape·M·N (a gradient result leaving the op must exist in full).
//
//  P8.tile_resident   (unsat) alloc = escape = 0 ⇒ storage ≤ P·Tm·Tn: nothing gradient-shaped
//  P8.alloc_breaks    (sat)   alloc = 1 with P·Tm·Tn < M·N: storage ≥ M·N (residency = tensor)
//  P8.escape_breaks   (sat)   escape = 1 with P·Tm·Tn < M·N: storage ≥ M·N
#include "verifier/props/common.h"
#include "verifier/props/props.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

struct Acct {
  z3::expr M, N, Tm, Tn, P, alloc, escape, storage;
};

Acct accounting(z3::context& c, smt::Query& q) {
  Acct a{c.int_const("M"),     c.int_const("N"),      c.int_const("Tm"),     c.int_const("Tn"),
         c.int_const("P"),     c.int_const("alloc"),  c.int_const("escape"), c.int_const("storage")};
  q.add(a.M >= 1 && a.N >= 1 && a.Tm >= 1 && a.Tm <= a.M && a.Tn >= 1 && a.Tn <= a.N && a.P >= 1);
  q.add((a.alloc == 0 || a.alloc == 1) && (a.escape == 0 || a.escape == 1));
  q.add(a.storage == a.P * a.Tm * a.Tn + a.alloc * a.M * a.N + a.escape * a.M * a.N);
  return a;
}

}  // namespace

FUSECERT_ENCODER(encode_P8) {
  (void)spec;
  (void)params;
  {
    z3::context c;
    smt::Query q(c);
    auto a = accounting(c, q);
    q.add(a.alloc == 0 && a.escape == 0);
    q.add(a.storage > a.P * a.Tm * a.Tn);
    discharge(out, "P8.tile_resident",
              "with no gradient-shaped allocation and no escaping gradient result, the fused op's gradient storage "
              "is the tiles in flight (residency = tile)",
              Scope{"integers", "M, N, tile sizes Tm, Tn, tiles in flight P", "",
                    "with alloc = escape = 0 the storage definition is P*Tm*Tn + 0 + 0: the claim restates the "
                    "accounting model"},
              q, Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context c;
    smt::Query q(c);
    auto a = accounting(c, q);
    q.add(a.alloc == 1 && a.escape == 0 && a.P * a.Tm * a.Tn < a.M * a.N);
    q.add(a.storage >= a.M * a.N);
    auto& ob = discharge(out, "P8.alloc_breaks",
                         "a gradient-shaped allocation makes the op hold a full M×N gradient even when the tiles in "
                         "flight are smaller",
                         Scope{"integers", "M, N, tile sizes Tm, Tn, tiles in flight P", "", ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      auto v = [&](const char* n) { return static_cast<long>(model_double(ob, n)); };
      long M = v("M"), N = v("N"), Tm = v("Tm"), Tn = v("Tn"), P = v("P");
      Counterexample cx = counterexample_from(ob, "a " + std::to_string(M) + "x" + std::to_string(N) +
                                                      " gradient allocation next to " + std::to_string(P) + " tile(s) of " +
                                                      std::to_string(Tm) + "x" + std::to_string(Tn));
      long storage = P * Tm * Tn + M * N;
      cx.replay = {{"storage", std::to_string(storage)}, {"tiles_in_flight", std::to_string(P * Tm * Tn)}};
      cx.replay_confirms = storage >= M * N && P * Tm * Tn < M * N;
      out.counterexample = cx;
    }
  }
  {
    z3::context c;
    smt::Query q(c);
    auto a = accounting(c, q);
    q.add(a.alloc == 0 && a.escape == 1 && a.P * a.Tm * a.Tn < a.M * a.N);
    q.add(a.storage >= a.M * a.N);
    discharge(out, "P8.escape_breaks",
              "a gradient result escaping the fused op must exist in full (M×N), so residency is not tile",
              Scope{"integers", "M, N, tile sizes Tm, Tn, tiles in flight P", "", ""}, q,
              Answer::Sat, opt.timeout_ms);
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  out.notes.push_back("holds when the IR shows no gradient-shaped allocation or escape: `fusecert certify` counts "
                      "them on every fused op (obligation P8.residency)");
}

}  // namespace fusecert::verifier::props
