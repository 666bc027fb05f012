// The checks around the solver's answers can fail (issue #19's surviving
// mutants): a C++ replay refuses a model that is no counterexample, and every
// evidence obligation of every verdict rule matters.
#include <gtest/gtest.h>

#include "tests/unit/prover_test_util.h"
#include "verifier/core/verdict_rule.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"

using namespace fusecert;
using namespace fusecert::verifier;

namespace {
Obligation with_model(const std::string& id, std::vector<std::pair<std::string, std::string>> values) {
  Obligation o;
  o.id = id;
  o.expected = o.answer = "sat";
  for (auto& [n, v] : values) o.model.push_back({n, v == "true" || v == "false" ? "Bool" : "Real", v, ""});
  return o;
}
}  // namespace

// P2: the two states' unclipped moments differ by 1e-7 (relative): their O(1)
// data are not equal, so this is no counterexample — a replay tolerance
// loose enough to accept it would accept near misses as proof.
TEST(Replay, P2RefusesStatesWhoseUnclippedMomentsDiffer) {
  model::Hyper h;  // beta1 = 0.9
  const std::string s2 = props::fmt_exact((0.1 + 1e-7) / 0.9);
  auto near = with_model("P2.recover.m", {{"g", "1"}, {"g_alt", "0"}, {"m_prev", "0"}, {"m_prev_alt", s2}});
  EXPECT_FALSE(props::replay_recovery(near, h, 0.5).replay_confirms);
  // The same shape with equal unclipped moments is one.
  const std::string s2eq = props::fmt_exact(0.1 / 0.9);
  auto real = with_model("P2.recover.m", {{"g", "1"}, {"g_alt", "0"}, {"m_prev", "0"}, {"m_prev_alt", s2eq}});
  EXPECT_TRUE(props::replay_recovery(real, h, 0.5).replay_confirms);
}

// P5: every step routed, so folded and correct decay agree: no counterexample.
TEST(Replay, P5RefusesADenseRouting) {
  auto dense = with_model("P5.counterexample", {{"g0", "0.5"}, {"g1", "0.5"}, {"g2", "0.5"}, {"m0", "1"},
                                                {"routed0", "true"}, {"routed1", "true"}, {"routed2", "true"}});
  EXPECT_FALSE(props::replay_routed(dense, 0.9, 3).replay_confirms);
  auto skip = dense;
  skip.model[5].value = "false";  // routed1
  EXPECT_TRUE(props::replay_routed(skip, 0.9, 3).replay_confirms);
}

// Every evidence obligation is a conjunct of its verdict: with one answer
// flipped, the verdict is another case's or inconclusive, never the expected
// one by a case that ignores that obligation.
TEST(Replay, EveryEvidenceObligationOfEveryRuleMatters) {
  auto make = [](const PropositionSpec& spec, const VerdictCase& c) {
    PropositionResult r;
    r.id = spec.id;
    r.expected = spec.expected;
    auto add = [&](const std::string& id, smt::Answer expected, smt::Answer result) {
      Obligation o;
      o.id = id;
      o.expected = smt::to_string(expected);
      o.answer = smt::to_string(result);
      if (result == smt::Answer::Unsat) o.premises = "sat";
      r.obligations.push_back(o);
    };
    for (const auto& [id, a] : spec.rule.obligations) add(id, a, c.answers.at(id));
    for (const auto& [id, a] : spec.rule.sanity) add(id, a, a);
    if (!c.counterexample.empty()) {
      Counterexample cx;
      cx.obligation = c.counterexample;
      cx.replay_confirms = true;
      r.counterexample = cx;
    }
    return r;
  };
  size_t flips = 0;
  for (const auto& spec : test::registry().propositions) {
    const VerdictCase* expected_case = nullptr;
    for (const auto& c : spec.rule.cases) {
      bool all = true;
      for (const auto& [id, a] : spec.rule.obligations) all &= c.answers.at(id) == a;
      if (all) expected_case = &c;
    }
    ASSERT_NE(expected_case, nullptr) << spec.id;
    auto r = make(spec, *expected_case);
    apply_verdict_rule(spec, r);
    EXPECT_EQ(r.verdict, spec.expected) << spec.id;
    for (size_t i = 0; i < spec.rule.obligations.size(); ++i) {
      auto flipped = make(spec, *expected_case);
      auto& o = flipped.obligations[i];
      o.answer = o.answer == "sat" ? "unsat" : "sat";
      o.premises = o.answer == "unsat" ? "sat" : "";
      const VerdictCase* other = nullptr;
      for (const auto& c : spec.rule.cases) {
        bool all = true;
        for (const auto& x : flipped.obligations)
          if (!spec.rule.is_sanity(x.id)) all &= c.answers.at(x.id) == x.smt_answer();
        if (all) other = &c;
      }
      if (other) continue;  // another listed case: its verdict is the rule's
      apply_verdict_rule(spec, flipped);
      EXPECT_EQ(flipped.verdict, Verdict::Inconclusive) << spec.id << ": " << o.id << " flipped";
      ++flips;
    }
  }
  EXPECT_GE(flips, 20u);
}
