// The checker over the project's fixtures (fixtures/docs/<rule-id>/{pass,fail}),
// with a stand-in verdict oracle so the rule engine is tested apart from the
// prover; the CLI tests run the real prover.
#include <gtest/gtest.h>

#include "support/diag/render.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "docaudit/checker.h"
#include "docaudit/ruleset.h"

using namespace fusecert::docaudit;
namespace fs = std::filesystem;

namespace {

/// Answers from a fixed table: what the prover establishes for P1, P2, P2c
/// at the defaults, and for P2 at three other parameters (verifier/props/
/// p2_clip.cpp: with beta1=0, beta2=0 or with c=1 both moments are
/// recoverable, holds; with beta1=0 alone v is not, refuted); any other
/// values of P2's parameters (beta1, beta2, c) are inconclusive, and any other
/// name is refused.
class TableOracle : public VerdictOracle {
 public:
  std::map<Question, OracleAnswer> establish(const std::set<Question>& questions) override {
    static const std::map<Question, ProvedVerdict> known = {
        {{"P1", {}}, ProvedVerdict::Holds},
        {{"P2", {}}, ProvedVerdict::Refuted},
        {{"P2c", {}}, ProvedVerdict::Holds},
        {{"P2", {{"beta1", "0"}, {"beta2", "0"}}}, ProvedVerdict::Holds},
        {{"P2", {{"c", "1"}}}, ProvedVerdict::Holds},
        {{"P2", {{"beta1", "0"}}}, ProvedVerdict::Refuted}};
    std::map<Question, OracleAnswer> out;
    for (const auto& q : questions) {
      OracleAnswer a;
      a.known = known.count(Question{q.id, {}}) > 0;
      for (const auto& [name, _] : q.params)
        if (name != "beta1" && name != "beta2" && name != "c") a.param_error = q.id + " has no parameter '" + name + "'";
      if (auto it = known.find(q); it != known.end()) a.verdict = it->second;
      out[q] = a;
      asked.insert(q);
    }
    ++calls;
    return out;
  }
  int calls = 0;
  std::set<Question> asked;
};

std::chrono::sys_days today() { return std::chrono::sys_days(std::chrono::year{2026} / 9 / 1); }

CheckResult check(const fs::path& root, unsigned jobs, VerdictOracle* oracle) {
  std::vector<fs::path> overrides;
  if (fs::exists(root / ".fusecert.yaml")) overrides.push_back(root / ".fusecert.yaml");
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE, overrides);
  CheckOptions opt;
  opt.repo_root = root;
  opt.paths = {root};
  opt.today = today();
  opt.jobs = jobs;
  opt.oracle = oracle;
  return run_check(rules, opt);
}

