#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "docaudit/ruleset.h"

using namespace fusecert::docaudit;
namespace fs = std::filesystem;

namespace {

fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("docaudit_ruleset_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

std::string load_error(const std::string& config) {
  try {
    load_rule_set(DOCAUDIT_RULES_FILE, {write_temp("c.yaml", config)});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RuleSet, DefaultLoadsWithEveryRuleId) {
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE);
  for (const auto& id : builtin_rule_ids()) EXPECT_NO_THROW(rs.severity(id)) << id;
  EXPECT_EQ(rs.audit_root, "docs/audit");
  EXPECT_EQ(rs.snapshot_max_age_days, 45);
  EXPECT_EQ(rs.global_order_authority, "compiler/INTEGRATED_COMPILER_PLAN.md");
  EXPECT_EQ(rs.generated_dashboards.size(), 3u);  // the root dashboards Tessera's root index names
  EXPECT_EQ(rs.override_count(), 0u);
  EXPECT_EQ(rs.severity("claim.overclaim"), Severity::Warning);
}

TEST(RuleSet, OverridesMergeKeyByKey) {
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE,
                             {write_temp("ok.yaml",
                                         "docs:\n  lifecycle:\n    snapshot_max_age_days: 30\n"
                                         "  rules:\n    claim.overclaim: {severity: error, summary: s}\n"
                                         "  hygiene:\n    overclaim_phrases: [magic]\n")});
  EXPECT_EQ(rs.snapshot_max_age_days, 30);
  EXPECT_EQ(rs.severity("claim.overclaim"), Severity::Error);
  ASSERT_EQ(rs.overclaim_phrases.size(), 1u);
  EXPECT_EQ(rs.overclaim_phrases[0], "magic");
  EXPECT_EQ(rs.closed_states.size(), 1u);  // untouched keys keep their defaults
}

TEST(RuleSet, UnknownKeysAndBadTypesFailClosed) {
  EXPECT_NE(load_error("docs:\n  lifecycle:\n    snapshot_max_age: 30\n").find("unknown key `docs.lifecycle.snapshot_max_age`"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  lifecycle:\n    snapshot_max_age_days: soon\n").find("integer"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  hygiene:\n    overclaim_phrases: magic\n").find("must be a list"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.overclaim: {severity: loud, summary: s}\n").find("severity"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.made-up: {severity: error, summary: s}\n").find("unknown key"),
            std::string::npos);
  EXPECT_NE(load_error("docs: [1, 2]\n").find("must be a mapping"), std::string::npos);
  EXPECT_NE(load_error("- not\n- a mapping\n").find("must be a mapping"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  tree: {audit_root: [unclosed\n").find("invalid YAML"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  propositions:\n    id_pattern: \"P[0-9\"\n").find("regular expression"),
            std::string::npos);
}

TEST(RuleSet, UnknownTopLevelKeyIsAConfigErrorNamingIt) {
  // A typo in the top-level key used to drop the whole file silently (the run
  // went on with the defaults). No other subcommand reads the file.
  const std::string e = load_error("dosc:\n  rules:\n    claim.overclaim: {severity: off}\n");
  EXPECT_NE(e.find("unknown top-level key `dosc`"), std::string::npos) << e;
  EXPECT_NE(e.find("c.yaml:1:1:"), std::string::npos) << e;
  EXPECT_NE(load_error("docs: {}\nprove: {x: 1}\n").find("unknown top-level key `prove`"), std::string::npos);
  EXPECT_EQ(load_error("docs: {}\n"), "");
}

TEST(RuleSet, ScalarSeverityIsShortForTheMapping) {
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE,
                             {write_temp("s.yaml", "docs:\n  rules:\n    claim.overclaim: off\n"
                                                   "    anchor.broken-path: warning\n")});
  EXPECT_EQ(rs.severity("claim.overclaim"), Severity::Off);
  EXPECT_EQ(rs.severity("anchor.broken-path"), Severity::Warning);
  EXPECT_FALSE(rs.rules.at("claim.overclaim").summary.empty());  // the summary is kept
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.overclaim: loud\n").find("severity"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.overclaimz: off\n").find("unknown key `docs.rules.claim.overclaimz`"),
            std::string::npos);
  // Elsewhere a scalar for a mapping is still a type error.
  EXPECT_NE(load_error("docs:\n  tree: off\n").find("must be a mapping"), std::string::npos);
}

