// rules/propositions.yaml loading: fail closed on missing or ill-typed keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "verifier/core/spec.h"
#include "verifier/prover.h"

using namespace fusecert::verifier;
namespace fs = std::filesystem;

namespace {
fs::path write_rules(const std::string& name, const std::string& yaml) {
  fs::path dir = fs::temp_directory_path() / ("fusecert_spec_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "propositions.yaml") << yaml;
  return dir;
}
}  // namespace

TEST(Spec, ShippedRulesLoadWithNineIds) {
  Registry reg = load_registry(fs::path(FUSECERT_SOURCE_DIR) / "rules");
  for (const char* id : {"P1", "P2", "P2a", "P2b", "P2c", "P3", "P4", "P5", "P6"}) EXPECT_NE(reg.find(id), nullptr) << id;
  EXPECT_EQ(reg.sha256.size(), 64u);
  EXPECT_EQ(reg.find("P2")->expected, Verdict::Refuted);
  EXPECT_EQ(reg.find("P4")->assessment_wording, "Affine A only");
}

TEST(Spec, MissingExpectedIsAnError) {
  auto dir = write_rules("noexp", "propositions:\n  - id: P1\n    title: t\n    statement: s\n    assessment_verdict: Holds\n");
  EXPECT_THROW(load_registry(dir), SpecError);
}

TEST(Spec, UnknownVerdictWordIsAnError) {
  auto dir = write_rules("badverdict",
                         "propositions:\n  - id: P1\n    title: t\n    statement: s\n    assessment_verdict: x\n"
                         "    expected: proved\n");
  EXPECT_THROW(load_registry(dir), SpecError);
}

TEST(Spec, NonNumericParamIsAnError) {
  auto dir = write_rules("badparam",
                         "propositions:\n  - id: P1\n    title: t\n    statement: s\n    assessment_verdict: x\n"
                         "    expected: holds\n    params: {K: four}\n");
  EXPECT_THROW(load_registry(dir), SpecError);
}

TEST(Spec, BrokenYamlNamesLine) {
  auto dir = write_rules("broken", "propositions: [\n  - id: P1\n");
  try {
    load_registry(dir);
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("propositions.yaml:"), std::string::npos);
  }
}

TEST(Spec, MissingFileIsAnError) { EXPECT_THROW(load_registry("/nonexistent/rules"), SpecError); }

TEST(Spec, ParamAssignmentParsing) {
  auto [n, p] = parse_param_assignment("beta1=0");
  EXPECT_EQ(n, "beta1");
  EXPECT_EQ(p.value, 0.0);
  EXPECT_EQ(p.text, "0");
  EXPECT_THROW(parse_param_assignment("beta1"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("=1"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("c=abc"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("c=nan"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("c=1e999"), std::invalid_argument);
  // Underflow is not zero (a new-user test: beta1=1e-400 proved the beta1 = 0
  // case), and blanks are refused on both sides alike.
  EXPECT_THROW(parse_param_assignment("beta1=1e-400"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("beta1= 0.5"), std::invalid_argument);
  EXPECT_THROW(parse_param_assignment("beta1=0.5 "), std::invalid_argument);
  EXPECT_EQ(parse_param_assignment("beta1=1e-300").second.value, 1e-300);
}

TEST(Spec, UnknownParamsAreReported) {
  Registry reg = load_registry(fs::path(FUSECERT_SOURCE_DIR) / "rules");
  std::map<std::string, Param> o{{"beta1", {0, "0", ""}}, {"bogus", {1, "1", ""}}};
  auto bad = unknown_params(reg, {"P2"}, o);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0], "bogus");
}