std::vector<std::string> fixture_rules() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(DOCAUDIT_FIXTURES))
    if (e.is_directory() && fs::exists(e.path() / "pass") && fs::exists(e.path() / "fail"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

class RuleFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleFixture, PassingFixtureIsClean) {
  TableOracle oracle;
  CheckResult res = check(fs::path(DOCAUDIT_FIXTURES) / GetParam() / "pass", 2, &oracle);
  for (const auto& f : res.findings) ADD_FAILURE() << fusecert::diag::render_text(f);
  EXPECT_GT(res.files, 0u);
}

TEST_P(RuleFixture, FailingFixtureTriggersTheRule) {
  TableOracle oracle;
  CheckResult res = check(fs::path(DOCAUDIT_FIXTURES) / GetParam() / "fail", 2, &oracle);
  bool hit = false;
  for (const auto& f : res.findings) hit = hit || f.rule == GetParam();
  EXPECT_TRUE(hit) << "no " << GetParam() << " finding";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RuleFixture, ::testing::ValuesIn(fixture_rules()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Checker, EveryRuleIdHasFixtures) {
  const auto have = fixture_rules();
  for (const auto& id : builtin_rule_ids())
    EXPECT_TRUE(std::find(have.begin(), have.end(), id) != have.end()) << "no fixtures/docs/" << id;
}

TEST(Checker, OutputIsDeterministicAcrossThreadCounts) {
  TableOracle oracle;
  std::vector<fusecert::diag::Diagnostic> all1, all8;
  for (const auto& id : fixture_rules()) {
    auto a = check(fs::path(DOCAUDIT_FIXTURES) / id / "fail", 1, &oracle).findings;
    auto b = check(fs::path(DOCAUDIT_FIXTURES) / id / "fail", 8, &oracle).findings;
    EXPECT_EQ(a, b) << id;
  }
}

TEST(Checker, ProverIsAskedOnceForAllIds) {
  TableOracle oracle;
  check(fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-verdict" / "pass", 4, &oracle);
  EXPECT_EQ(oracle.calls, 1);
}

TEST(Checker, EachRowIsAskedAtItsOwnParameters) {
  // The pass fixture's rows: P1, P2, P2c at the defaults (props.md, and the
  // "—" row of params.md), and P2 at three other parameters (params.md);
  // each distinct question once, none with another row's parameters.
  TableOracle oracle;
  CheckResult res = check(fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-verdict" / "pass", 2, &oracle);
  EXPECT_TRUE(res.findings.empty());
  const std::set<Question> want = {{"P1", {}},
                                   {"P2", {}},
                                   {"P2c", {}},
                                   {"P2", {{"beta1", "0"}, {"beta2", "0"}}},
                                   {"P2", {{"c", "1"}}},
                                   {"P2", {{"beta1", "0"}}}};
  EXPECT_EQ(oracle.asked, want);
}

TEST(Checker, UnreadableParametersAreNotAsked) {
  // `beta1 0.5` and a c given twice are findings of the rule engine; only
  // the readable rows reach the prover.
  TableOracle oracle;
  CheckResult res = check(fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-parameters" / "fail", 2, &oracle);
  const std::set<Question> want = {{"P2", {{"K", "4"}}}, {"P2", {{"c", "2"}}}, {"P2", {{"beta1", "abc"}}}};
  EXPECT_EQ(oracle.asked, want);
  int params = 0;
  for (const auto& f : res.findings) params += f.rule == "claim.proposition-parameters";
  EXPECT_EQ(params, 3);  // K (refused by the oracle), `beta1 0.5`, c twice; c=2 and abc are this oracle's inconclusive
}

TEST(Checker, VerdictTableWithoutAProverIsAUsageError) {
  EXPECT_THROW(check(fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-verdict" / "pass", 1, nullptr), UsageError);
}

TEST(Checker, MissingPathIsAUsageError) {
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE);
  CheckOptions opt;
  opt.repo_root = DOCAUDIT_FIXTURES;
  opt.paths = {fs::path(DOCAUDIT_FIXTURES) / "no-such-file.md"};
  opt.today = today();
  EXPECT_THROW(run_check(rules, opt), UsageError);
}

class BadInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("docaudit_bad_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::vector<fusecert::diag::Diagnostic> run() {
    RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE);
    CheckOptions opt;
    opt.repo_root = dir;
    opt.paths = {dir};
    opt.today = today();
    return run_check(rules, opt).findings;
  }
  fs::path dir;
};

TEST_F(BadInputs, SymlinkLoopIsAFinding) {
  fs::create_symlink("loop.md", dir / "loop.md");
  fs::create_symlink("b.md", dir / "a.md");
  fs::create_symlink("a.md", dir / "b.md");
  fs::create_directories(dir / "sub");
  fs::create_directory_symlink("..", dir / "sub" / "up");  // a folder loop is not followed
  auto f = run();
  ASSERT_EQ(f.size(), 3u);
  for (const auto& x : f) EXPECT_EQ(x.rule, "input.unreadable") << x.message;
}

TEST_F(BadInputs, FiftyMegabyteFileIsReportedNotParsed) {
  {
    std::ofstream out(dir / "huge.md", std::ios::binary);
    std::string line(1023, 'x');
    line += '\n';
    for (int i = 0; i < 50 * 1024; ++i) out << line;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto f = run();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "input.too-large");
  EXPECT_LT(ms, 5000);
}

TEST_F(BadInputs, LargeFileUnderALargerLimitParsesWithoutHanging) {
  {
    std::ofstream out(dir / "big.md", std::ios::binary);
    // 200,000 short paragraphs (11 MB): linear-time parsing is what is tested.
    for (int i = 0; i < 200000; ++i) out << "A line of **prose** with `code` and [a link](#x) — " << i << "\n\n";
  }
  fs::path cfg = dir / "cfg.yaml";
  std::ofstream(cfg) << "docs:\n  tree:\n    max_file_bytes: 67108864\n";
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE, {cfg});
  CheckOptions opt;
  opt.repo_root = dir;
  opt.paths = {dir / "big.md"};
  opt.today = today();
  const auto t0 = std::chrono::steady_clock::now();
  auto res = run_check(rules, opt);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(res.files, 1u);
  EXPECT_FALSE(res.findings.empty());  // the #x anchors do not resolve
  EXPECT_EQ(res.findings.front().rule, "anchor.broken-anchor");
  EXPECT_LT(ms, 30000);
}

TEST_F(BadInputs, EmptyBinaryInvalidUtf8AndBrokenYamlAreFindings) {
  std::ofstream(dir / "empty.md");
  std::ofstream(dir / "binary.md", std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10);
  std::ofstream(dir / "latin1.md", std::ios::binary) << "ok\nCaf\xe9\n";
  fs::create_directories(dir / "docs" / "audit");
  std::ofstream(dir / "docs" / "audit" / "README.md") << "---\naudit_role: [index\n---\n# x\n";
  std::ofstream(dir / "docs" / "audit" / "LIST.md") << "---\n- a\n---\n# x\n";
  auto f = run();
  std::vector<std::string> rules;
  for (const auto& x : f) rules.push_back(x.loc.file + " " + x.rule);
  EXPECT_EQ(rules, (std::vector<std::string>{"binary.md input.binary", "docs/audit/LIST.md routing.unrouted",
                                             "docs/audit/LIST.md frontmatter.yaml",
                                             "docs/audit/README.md frontmatter.yaml", "empty.md input.empty",
                                             "latin1.md input.utf8"}));
}

TEST_F(BadInputs, AuditRootOutsideTheRepositoryIsAConfigError) {
  // `tree: {audit_root: ../..}` used to walk whatever lay above the root.
  fs::create_directories(dir / "repo");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "repo" / "linked");
  auto run_with = [&](const std::string& audit_root) {
    std::ofstream(dir / "c.yaml") << "docs:\n  tree: {audit_root: " << audit_root << "}\n";
    RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE, {dir / "c.yaml"});
    CheckOptions opt;
    opt.repo_root = dir / "repo";
    opt.today = today();
    return run_check(rules, opt);
  };
  EXPECT_THROW(run_with("../.."), ConfigError);
  EXPECT_THROW(run_with("/etc"), ConfigError);
  EXPECT_THROW(run_with("linked"), ConfigError);  // inside by name, outside by its real path
  try {
    run_with("../..");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("tree.audit_root"), std::string::npos) << e.what();
  }
  fs::create_directories(dir / "repo" / "docs");
  std::ofstream(dir / "repo" / "docs" / "a.md") << "# A\n";
  EXPECT_NO_THROW(run_with("docs/../docs"));
}

