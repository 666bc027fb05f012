// The production oracle over the real prover: a question at the defaults is
// answered from the verdicts proved at build time, a question with other
// parameters is proved now, that proposition alone with those parameters,
// and parameters the prover refuses are an answer, never a verdict. Expected
// verdicts are from verifier/props/p2_clip.cpp's rule (rules/propositions.yaml):
// P2 is refuted at the defaults and with beta1=0 (v is still not recoverable),
// and holds with beta1=0, beta2=0 (both moments recoverable from O(1) data).
#include <gtest/gtest.h>

#include "docaudit/prover_verdicts.h"

using namespace fusecert::docaudit;

namespace fusecert::docaudit {
void PrintTo(const Question& q, std::ostream* os) { *os << to_string(q); }
}  // namespace fusecert::docaudit

namespace {
const Question kP2{"P2", {}};
const Question kP2NoDecay{"P2", {{"beta1", "0"}, {"beta2", "0"}}};
const Question kP2FirstMomentOnly{"P2", {{"beta1", "0"}}};
}  // namespace

TEST(ProverVerdicts, OtherParametersAreProvedAndOnlyThose) {
  ProverVerdicts prover;
  const auto got = prover.establish({kP2, kP2NoDecay, kP2FirstMomentOnly, {"P2c", {}}});
  EXPECT_EQ(got.at(kP2).verdict, ProvedVerdict::Refuted);
  EXPECT_EQ(got.at(kP2NoDecay).verdict, ProvedVerdict::Holds);  // not the default's refuted
  EXPECT_EQ(got.at(kP2FirstMomentOnly).verdict, ProvedVerdict::Refuted);
  EXPECT_EQ(got.at(Question{"P2c", {}}).verdict, ProvedVerdict::Holds);
  for (const auto& [q, a] : got) {
    EXPECT_TRUE(a.known) << to_string(q);
    EXPECT_TRUE(a.param_error.empty()) << to_string(q) << ": " << a.param_error;
  }
  // P2 and P2c at the defaults from the build; the two others proved now,
  // and nothing else (not the whole registry, not P2 at the defaults).
  EXPECT_EQ(prover.embedded_used(), 2u);
  const std::set<Question> proved = {kP2NoDecay, kP2FirstMomentOnly};
  EXPECT_EQ(prover.proved(), 2u);
  EXPECT_EQ(std::set<Question>(prover.proved_questions().begin(), prover.proved_questions().end()), proved);
}

TEST(ProverVerdicts, TheDefaultValueWrittenOtherwiseAsksTheDefaults) {
  ProverVerdicts prover;
  const Question q{"P2", {{"beta1", "0.90"}, {"c", "5e-1"}}};
  const auto got = prover.establish({q});
  EXPECT_EQ(got.at(q).verdict, ProvedVerdict::Refuted);
  EXPECT_EQ(prover.embedded_used(), 1u);
  EXPECT_EQ(prover.proved(), 0u);
}

TEST(ProverVerdicts, RefusedParametersProveNothing) {
  ProverVerdicts prover;
  const Question unknown{"P2", {{"K", "4"}}};         // P1's parameter
  const Question outside{"P2", {{"c", "2"}}};         // c = min(1, tau/||g||) lies in (0, 1]
  const Question beta_one{"P2", {{"beta1", "1"}}};    // a decay lies in [0, 1)
  const Question not_number{"P2", {{"beta1", "abc"}}};
  const auto got = prover.establish({unknown, outside, beta_one, not_number});
  EXPECT_NE(got.at(unknown).param_error.find("no parameter 'K'"), std::string::npos) << got.at(unknown).param_error;
  EXPECT_NE(got.at(outside).param_error.find("(0, 1]"), std::string::npos) << got.at(outside).param_error;
  EXPECT_NE(got.at(beta_one).param_error.find("[0, 1)"), std::string::npos) << got.at(beta_one).param_error;
  EXPECT_NE(got.at(not_number).param_error.find("not a finite number"), std::string::npos);
  for (const auto& [q, a] : got) EXPECT_EQ(a.verdict, ProvedVerdict::Inconclusive) << to_string(q);
  EXPECT_EQ(prover.proved(), 0u);
}

TEST(ProverVerdicts, ATimeoutIsInconclusiveNeverAVerdict) {
  // 1 ms a query (failclosed.prove_timeout relies on the same: P2 cannot be
  // decided in it). The question at other parameters is proved now and is
  // inconclusive; the one at the defaults still comes from the build.
  ProverVerdicts prover(true, 1);
  const auto got = prover.establish({kP2, kP2NoDecay});
  EXPECT_EQ(got.at(kP2NoDecay).verdict, ProvedVerdict::Inconclusive);
  EXPECT_FALSE(got.at(kP2NoDecay).detail.empty());  // which obligation, and why
  EXPECT_EQ(got.at(kP2).verdict, ProvedVerdict::Refuted);
}

TEST(ProverVerdicts, UnknownIdsAreNotKnown) {
  ProverVerdicts prover;
  const auto got = prover.establish({{"P99", {}}, {"P99", {{"beta1", "0"}}}});
  for (const auto& [q, a] : got) EXPECT_FALSE(a.known) << to_string(q);
  EXPECT_EQ(prover.proved(), 0u);
}
