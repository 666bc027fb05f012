// Every proposition reaches its expected verdict from the solver's answers;
// every counterexample violates the claim when evaluated back in C++; every
// witness figure is within the range the assessment's figure implies.
#include <gtest/gtest.h>

#include "tests/unit/prover_test_util.h"

using namespace fusecert;
using verifier::Verdict;

class Verdicts : public ::testing::TestWithParam<std::pair<const char*, Verdict>> {};

TEST_P(Verdicts, ExpectedVerdictCounterexampleAndWitness) {
  auto [id, expected] = GetParam();
  auto r = test::prove_one(id);
  EXPECT_EQ(r.verdict, expected) << id;
  for (const auto& o : r.obligations) {
    EXPECT_EQ(o.answer, o.expected) << o.id;
    EXPECT_NE(o.query().find("(check-sat)"), std::string::npos) << o.id;
    if (o.smt_answer() == smt::Answer::Sat) EXPECT_FALSE(o.model.empty()) << o.id;
  }
  if (r.counterexample) {
    EXPECT_TRUE(r.counterexample->replay_confirms) << id << ": " << r.counterexample->summary;
    EXPECT_FALSE(r.counterexample->values.empty());
  }
  if (r.witness)
    for (const auto& f : r.witness->figures) {
      EXPECT_TRUE(f.in_range()) << id << " " << f.name << " = " << f.value;
      EXPECT_TRUE(f.range_applies);
    }
  EXPECT_TRUE(r.matches_expected());
}

INSTANTIATE_TEST_SUITE_P(
    AllNine, Verdicts,
    ::testing::Values(std::pair{"P1", Verdict::Holds}, std::pair{"P2", Verdict::Refuted},
                      std::pair{"P2a", Verdict::Refuted}, std::pair{"P2b", Verdict::Refuted},
                      std::pair{"P2c", Verdict::Holds}, std::pair{"P3", Verdict::Holds},
                      std::pair{"P4", Verdict::Conditional}, std::pair{"P5", Verdict::Refuted},
                      std::pair{"P6", Verdict::Conditional}),
    [](const auto& info) { return std::string(info.param.first); });

TEST(Counterexamples, P1SplitKHasBitPatterns) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  auto r = test::prove_one("P1", opt);
  ASSERT_TRUE(r.counterexample);
  EXPECT_EQ(r.counterexample->obligation, "P1.splitk.binary32");
  for (const auto& v : r.counterexample->values) EXPECT_EQ(v.bits.size(), 10u) << v.name;  // 0x + 8 hex digits
  bool bf16 = false;
  for (const auto& o : r.obligations)
    if (o.id == "P1.splitk.bf16") {
      bf16 = true;
      EXPECT_NE(o.query().find("(_ FloatingPoint 8 8)"), std::string::npos);
      for (const auto& v : o.model) EXPECT_EQ(v.bits.size(), 6u) << v.name;  // 0x + 4 hex digits
    }
  EXPECT_TRUE(bf16);
}

TEST(Counterexamples, P1TilingUsesFloatingPointNotReals) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  auto r = test::prove_one("P1", opt);
  const auto& t = r.obligations.at(0);
  ASSERT_EQ(t.id, "P1.tiling.binary32");
  EXPECT_NE(t.query().find("(_ FloatingPoint 8 24)"), std::string::npos);
  EXPECT_EQ(t.query().find("Real"), std::string::npos);
}

TEST(FailClosed, TinyTimeoutIsInconclusiveNeverHolds) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.timeout_ms = 1;
  auto r = test::prove_one("P1", opt);
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  bool timed_out = false;
  for (const auto& o : r.obligations) timed_out |= o.smt_answer() == smt::Answer::Timeout || o.smt_answer() == smt::Answer::Unknown;
  EXPECT_TRUE(timed_out);
}

// Parameters outside their meaning are refused, not proved about (found by a
// new-user test: `prove P2 c=2` reported "what changes: nothing";
// `prove P1 splits=4` with K = 4 ran a split-K "refutation" that is the
// sequential order again).
TEST(Parameters, OutsideTheirMeaningAreRefused) {
  auto with = [](const char* id, std::map<std::string, double> kv) {
    verifier::ProveOptions opt;
    opt.witnesses = false;
    for (auto& [k, v] : kv) opt.overrides[k] = verifier::Param{v, std::to_string(v)};
    return test::prove_one(id, opt);
  };
  EXPECT_THROW(with("P2", {{"c", 2}}), std::invalid_argument);
  EXPECT_THROW(with("P2", {{"c", 0}}), std::invalid_argument);
  EXPECT_THROW(with("P2", {{"c", -1}}), std::invalid_argument);
  EXPECT_THROW(with("P2", {{"beta1", 1}}), std::invalid_argument);
  EXPECT_THROW(with("P1", {{"K", 4}, {"splits", 4}}), std::invalid_argument);
  EXPECT_THROW(with("P1", {{"K", 3}, {"splits", 5}}), std::invalid_argument);
  EXPECT_THROW(with("P1", {{"K", 3}, {"splits", 2}}), std::invalid_argument);
  try {
    with("P1", {{"K", 1}});
    ADD_FAILURE() << "K = 1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 64]"), std::string::npos) << e.what();
  }
  // The boundaries that keep their meaning still prove.
  EXPECT_EQ(with("P2", {{"c", 1}}).verdict, Verdict::Holds);
  EXPECT_EQ(with("P1", {{"K", 5}, {"splits", 2}}).verdict, Verdict::Holds);
}

// A replayed counterexample shows its two sides with every digit: the P2a
// update differs from the exact one past the sixth significant digit.
TEST(Counterexamples, ReplayValuesAreDistinctWhenTheyDiffer) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  auto r = test::prove_one("P2a", opt);
  ASSERT_TRUE(r.counterexample);
  std::map<std::string, std::string> rep(r.counterexample->replay.begin(), r.counterexample->replay.end());
  ASSERT_TRUE(rep.count("W_exact") && rep.count("W_clip_update"));
  EXPECT_NE(rep["W_exact"], rep["W_clip_update"]);
}