TEST(RuleSet, ConfigErrorsNameTheColumn) {
  const std::string e = load_error("docs:\n  lifecycle:\n    snapshot_max_agee: 1\n");
  EXPECT_NE(e.find("c.yaml:3:5: unknown key"), std::string::npos) << e;
}

TEST(RuleSet, RetainedSnapshotsNeedAReason) {
  EXPECT_NE(load_error("docs:\n  lifecycle:\n    retained:\n      - path: docs/audit/S.md\n").find("needs a non-empty `reason`"),
            std::string::npos);
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE,
                             {write_temp("r.yaml", "docs:\n  lifecycle:\n    retained:\n"
                                                   "      - path: docs/audit/S.md\n        reason: baseline\n")});
  ASSERT_EQ(rs.retained.size(), 1u);
  EXPECT_EQ(rs.retained[0].line, 4);
  EXPECT_EQ(rs.retained[0].col, 9);  // the entry's column, not 1
  EXPECT_EQ(rs.retained[0].reason, "baseline");
}

TEST(RuleSet, MissingFileIsAConfigError) {
  EXPECT_THROW(load_rule_set("/nonexistent/default.yaml"), ConfigError);
  EXPECT_THROW(load_rule_set(DOCAUDIT_RULES_FILE, {"/nonexistent/.fusecert.yaml"}), ConfigError);
}

TEST(RuleSet, VerdictWordingIsData) {
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE);
  EXPECT_EQ(rs.asserted_verdict("**Holds**"), AssertedVerdict::Holds);
  EXPECT_EQ(rs.asserted_verdict("**False, provably**"), AssertedVerdict::Refuted);
  EXPECT_EQ(rs.asserted_verdict("No"), AssertedVerdict::Refuted);
  EXPECT_EQ(rs.asserted_verdict("Affine `A` only"), AssertedVerdict::Conditional);
  EXPECT_EQ(rs.asserted_verdict("Conditional on state dtype"), AssertedVerdict::Conditional);
  EXPECT_EQ(rs.asserted_verdict("False for conditionally-routed (MoE) weights"), AssertedVerdict::Refuted);
  EXPECT_FALSE(rs.asserted_verdict("Nothing to say"));
  EXPECT_FALSE(rs.asserted_verdict("Probably"));
}

TEST(RuleSet, OverridesScopeRulesAndSettingsByGlob) {
  // ESLint's overrides: [{files, rules}]: on, off or configured differently
  // per folder; later entries win; a path no entry matches keeps the base.
  RuleSet rs = load_rule_set(
      DOCAUDIT_RULES_FILE,
      {write_temp("ov.yaml",
                  "docs:\n  overrides:\n"
                  "    - files: [\"docs/audit/backend/**\"]\n"
                  "      rules: {claim.overclaim: off, routing.scoped-plan-links: warning}\n"
                  "      routing: {index_names: [README.md, BACKEND_AUDIT.md]}\n"
                  "      frontmatter: {required_keys: [owner], allowed_values: {plan_state: [open, landing]}}\n"
                  "    - files: \"docs/audit/backend/nvidia/**\"\n"
                  "      rules: {claim.overclaim: error}\n")});
  EXPECT_EQ(rs.override_count(), 2u);
  const RuleSet& compiler = rs.for_path("docs/audit/compiler/X_PLAN.md");
  EXPECT_EQ(&compiler, &rs);
  EXPECT_EQ(compiler.severity("claim.overclaim"), Severity::Warning);
  const RuleSet& backend = rs.for_path("docs/audit/backend/apple/todo.md");
  EXPECT_EQ(backend.severity("claim.overclaim"), Severity::Off);
  EXPECT_EQ(backend.severity("routing.scoped-plan-links"), Severity::Warning);
  ASSERT_EQ(backend.index_names.size(), 2u);
  EXPECT_EQ(backend.index_names[1], "BACKEND_AUDIT.md");
  ASSERT_EQ(backend.required_keys.size(), 1u);
  EXPECT_EQ(backend.allowed_values.at("plan_state").size(), 2u);
  const RuleSet& nvidia = rs.for_path("docs/audit/backend/nvidia/todo.md");
  EXPECT_EQ(nvidia.severity("claim.overclaim"), Severity::Error);           // the later entry wins
  EXPECT_EQ(nvidia.severity("routing.scoped-plan-links"), Severity::Warning);  // the earlier one still applies
  EXPECT_EQ(&rs.for_path("docs/audit/backend/nvidia/todo.md"), &nvidia);      // built once
}

