// rules/propositions.yaml as a person reads it through `show ID`: every
// parameter of every proposition says what it means, and no meaning was cut
// short by YAML. An unquoted comma inside a flow mapping
// (`c: {value: 0.5, meaning: c = min(1, tau/||g||)}`) ends the meaning at
// the comma and turns the rest into a stray key: the meaning's parentheses
// no longer balance and the mapping has a key that is neither value nor
// meaning. Both are checked, for parameters and for witness figures.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include "verifier/core/spec.h"

using namespace fusecert::verifier;
namespace fs = std::filesystem;

namespace {
const fs::path kRules = fs::path(FUSECERT_SOURCE_DIR) / "rules";

/// True when every ')' closes an earlier '(' and none stays open.
bool balanced(const std::string& s) {
  int depth = 0;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) return false;
  }
  return depth == 0;
}
}  // namespace

TEST(SpecMeanings, EveryParameterHasACompleteMeaning) {
  Registry reg = load_registry(kRules);
  size_t params = 0;
  for (const auto& p : reg.propositions) {
    for (const auto& [name, prm] : p.params) {
      ++params;
      EXPECT_FALSE(prm.meaning.empty()) << p.id << "." << name << " has no meaning";
      EXPECT_TRUE(balanced(prm.meaning)) << p.id << "." << name << ": unbalanced parentheses in '" << prm.meaning
                                         << "' (an unquoted comma in a YAML flow mapping cuts the meaning short)";
    }
    for (const auto& f : p.figures)
      EXPECT_TRUE(balanced(f.meaning)) << p.id << " figure " << f.name << ": unbalanced parentheses in '" << f.meaning
                                       << "'";
  }
  EXPECT_GT(params, 20u);
  // The meaning that was cut at its first comma, whole.
  const auto* p2 = reg.find("P2");
  ASSERT_NE(p2, nullptr);
  EXPECT_EQ(p2->params.at("c").meaning, "clip scale c = min(1, tau/||g||), 0 < c <= 1");
}

TEST(SpecMeanings, NoStrayKeysInParameterOrFigureMappings) {
  YAML::Node doc = YAML::LoadFile((kRules / "propositions.yaml").string());
  const std::set<std::string> param_keys{"value", "meaning"}, figure_keys{"lo", "hi", "quoted", "meaning"};
  for (const auto& p : doc["propositions"]) {
    const std::string id = p["id"].as<std::string>();
    if (p["params"]) {
      for (const auto& kv : p["params"]) {
        if (!kv.second.IsMap()) continue;
        for (const auto& k : kv.second) {
          EXPECT_TRUE(param_keys.count(k.first.as<std::string>()))
              << id << "." << kv.first.as<std::string>() << ": stray key '" << k.first.as<std::string>()
              << "' (quote a meaning that contains a comma)";
        }
      }
    }
    if (p["witness"] && p["witness"]["figures"]) {
      for (const auto& kv : p["witness"]["figures"]) {
        for (const auto& k : kv.second) {
          EXPECT_TRUE(figure_keys.count(k.first.as<std::string>()))
              << id << " figure " << kv.first.as<std::string>() << ": stray key '" << k.first.as<std::string>() << "'";
        }
      }
    }
  }
}
