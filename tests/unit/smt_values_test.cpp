// verifier/smt: IEEE decoding, exact decimals, model rendering, answers.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "verifier/smt/arith.h"
#include "verifier/smt/query.h"
#include "verifier/smt/values.h"

using namespace fusecert::smt;

TEST(Values, DecodeBinary32AndBf16) {
  EXPECT_EQ(decode_fp(0x3f800000, 8, 24), 1.0);
  EXPECT_EQ(decode_fp(0xbfc00000, 8, 24), -1.5);
  EXPECT_EQ(decode_fp(0x00000001, 8, 24), std::ldexp(1.0, -149));  // smallest subnormal
  EXPECT_TRUE(std::isinf(decode_fp(0x7f800000, 8, 24)));
  EXPECT_TRUE(std::isnan(decode_fp(0x7fc00000, 8, 24)));
  EXPECT_EQ(decode_fp(0x3f80, 8, 8), 1.0);
  EXPECT_EQ(decode_fp(0x4049, 8, 8), 3.140625);
}

TEST(Values, HexAndDecimal) {
  EXPECT_EQ(hex_bits(0x3f80, 16), "0x3f80");
  EXPECT_EQ(hex_bits(0x1, 32), "0x00000001");
  EXPECT_EQ(exact_decimal(0.9), "0.9");
  EXPECT_EQ(exact_decimal(1e-8), "0.00000001");
  EXPECT_EQ(exact_decimal(-2.5), "-2.5");
  EXPECT_EQ(exact_decimal(1e3), "1000.0");
}

TEST(Query, ModelFpValuesCarryBits) {
  z3::context ctx;
  FpArith fp(ctx, 8, 24, {});
  z3::expr x = fp.var("x");
  Query q(ctx);
  q.add(x == fp.num(1.5));
  auto r = q.check(5000);
  ASSERT_EQ(r.answer, Answer::Sat);
  ASSERT_EQ(r.model.size(), 1u);
  EXPECT_EQ(r.model[0].bits, "0x3fc00000");
  EXPECT_EQ(r.model[0].value, "1.5");
}

TEST(Query, SubnormalAndNegativeBits) {
  z3::context ctx;
  FpArith fp(ctx, 8, 24, {});
  z3::expr x = fp.var("x"), y = fp.var("y");
  Query q(ctx);
  q.add(x == fp.num(std::ldexp(1.0, -149)) && y == fp.num(-0.0));
  auto r = q.check(5000);
  ASSERT_EQ(r.answer, Answer::Sat);
  EXPECT_EQ(r.model[0].bits, "0x00000001");
  EXPECT_EQ(r.model[1].bits, "0x80000000");
}

TEST(Query, ParseErrorIsErrorNotVerdict) {
  auto r = solve_smt2("(assert (> x 0))", 1000);  // x undeclared
  EXPECT_EQ(r.answer, Answer::Error);
  EXPECT_FALSE(r.reason.empty());
}

TEST(Query, AnswerSpelling) {
  EXPECT_EQ(to_string(Answer::Timeout), "timeout");
  EXPECT_EQ(parse_answer("unsat"), Answer::Unsat);
  EXPECT_FALSE(parse_answer("proved").has_value());
  EXPECT_FALSE(is_definite(Answer::Unknown));
}

// Ctrl-C in the shell: request_interrupt() stops a solve that has no time
// limit; its answer is inconclusive (Timeout, "interrupted"), never cached,
// and once the request is cleared the same text is solved again normally.
TEST(Query, InterruptStopsAnUnlimitedSolveAndIsNotCached) {
  // x^3 + y^3 + z^3 = 33 with x > 1000: far beyond Z3 in the test's time.
  const std::string hard =
      "(declare-const x Int) (declare-const y Int) (declare-const z Int) "
      "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33)) (assert (> x 1000))";
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_interrupt();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = solve_smt2(hard, 0);
  stopper.join();
  EXPECT_EQ(r.answer, Answer::Timeout);
  EXPECT_NE(r.reason.find("interrupted"), std::string::npos) << r.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_TRUE(interrupt_requested());
  // While the request stands, a new solve does not start.
  const CheckResult easy = solve_smt2("(declare-const interrupt_q Int) (assert (> interrupt_q 40)) (assert (< interrupt_q 42))", 0);
  EXPECT_EQ(easy.answer, Answer::Timeout);
  clear_interrupt();
  EXPECT_FALSE(interrupt_requested());
  const CheckResult again = solve_smt2("(declare-const interrupt_q Int) (assert (> interrupt_q 40)) (assert (< interrupt_q 42))", 0);
  EXPECT_EQ(again.answer, Answer::Sat);
  EXPECT_FALSE(again.cached);
  const CheckResult hard_again = solve_smt2(hard, 200);  // not the cached "interrupted"
  EXPECT_EQ(hard_again.answer, Answer::Timeout);
  EXPECT_NE(hard_again.reason.find("deadline"), std::string::npos) << hard_again.reason;
  EXPECT_EQ(hard_again.reason.find("Ctrl-C"), std::string::npos) << hard_again.reason;
}

// Non-vacuity (issue #14): an unsat answer is checked against its premises
// (every assertion but the last, the negated claim) in the SMT layer.
TEST(Query, UnsatRecordsSatisfiablePremises) {
  // premises x > 0; negated claim x + 1 <= x: unsat over satisfiable premises.
  auto r = solve_smt2("(declare-const nv_x Int) (assert (> nv_x 0)) (assert (<= (+ nv_x 1) nv_x))", 5000);
  ASSERT_EQ(r.answer, Answer::Unsat);
  ASSERT_TRUE(r.premises.has_value());
  EXPECT_EQ(*r.premises, Answer::Sat);
  EXPECT_TRUE(decided(r));
}

TEST(Query, UnsatOverContradictoryPremisesIsVacuous) {
  // premises x > 0 and x < 0 contradict each other: the "claim" x = 5 is
  // unsat only because nothing is satisfiable. Not decided.
  auto r = solve_smt2("(declare-const nv_y Int) (assert (> nv_y 0)) (assert (< nv_y 0)) (assert (= nv_y 5))", 5000);
  ASSERT_EQ(r.answer, Answer::Unsat);
  ASSERT_TRUE(r.premises.has_value());
  EXPECT_EQ(*r.premises, Answer::Unsat);
  EXPECT_FALSE(decided(r));
  EXPECT_NE(r.premises_reason.find("vacuous"), std::string::npos) << r.premises_reason;
}

TEST(Query, SatNeedsNoPremiseCheck) {
  auto r = solve_smt2("(declare-const nv_z Int) (assert (> nv_z 0)) (assert (= nv_z 5))", 5000);
  ASSERT_EQ(r.answer, Answer::Sat);
  EXPECT_FALSE(r.premises.has_value());
  EXPECT_TRUE(decided(r));
}

TEST(Query, PremisesAreEveryAssertionButTheLast) {
  std::string p = premises_smt2("(declare-const nv_w Int) (assert (> nv_w 1)) (assert (> nv_w 2)) (assert (= nv_w 0))");
  EXPECT_NE(p.find("(> nv_w 1)"), std::string::npos) << p;
  EXPECT_NE(p.find("(> nv_w 2)"), std::string::npos) << p;
  EXPECT_EQ(p.find("(= nv_w 0)"), std::string::npos) << p;
  // A query that is only its negated claim has no premises: trivially sat.
  auto only = solve_smt2("(declare-const nv_v Int) (assert (not (= nv_v nv_v)))", 5000);
  ASSERT_EQ(only.answer, Answer::Unsat);
  EXPECT_EQ(only.premises, Answer::Sat);
}
