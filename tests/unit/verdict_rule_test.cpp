// Verdict rules as data (rules/propositions.yaml `obligations` and
// `verdict_rule`, issue #14): an incomplete rule is a load error, and the rule
// decides the verdict from every obligation, never a fallback.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/prover_test_util.h"
#include "verifier/core/verdict_rule.h"

using namespace fusecert;
using namespace fusecert::verifier;
namespace fs = std::filesystem;

namespace {
// One proposition X with obligations X.a (unsat) and X.b (sat); `rule` is its verdict_rule.
fs::path write_rule(const std::string& name, const std::string& rule,
                    const std::string& obligations = "      X.a: unsat\n      X.b: sat\n") {
  fs::path dir = fs::temp_directory_path() / ("fusecert_rule_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "propositions.yaml") << "propositions:\n  - id: X\n    title: t\n    statement: s\n"
                                              "    assessment_verdict: Holds\n    expected: holds\n"
                                              "    obligations:\n" << obligations << "    verdict_rule:\n" << rule;
  return dir;
}
const std::string kGood = "      - verdict: holds\n        answers: {X.a: unsat, X.b: sat}\n        counterexample: X.b\n";

Obligation ob(const std::string& id, smt::Answer expected, smt::Answer result,
              std::optional<smt::Answer> premises = smt::Answer::Sat) {
  Obligation o;
  o.id = id;
  o.expected = smt::to_string(expected);
  o.answer = smt::to_string(result);
  if (result == smt::Answer::Unsat && premises) o.premises = smt::to_string(*premises);
  return o;
}
PropositionResult answers(smt::Answer a, smt::Answer b, bool cx = true, bool confirms = true,
                          std::optional<smt::Answer> premises = smt::Answer::Sat) {
  PropositionResult r;
  r.id = "X";
  r.expected = Verdict::Holds;
  r.obligations = {ob("X.a", smt::Answer::Unsat, a, premises), ob("X.b", smt::Answer::Sat, b)};
  if (cx) {
    Counterexample c;
    c.obligation = "X.b";
    c.replay_confirms = confirms;
    r.counterexample = c;
  }
  return r;
}
}  // namespace

TEST(VerdictRule, CompleteRuleLoads) {
  Registry reg = load_registry(write_rule("good", kGood));
  ASSERT_EQ(reg.find("X")->rule.cases.size(), 1u);
  EXPECT_EQ(reg.find("X")->rule.obligations.size(), 2u);
}

TEST(VerdictRule, ObligationOutsideTheRuleIsALoadError) {
  EXPECT_THROW(load_registry(write_rule("outside", "      - verdict: holds\n        answers: {X.a: unsat, X.b: sat, X.c: sat}\n")),
               SpecError);
}

TEST(VerdictRule, CaseLeavingOutAnObligationIsALoadError) {
  EXPECT_THROW(load_registry(write_rule("leftout", "      - verdict: holds\n        answers: {X.a: unsat}\n")), SpecError);
}

TEST(VerdictRule, NonAnswersAndInconclusiveCasesAreLoadErrors) {
  EXPECT_THROW(load_registry(write_rule("unknown", "      - verdict: holds\n        answers: {X.a: unknown, X.b: sat}\n")),
               SpecError);
  EXPECT_THROW(load_registry(write_rule("inc", kGood + "      - verdict: inconclusive\n        answers: {X.a: sat, X.b: sat}\n")),
               SpecError);
  EXPECT_THROW(load_registry(write_rule("key", "      - verdict: holds\n        answers: {X.a: unsat, X.b: sat}\n        otherwise: holds\n")),
               SpecError);
}

TEST(VerdictRule, ExpectedAnswersMustGiveTheExpectedVerdict) {
  // no case for the expected answers
  EXPECT_THROW(load_registry(write_rule("noexp", "      - verdict: refuted\n        answers: {X.a: sat, X.b: sat}\n")),
               SpecError);
  // the expected answers give another verdict
  EXPECT_THROW(load_registry(write_rule("wrongexp", "      - verdict: refuted\n        answers: {X.a: unsat, X.b: sat}\n")),
               SpecError);
  // two cases with the same answers
  EXPECT_THROW(load_registry(write_rule("dup", kGood + kGood)), SpecError);
  // a counterexample from an unsat obligation
  EXPECT_THROW(load_registry(write_rule("cxunsat", "      - verdict: holds\n        answers: {X.a: unsat, X.b: sat}\n"
                                                   "        counterexample: X.a\n")),
               SpecError);
}

TEST(VerdictRule, ShippedRulesNameEveryObligationOfEveryEncoder) {
  ProveOptions opt;
  opt.witnesses = false;
  // prove() applies each rule and throws SpecError on an obligation outside it.
  auto rs = prove(test::registry(), {}, opt);
  EXPECT_EQ(rs.size(), 12u);
  for (const auto& r : rs) {
    const auto* spec = test::registry().find(r.id);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(r.obligations.size(), spec->rule.obligations.size() + spec->rule.sanity.size()) << r.id;
    EXPECT_EQ(r.verdict, r.expected) << r.id;
    EXPECT_TRUE(r.matches_expected()) << r.id;
  }
}

TEST(VerdictRule, TheRuleDecides) {
  Registry reg = load_registry(write_rule("decide", kGood));
  const PropositionSpec& spec = *reg.find("X");
  auto r = answers(smt::Answer::Unsat, smt::Answer::Sat);
  apply_verdict_rule(spec, r);
  EXPECT_EQ(r.verdict, Verdict::Holds);
  EXPECT_TRUE(r.matches_expected());
}

TEST(VerdictRule, NoFallbackEverYieldsHolds) {
  Registry reg = load_registry(write_rule("fallback", kGood));
  const PropositionSpec& spec = *reg.find("X");
  // answers no case names
  auto r = answers(smt::Answer::Unsat, smt::Answer::Unsat, false);
  apply_verdict_rule(spec, r);
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  // a timeout, an unknown
  for (auto a : {smt::Answer::Timeout, smt::Answer::Unknown, smt::Answer::Error}) {
    auto t = answers(smt::Answer::Unsat, a, false);
    apply_verdict_rule(spec, t);
    EXPECT_EQ(t.verdict, Verdict::Inconclusive);
    EXPECT_FALSE(t.matches_expected());
  }
}

TEST(VerdictRule, VacuousOrUncheckedPremisesAreInconclusive) {
  Registry reg = load_registry(write_rule("vacuous", kGood));
  const PropositionSpec& spec = *reg.find("X");
  for (std::optional<smt::Answer> p : {std::optional<smt::Answer>(smt::Answer::Unsat), std::optional<smt::Answer>(smt::Answer::Timeout),
                                       std::optional<smt::Answer>()}) {
    auto r = answers(smt::Answer::Unsat, smt::Answer::Sat, true, true, p);
    apply_verdict_rule(spec, r);
    EXPECT_EQ(r.verdict, Verdict::Inconclusive);
    EXPECT_FALSE(r.matches_expected());
  }
  auto r = answers(smt::Answer::Unsat, smt::Answer::Sat, true, true, smt::Answer::Unsat);
  apply_verdict_rule(spec, r);
  bool named = false;
  for (const auto& n : r.notes) named |= n.find("vacuous") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(VerdictRule, UnconfirmedOrMissingCounterexampleIsInconclusive) {
  Registry reg = load_registry(write_rule("cx", kGood));
  const PropositionSpec& spec = *reg.find("X");
  auto unconfirmed = answers(smt::Answer::Unsat, smt::Answer::Sat, true, false);
  apply_verdict_rule(spec, unconfirmed);
  EXPECT_EQ(unconfirmed.verdict, Verdict::Inconclusive);
  auto missing = answers(smt::Answer::Unsat, smt::Answer::Sat, false);
  apply_verdict_rule(spec, missing);
  EXPECT_EQ(missing.verdict, Verdict::Inconclusive);
}

TEST(VerdictRule, AnUnexpectedAnswerNeverMatchesExpected) {
  // Same verdict through another case of the rule: still not "as expected".
  Registry reg = load_registry(write_rule("other", kGood + "      - verdict: holds\n        answers: {X.a: unsat, X.b: unsat}\n"));
  const PropositionSpec& spec = *reg.find("X");
  auto r = answers(smt::Answer::Unsat, smt::Answer::Unsat, false);
  apply_verdict_rule(spec, r);
  EXPECT_EQ(r.verdict, Verdict::Holds);
  EXPECT_FALSE(r.matches_expected());
}

TEST(VerdictRule, EncoderObligationOutsideTheRuleIsAnError) {
  Registry reg = load_registry(write_rule("encoder", kGood));
  const PropositionSpec& spec = *reg.find("X");
  auto extra = answers(smt::Answer::Unsat, smt::Answer::Sat);
  extra.obligations.push_back(ob("X.c", smt::Answer::Sat, smt::Answer::Sat));
  EXPECT_THROW(apply_verdict_rule(spec, extra), SpecError);
  auto missing = answers(smt::Answer::Unsat, smt::Answer::Sat);
  missing.obligations.pop_back();
  EXPECT_THROW(apply_verdict_rule(spec, missing), SpecError);
  auto other_expected = answers(smt::Answer::Unsat, smt::Answer::Sat);
  other_expected.obligations[1].expected = "unsat";
  EXPECT_THROW(apply_verdict_rule(spec, other_expected), SpecError);
}

// Sanity checks (issue #19): hold by construction, so they are no evidence and
// no case may name one; but a broken one means a broken encoding.
TEST(VerdictRule, ASanityCheckNeverDecidesAVerdict) {
  const std::string obs = "      X.a: unsat\n      X.b: sat\n    sanity_checks:\n      X.s: unsat\n";
  Registry reg = load_registry(write_rule("sanity", kGood, obs));
  const PropositionSpec& spec = *reg.find("X");
  EXPECT_TRUE(spec.rule.is_sanity("X.s"));
  EXPECT_FALSE(spec.rule.is_sanity("X.a"));
  auto r = answers(smt::Answer::Unsat, smt::Answer::Sat);
  r.obligations.push_back(ob("X.s", smt::Answer::Unsat, smt::Answer::Unsat));
  apply_verdict_rule(spec, r);
  EXPECT_EQ(r.verdict, Verdict::Holds);
  // The check answers otherwise: the encoding is broken, nothing is decided.
  auto bad = answers(smt::Answer::Unsat, smt::Answer::Sat);
  bad.obligations.push_back(ob("X.s", smt::Answer::Unsat, smt::Answer::Sat));
  apply_verdict_rule(spec, bad);
  EXPECT_EQ(bad.verdict, Verdict::Inconclusive);
  // Vacuous: inconclusive too.
  auto vac = answers(smt::Answer::Unsat, smt::Answer::Sat);
  vac.obligations.push_back(ob("X.s", smt::Answer::Unsat, smt::Answer::Unsat, smt::Answer::Unsat));
  apply_verdict_rule(spec, vac);
  EXPECT_EQ(vac.verdict, Verdict::Inconclusive);
  // Missing: the encoder and the rules disagree.
  auto missing = answers(smt::Answer::Unsat, smt::Answer::Sat);
  EXPECT_THROW(apply_verdict_rule(spec, missing), SpecError);
}

TEST(VerdictRule, ACaseNamingASanityCheckIsALoadError) {
  const std::string obs = "      X.a: unsat\n      X.b: sat\n    sanity_checks:\n      X.s: unsat\n";
  EXPECT_THROW(load_registry(write_rule("sanity_case",
                                        "      - verdict: holds\n        answers: {X.a: unsat, X.b: sat, X.s: unsat}\n",
                                        obs)),
               SpecError);
  // an id both evidence and a sanity check
  EXPECT_THROW(load_registry(write_rule("sanity_dup", kGood, "      X.a: unsat\n      X.b: sat\n    sanity_checks:\n      X.a: unsat\n")),
               SpecError);
}