TEST(RuleSet, OverridesFailClosed) {
  EXPECT_NE(load_error("docs:\n  overrides:\n    - rules: {claim.overclaim: off}\n").find("needs `files`"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  overrides:\n    - files: [a/**]\n      rules: {claim.made-up: off}\n").find("unknown key"),
            std::string::npos);
  // The key is named by its path in the file (which entry) and its position.
  EXPECT_NE(load_error("docs:\n  overrides:\n    - files: [a/**]\n      hygeine: {}\n")
                .find("c.yaml:4:7: unknown key `docs.overrides[0].hygeine`"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  overrides:\n    - files: [a/**]\n      tree: {audit_root: x}\n").find("cannot be set per path"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  overrides:\n    - files: [a/**]\n      lifecycle: {retained: []}\n").find("cannot be set per path"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  overrides: {files: x}\n").find("must be a list"), std::string::npos);
  EXPECT_NE(load_error("docs:\n  overrides:\n    - files: [a/**]\n      lifecycle: {snapshot_max_age_days: soon}\n").find("integer"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  frontmatter: {allowed_values: {plan_state: open}}\n").find("non-empty list"),
            std::string::npos);
}

TEST(RuleSet, IdPatternRunsInRe2) {
  // A user-supplied pattern runs in a linear-time engine: a backreference
  // (which needs backtracking) is refused, and a nested quantifier that makes
  // a backtracking engine exponential is matched in linear time.
  EXPECT_NE(load_error("docs:\n  propositions:\n    id_pattern: \"(P)\\\\1\"\n").find("RE2"), std::string::npos);
  RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE, {write_temp("re.yaml", "docs:\n  propositions:\n    id_pattern: \"(P+)+Q\"\n")});
  EXPECT_FALSE(rs.is_proposition_id(std::string(100000, 'P')));
  EXPECT_TRUE(rs.is_proposition_id("PPQ"));
  RuleSet def = load_rule_set(DOCAUDIT_RULES_FILE);
  EXPECT_TRUE(def.is_proposition_id("P2a"));
  EXPECT_TRUE(def.is_proposition_id("P" + std::string(100000, '7')));  // std::regex recursed on this
  EXPECT_FALSE(def.is_proposition_id("P2 and more"));
}

// Issue #18: a key given twice in .fusecert.yaml is an error at its second
// occurrence, at any depth (yaml-cpp silently keeps one of the two values).
TEST(RuleSet, DuplicateKeysAreAnErrorAtAnyDepth) {
  auto dup = [](const std::string& config) -> ConfigError {
    try {
      load_rule_set(DOCAUDIT_RULES_FILE, {write_temp("d.yaml", config)});
    } catch (const ConfigError& e) {
      return e;
    }
    return ConfigError("");
  };
  {  // top level
    ConfigError e = dup("docs:\n  hygiene: {overclaim_phrases: [a]}\ndocs:\n  rules: {claim.overclaim: off}\n");
    EXPECT_EQ(e.rule, "input.config.duplicate-key");
    EXPECT_NE(std::string(e.what()).find("d.yaml:3:1: duplicate key `docs`"), std::string::npos) << e.what();
    EXPECT_EQ(e.first_line, 1);
    EXPECT_EQ(e.first_col, 1);
  }
  {  // nested two levels
    ConfigError e = dup("docs:\n  lifecycle:\n    snapshot_max_age_days: 30\n    snapshot_max_age_days: 60\n");
    EXPECT_EQ(e.rule, "input.config.duplicate-key");
    EXPECT_NE(std::string(e.what()).find("d.yaml:4:5: duplicate key `docs.lifecycle.snapshot_max_age_days` (first at line 3)"),
              std::string::npos)
        << e.what();
  }
  {  // a rule id twice
    ConfigError e = dup("docs:\n  rules:\n    claim.overclaim: off\n    claim.overclaim: error\n");
    EXPECT_NE(std::string(e.what()).find("d.yaml:4:5: duplicate key `docs.rules.claim.overclaim`"), std::string::npos)
        << e.what();
  }
  {  // inside an overrides entry (a list element)
    ConfigError e = dup("docs:\n  overrides:\n    - files: [a/**]\n      rules: {claim.overclaim: off}\n"
                        "      rules: {claim.overclaim: error}\n");
    EXPECT_NE(std::string(e.what()).find("d.yaml:5:7: duplicate key `docs.overrides[0].rules`"), std::string::npos)
        << e.what();
  }
  {  // the first duplicate in file order is the one reported
    ConfigError e = dup("docs:\n  tree: {audit_root: a, audit_root: b}\n  hygiene: {x: 1, x: 2}\n");
    EXPECT_NE(std::string(e.what()).find("d.yaml:2:25: duplicate key `docs.tree.audit_root`"), std::string::npos)
        << e.what();
  }
  // Same key in two different mappings is no duplicate.
  EXPECT_NO_THROW(load_rule_set(DOCAUDIT_RULES_FILE,
                                {write_temp("ok2.yaml", "docs:\n  overrides:\n    - files: [a/**]\n      rules: {claim.overclaim: off}\n"
                                                        "    - files: [b/**]\n      rules: {claim.overclaim: error}\n")}));
}

// Issue #18: a bad severity names its position and its path, also in an
// overrides entry; an unknown key inside overrides names the entry.
TEST(RuleSet, BadSeverityAndOverrideKeysNamePositionAndPath) {
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.overclaim: sometimes\n")
                .find("c.yaml:3:22: `docs.rules.claim.overclaim`: a severity must be error, warning or off, got `sometimes`"),
            std::string::npos)
      << load_error("docs:\n  rules:\n    claim.overclaim: sometimes\n");
  EXPECT_NE(load_error("docs:\n  rules:\n    claim.overclaim: {severity: loud}\n")
                .find("c.yaml:3:33: `docs.rules.claim.overclaim.severity`: a severity must be error, warning or off, got `loud`"),
            std::string::npos)
      << load_error("docs:\n  rules:\n    claim.overclaim: {severity: loud}\n");
  const std::string o = load_error("docs:\n  overrides:\n    - files: [a/**]\n    - files: [b/**]\n      rules:\n        claim.overclaim: meh\n");
  EXPECT_NE(o.find("c.yaml:6:26: `docs.overrides[1].rules.claim.overclaim`: a severity must be error, warning or off, got `meh`"),
            std::string::npos)
      << o;
  const std::string u = load_error("docs:\n  overrides:\n    - files: [a/**]\n      rulez: {claim.overclaim: off}\n");
  EXPECT_NE(u.find("c.yaml:4:7: unknown key `docs.overrides[0].rulez`"), std::string::npos) << u;
  const std::string n = load_error("docs:\n  overrides:\n    - files: [a/**]\n      rules: {claim.overclaimz: off}\n");
  EXPECT_NE(n.find("c.yaml:4:15: unknown key `docs.overrides[0].rules.claim.overclaimz`"), std::string::npos) << n;
}

// Issue #18 (h18f): `KEY: [...]` replaces a default list, `KEY: {add: [...]}`
// extends it (a user adding one marker keeps every default); in an override
// `add` extends the list as the base left it.
TEST(RuleSet, AListIsReplacedByAListAndExtendedByAdd) {
  const RuleSet defaults = load_rule_set(DOCAUDIT_RULES_FILE);
  ASSERT_GT(defaults.path_intent_markers.size(), 5u);
  RuleSet replaced = load_rule_set(DOCAUDIT_RULES_FILE,
                                   {write_temp("rep.yaml", "docs:\n  anchoring:\n    path_intent_markers: [slated]\n")});
  EXPECT_EQ(replaced.path_intent_markers, std::vector<std::string>{"slated"});
  RuleSet added = load_rule_set(
      DOCAUDIT_RULES_FILE,
      {write_temp("add.yaml", "docs:\n  anchoring:\n    path_intent_markers: {add: [slated, planned]}\n"
                              "  routing:\n    index_names: {add: [INDEX.md, AUDIT.md]}\n"
                              "  overrides:\n    - files: [\"docs/audit/backend/**\"]\n"
                              "      hygiene: {provenance_terms: {add: [vendor-reported]}}\n")});
  std::vector<std::string> want = defaults.path_intent_markers;
  want.push_back("slated");  // "planned" is a default already: not listed twice
  EXPECT_EQ(added.path_intent_markers, want);
  EXPECT_EQ(added.index_names.back(), "AUDIT.md");
  EXPECT_EQ(added.index_names.size(),
            defaults.index_names.size() + 2 - std::count(defaults.index_names.begin(), defaults.index_names.end(), "INDEX.md"));
  EXPECT_EQ(added.provenance_terms, defaults.provenance_terms);
  const RuleSet& backend = added.for_path("docs/audit/backend/apple/todo.md");
  EXPECT_EQ(backend.provenance_terms.size(), defaults.provenance_terms.size() + 1);
  EXPECT_EQ(backend.provenance_terms.back(), "vendor-reported");
  EXPECT_EQ(backend.path_intent_markers, want);  // the base's extension holds under the override
}

TEST(RuleSet, AddFailsClosedWithDidYouMean) {
  EXPECT_NE(load_error("docs:\n  anchoring:\n    path_intent_markers: {ad: [slated]}\n")
                .find("c.yaml:3:27: unknown key `docs.anchoring.path_intent_markers.ad`; did you mean `add`?"),
            std::string::npos)
      << load_error("docs:\n  anchoring:\n    path_intent_markers: {ad: [slated]}\n");
  EXPECT_NE(load_error("docs:\n  anchoring:\n    path_intent_markers: {add: slated}\n").find("`docs.anchoring.path_intent_markers.add` must be a list"),
            std::string::npos);
  EXPECT_NE(load_error("docs:\n  anchoring:\n    path_intent_markers: slated\n").find("or {add: [...]}"), std::string::npos);
  // A misspelt key names the one it is closest to.
  EXPECT_NE(load_error("docs:\n  anchoring:\n    path_intent_marker: {add: [slated]}\n")
                .find("unknown key `docs.anchoring.path_intent_marker`; did you mean `path_intent_markers`?"),
            std::string::npos);
  EXPECT_EQ(load_error("docs:\n  anchoring:\n    zzzz: []\n").find("did you mean"), std::string::npos);
}

TEST(RuleSet, EffectiveConfigShowsTheMergedLists) {
  RuleSet rs = load_rule_set(
      DOCAUDIT_RULES_FILE,
      {write_temp("eff.yaml", "docs:\n  anchoring:\n    path_intent_markers: {add: [slated]}\n"
                              "  overrides:\n    - files: [\"docs/audit/backend/**\"]\n"
                              "      anchoring: {path_intent_markers: {add: [queued]}}\n")});
  const std::string all = rs.effective_config();
  EXPECT_NE(all.find("docs:"), std::string::npos) << all;
  EXPECT_NE(all.find("slated"), std::string::npos) << all;
  EXPECT_NE(all.find("proposed"), std::string::npos) << all;  // a default kept
  EXPECT_NE(all.find("overrides:"), std::string::npos) << all;
  const std::string backend = rs.effective_config("docs/audit/backend/x.md");
  EXPECT_NE(backend.find("queued"), std::string::npos) << backend;
  EXPECT_NE(backend.find("slated"), std::string::npos) << backend;
  EXPECT_NE(backend.find("with docs.overrides[0]"), std::string::npos) << backend;
  EXPECT_EQ(backend.find("overrides:"), std::string::npos) << backend;
  const std::string compiler = rs.effective_config("docs/audit/compiler/x.md");
  EXPECT_EQ(compiler.find("queued"), std::string::npos) << compiler;
  EXPECT_NE(compiler.find("which no override matches"), std::string::npos) << compiler;
  // What is printed loads back as a configuration giving the same lists.
  const std::string body = compiler.substr(compiler.find("docs:"));
  RuleSet again = load_rule_set(DOCAUDIT_RULES_FILE, {write_temp("again.yaml", body)});
  EXPECT_EQ(again.path_intent_markers, rs.path_intent_markers);
}