TEST_F(BadInputs, SymlinksOutOfTheRepositoryAreOutsideRoot) {
  // `src/out -> <outside>`: a link and a backticked path through it leave the
  // root although they stay inside it lexically.
  fs::create_directories(dir / "repo" / "src");
  fs::create_directories(dir / "outside");
  std::ofstream(dir / "outside" / "passwd") << "x\n";
  fs::create_directory_symlink(dir / "outside", dir / "repo" / "src" / "out");
  fs::create_directories(dir / "repo" / "src" / "real");
  std::ofstream(dir / "repo" / "src" / "real" / "f.txt") << "x\n";
  fs::create_directory_symlink("real", dir / "repo" / "src" / "in");  // stays inside: fine
  std::ofstream(dir / "repo" / "n.md") << "# N\n\n[j](src/out/passwd) `src/out/passwd` `src/out/nope.txt`\n\n"
                                          "[k](src/in/f.txt) `src/in/f.txt`\n";
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE);
  CheckOptions opt;
  opt.repo_root = dir / "repo";
  opt.paths = {dir / "repo" / "n.md"};
  opt.today = today();
  const auto f = run_check(rules, opt).findings;
  ASSERT_EQ(f.size(), 3u);
  for (const auto& x : f) {
    EXPECT_EQ(x.rule, "anchor.outside-root") << x.message;
    EXPECT_EQ(x.loc.line, 3u);
  }
}

