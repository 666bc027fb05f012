// Parameter overrides change what is proved, honestly.
#include <gtest/gtest.h>

#include "tests/unit/prover_test_util.h"

using namespace fusecert;
using verifier::Verdict;

namespace {
verifier::ProveOptions with(std::initializer_list<std::pair<const char*, const char*>> kv) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  for (auto [k, v] : kv) opt.overrides[k] = verifier::parse_param_assignment(std::string(k) + "=" + v).second;
  return opt;
}
using fusecert::test::ob;
}  // namespace

TEST(Params, Beta1ZeroMakesFirstMomentRecoverableNotSecond) {
  auto r = test::prove_one("P2", with({{"beta1", "0"}, {"c", "0.37"}}));
  EXPECT_TRUE(r.params_overridden);
  EXPECT_EQ(ob(r, "P2.recover.m").smt_answer(), smt::Answer::Unsat);
  EXPECT_EQ(ob(r, "P2.recover.v").smt_answer(), smt::Answer::Sat);
  EXPECT_EQ(r.verdict, Verdict::Refuted);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("first moment IS recoverable") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Params, BothMomentsRecoverableMeansFusable) {
  auto r = test::prove_one("P2", with({{"beta1", "0"}, {"beta2", "0"}}));
  EXPECT_EQ(r.verdict, Verdict::Holds);
  EXPECT_FALSE(r.matches_expected());
}

TEST(Params, NoClippingIsTriviallyFusable) {
  auto r = test::prove_one("P2", with({{"c", "1"}}));
  EXPECT_EQ(r.verdict, Verdict::Holds);
}

TEST(Params, OverriddenWitnessRangesDoNotApply) {
  verifier::ProveOptions opt = with({{"spike_scale", "2"}});
  opt.witnesses = true;
  auto r = test::prove_one("P2b", opt);
  ASSERT_TRUE(r.witness);
  for (const auto& f : r.witness->figures) EXPECT_FALSE(f.range_applies);
}

TEST(Params, RanksAndKChangeTheQueries) {
  auto r2 = test::prove_one("P3", with({{"ranks", "2"}}));
  auto r8 = test::prove_one("P3", with({{"ranks", "8"}}));
  EXPECT_EQ(r2.verdict, Verdict::Holds);
  EXPECT_EQ(r8.verdict, Verdict::Holds);
  EXPECT_NE(r2.obligations[0].query(), r8.obligations[0].query());
  auto k6 = test::prove_one("P1", with({{"K", "6"}}));
  EXPECT_EQ(k6.verdict, Verdict::Holds);
  EXPECT_NE(k6.obligations[0].query().find("(dY 5 i)"), std::string::npos);
}

TEST(Params, OutOfRangeIntegerIsRejected) {
  EXPECT_THROW(test::prove_one("P1", with({{"K", "2.5"}})), std::invalid_argument);
}