TEST_F(BadInputs, CmarkQuadraticInputsAreBoundedOrAvoided) {
  // Debian's cmark-gfm 0.29.0.gfm.6: `![[]()` x 40,000 in one paragraph
  // took ~20 s (quadratic in image openers) and `www.a_` x 40,000 minutes
  // (the autolink extension), both inside the 1 MiB limit. The first is
  // refused before cmark sees it (tree.max_block_brackets); the second is
  // parsed in linear time because the autolink extension is not attached.
  {
    std::ofstream out(dir / "images.md", std::ios::binary);
    for (int i = 0; i < 40000; ++i) out << "![[]()";
    out << "\n";
  }
  {
    std::ofstream out(dir / "www.md", std::ios::binary);
    for (int i = 0; i < 40000; ++i) out << "www.a_";
    out << "\n";
  }
  auto f = run();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "input.too-large");
  EXPECT_EQ(f[0].loc.file, "images.md");
  EXPECT_EQ(f[0].loc.line, 1u);
}

TEST_F(BadInputs, BracketsInsideCodeFencesDoNotCount) {
  {
    std::ofstream out(dir / "code.md", std::ios::binary);
    out << "# Data\n\n```json\n";
    for (int i = 0; i < 5000; ++i) out << "[1, 2],\n";
    out << "```\n";
  }
  EXPECT_TRUE(run().empty());
}

TEST_F(BadInputs, VerdictIdOfAHundredThousandDigitsIsAnUnknownId) {
  // `P` and 100,000 digits made std::regex_match recurse until the stack
  // overflowed; the id pattern now runs in RE2.
  std::ofstream(dir / "ids.md") << "| Id | Verdict |\n|---|---|\n| P" << std::string(100000, '1') << " | Holds |\n";
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE);
  TableOracle oracle;
  CheckOptions opt;
  opt.repo_root = dir;
  opt.paths = {dir};
  opt.today = today();
  opt.oracle = &oracle;
  auto f = run_check(rules, opt).findings;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "claim.proposition-unknown");
}

TEST_F(BadInputs, ExplicitFilesHonourTheExcludesOfATreeRunAndGlobsExpand) {
  // The hook passes files, CI runs the tree: an excluded file named
  // explicitly is skipped as a folder run skips it, so both agree.
  fs::create_directories(dir / "docs" / "audit" / "archive");
  fs::create_directories(dir / "docs" / "audit" / "generated");
  std::ofstream(dir / "docs" / "audit" / "archive" / "OLD.md") << "no frontmatter\n";
  std::ofstream(dir / "docs" / "audit" / "generated" / "dash.md") << "no frontmatter\n";
  std::ofstream(dir / "docs" / "audit" / "op_target_conformance.md");  // a generated root dashboard, empty
  RuleSet rules = load_rule_set(DOCAUDIT_RULES_FILE);
  CheckOptions opt;
  opt.repo_root = dir;
  opt.today = today();
  opt.paths = {dir / "docs/audit/archive/OLD.md", dir / "docs/audit/generated/dash.md",
               dir / "docs/audit/op_target_conformance.md"};
  auto res = run_check(rules, opt);
  EXPECT_EQ(res.files, 0u);
  EXPECT_TRUE(res.findings.empty());
  std::ofstream(dir / "a.md") << "# A\n";
  std::ofstream(dir / "b.md") << "# B [x](#nope)\n";
  opt.paths = {dir / "*.md"};
  res = run_check(rules, opt);
  EXPECT_EQ(res.files, 2u);
  ASSERT_EQ(res.findings.size(), 1u);
  EXPECT_EQ(res.findings[0].rule, "anchor.broken-anchor");
  opt.paths = {dir / "nothing*.md"};
  EXPECT_THROW(run_check(rules, opt), UsageError);
}
