// CLI tests of the built `fusecert docs`: every fixtures/docs/<rule-id>/pass
// is clean (exit 0), every .../fail prints exactly its expected.txt (exit 1);
// formats, exit status 2 for usage and configuration errors, bad inputs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct CliRun {
  int rc = -1;
  std::string out;
};

/// Runs `fusecert docs ARGS` (stderr to a file) in the folder `cwd` (default:
/// the test's own), returning exit status and stdout.
CliRun docs(const std::string& args, std::string* err = nullptr, const fs::path& cwd = {}) {
  const fs::path errfile = fs::temp_directory_path() / ("docaudit_cli_err_" + std::to_string(::getpid()));
  const std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd.string() + "' && ") + std::string(FUSECERT_BIN) +
                          " docs " + args + " 2>" + errfile.string();
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (err) {
    std::ifstream in(errfile);
    std::stringstream ss;
    ss << in.rdbuf();
    *err = ss.str();
  }
  fs::remove(errfile);
  return r;
}

std::string fixture_args(const fs::path& root, const std::string& extra = "") {
  return "--repo-root " + root.string() + " --today 2026-09-01 " + extra + " " + root.string();
}

std::vector<std::string> fixture_rules() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(DOCAUDIT_FIXTURES))
    if (e.is_directory() && fs::exists(e.path() / "pass") && fs::exists(e.path() / "fail"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

class CliFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CliFixture, PassIsCleanWithExitZero) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / GetParam() / "pass";
  CliRun r = docs(fixture_args(root));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(" 0 error(s), 0 warning(s)"), std::string::npos) << r.out;
}

// expected.txt holds the output as run from the fixture's root: paths are
// relative to the working directory, as a compiler prints them.
TEST_P(CliFixture, FailPrintsExactlyTheExpectedFindingsWithExitOne) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / GetParam() / "fail";
  CliRun r = docs(fixture_args(root), nullptr, root);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, read(root / "expected.txt"));
  EXPECT_NE(r.out.find(" [" + GetParam() + "]\n"), std::string::npos);
}

// Run from the folder above, the same findings name their files `fail/...`
// (relative to the working directory, not to the repository root).
TEST_P(CliFixture, PathsAreRelativeToTheWorkingDirectory) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / GetParam() / "fail";
  CliRun r = docs(fixture_args(root), nullptr, root.parent_path());
  EXPECT_EQ(r.rc, 1);
  std::istringstream want(read(root / "expected.txt")), got(r.out);
  std::string w, g;
  while (std::getline(want, w)) {
    ASSERT_TRUE(static_cast<bool>(std::getline(got, g))) << r.out;
    if (w.rfind("fusecert docs: ", 0) == 0) EXPECT_EQ(g, w);
    else EXPECT_EQ(g, (w.rfind("/", 0) == 0 ? "" : "fail/") + w);
  }
  EXPECT_FALSE(static_cast<bool>(std::getline(got, g))) << g;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliFixture, ::testing::ValuesIn(fixture_rules()), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

TEST(Cli, JsonAndSarifFormats) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "anchor.broken-link" / "fail";
  CliRun j = docs(fixture_args(root, "--format json"));
  EXPECT_EQ(j.rc, 1);
  auto parsed = nlohmann::json::parse(j.out);
  ASSERT_EQ(parsed["findings"].size(), 1u);
  EXPECT_EQ(parsed["findings"][0]["rule"], "anchor.broken-link");
  CliRun s = docs(fixture_args(root, "--format sarif"));
  EXPECT_EQ(s.rc, 1);
  auto sarif = nlohmann::json::parse(s.out);
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_EQ(sarif["runs"][0]["results"][0]["ruleId"], "anchor.broken-link");
}

TEST(Cli, UsageAndConfigurationErrorsExitTwo) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "anchor.broken-link" / "pass";
  std::string err;
  EXPECT_EQ(docs(fixture_args(root, "--format xml"), &err).rc, 2);
  EXPECT_EQ(docs("--repo-root " + root.string() + " --today 2026-02-30 " + root.string(), &err).rc, 2);
  EXPECT_NE(err.find("--today"), std::string::npos);
  EXPECT_EQ(docs(fixture_args(root, root.string() + "/no-such.md"), &err).rc, 2);
  EXPECT_NE(err.find("No such file or directory"), std::string::npos);
  const fs::path bad = fs::temp_directory_path() / ("docaudit_badcfg_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(bad) << "docs:\n  hygiene:\n    overclaim_phrase: [x]\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  EXPECT_NE(err.find("unknown key `docs.hygiene.overclaim_phrase`"), std::string::npos) << err;
  std::ofstream(bad) << "docs: [not, a, mapping]\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  // A typo in the top-level key is an error, not a run with the defaults.
  std::ofstream(bad) << "dosc:\n  rules:\n    claim.overclaim: {severity: off}\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  EXPECT_NE(err.find("unknown top-level key `dosc`"), std::string::npos) << err;
  // An audit root outside the repository.
  std::ofstream(bad) << "docs: {tree: {audit_root: ../..}}\n";
  EXPECT_EQ(docs("--repo-root " + root.string() + " --config " + bad.string(), &err).rc, 2);
  EXPECT_NE(err.find("outside the repository root"), std::string::npos) << err;
  fs::remove(bad);
  // An empty --today is not "today".
  EXPECT_EQ(docs("--repo-root " + root.string() + " --today '' " + root.string(), &err).rc, 2);
  EXPECT_NE(err.find("--today"), std::string::npos) << err;
}

TEST(Cli, ScalarSeverityTurnsARuleOff) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "claim.overclaim" / "fail";
  const fs::path cfg = fs::temp_directory_path() / ("docaudit_sev_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(cfg) << "docs:\n  rules:\n    claim.overclaim: off\n";
  CliRun r = docs(fixture_args(root, "--config " + cfg.string()));
  fs::remove(cfg);
  EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(Cli, FileNamesThatAreNotUtf8AreReportedInEveryFormat) {
  // `x\xff.md` made --format json and sarif abort with type_error.316 (exit 2).
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_name_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "u");
  std::ofstream(dir / "u" / "x\xff.md");
  for (const std::string format : {"json", "sarif", "text"}) {
    std::string err;
    CliRun r = docs("--repo-root " + dir.string() + " --format " + format + " " + (dir / "u").string(), &err);
    EXPECT_EQ(r.rc, 1) << format << ": " << err;
    if (format != "text") {
      EXPECT_NO_THROW((void)nlohmann::json::parse(r.out)) << format;
    }
    EXPECT_NE(r.out.find("input.empty"), std::string::npos) << format << ": " << r.out;
  }
  fs::remove_all(dir);
}

TEST(Cli, ARowAtOtherParametersThatTimesOutIsInconclusive) {
  // With 1 ms a query the three rows of params.md at other parameters
  // (proved at run time) cannot be decided: each is reported inconclusive,
  // never taken as agreeing; the rows at the defaults (props.md and the "—"
  // row) are answered from the build and stay clean.
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-verdict" / "pass";
  CliRun r = docs(fixture_args(root, "--timeout-ms 1"));
  EXPECT_EQ(r.rc, 1) << r.out;
  std::istringstream in(r.out);
  int inconclusive = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.find(": error: ") == std::string::npos) continue;
    EXPECT_NE(l.find("params.md:"), std::string::npos) << l;
    EXPECT_NE(l.find("but the prover is inconclusive"), std::string::npos) << l;
    EXPECT_NE(l.find("[claim.proposition-verdict]"), std::string::npos) << l;
    ++inconclusive;
  }
  EXPECT_EQ(inconclusive, 3) << r.out;
}

TEST(Cli, BadInputsAreFindingsNotCrashes) {
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_bad_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("loop.md", dir / "loop.md");
  {
    std::ofstream out(dir / "huge.md", std::ios::binary);
    const std::string line = std::string(1023, 'y') + "\n";
    for (int i = 0; i < 50 * 1024; ++i) out << line;
  }
  std::ofstream(dir / "empty.md");
  CliRun r = docs("--repo-root " + dir.string() + " " + dir.string());
  EXPECT_EQ(r.rc, 1);
  // One line each: `PATH:1:1: error: MESSAGE [RULE]`.
  auto line_with = [&](const std::string& at, const std::string& rule) {
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);)
      if (l.find(at + ": error: ") != std::string::npos && l.size() > rule.size() + 3 &&
          l.compare(l.size() - rule.size() - 3, std::string::npos, " [" + rule + "]") == 0)
        return true;
    return false;
  };
  EXPECT_TRUE(line_with("empty.md:1:1", "input.empty")) << r.out;
  EXPECT_TRUE(line_with("huge.md:1:1", "input.too-large")) << r.out;
  EXPECT_TRUE(line_with("loop.md:1:1", "input.unreadable")) << r.out;
  fs::remove_all(dir);
}

TEST(Cli, ParallelOutputIsDeterministic) {
  // Every fixture at once, as one tree, with 1 and 4 workers.
  const fs::path root = fs::path(DOCAUDIT_FIXTURES);
  CliRun a = docs(fixture_args(root, "-j 1 --format json"));
  CliRun b = docs(fixture_args(root, "-j 4 --format json"));
  EXPECT_EQ(a.rc, 1);
  EXPECT_EQ(a.out, b.out);
  EXPECT_GT(nlohmann::json::parse(a.out)["findings"].size(), 20u);  // 28 today: a non-trivial output
}

TEST(Cli, BuildTimeVerdictsAgreeWithReprovingNow) {
  // The verdicts embedded at build time (no solver at run time) and those the
  // prover establishes now (--reprove) give the same findings, for a table
  // that agrees with the prover and for one that does not.
  for (const std::string v : {"pass", "fail"}) {
    const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "claim.proposition-verdict" / v;
    CliRun embedded = docs(fixture_args(root));
    CliRun reproved = docs(fixture_args(root, "--reprove"));
    EXPECT_EQ(embedded.rc, v == "pass" ? 0 : 1) << embedded.out;
    EXPECT_EQ(embedded.rc, reproved.rc);
    EXPECT_EQ(embedded.out, reproved.out);
  }
}

// Issue #18: a key given twice in .fusecert.yaml fails closed (exit 2) with
// `file:line:col: error: … [input.config.duplicate-key]` and a note at the
// first occurrence; an unknown key inside `overrides:` names the entry and
// its position.
TEST(Cli, DuplicateConfigKeysAndOverrideKeysAreLocatedErrors) {
  const fs::path root = fs::path(DOCAUDIT_FIXTURES) / "anchor.broken-link" / "pass";
  const fs::path bad = fs::temp_directory_path() / ("docaudit_dupcfg_" + std::to_string(::getpid()) + ".yaml");
  std::string err;
  std::ofstream(bad) << "docs:\n  rules:\n    claim.overclaim: off\n    claim.overclaim: error\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  EXPECT_NE(err.find(bad.string() + ":4:5: error: duplicate key `docs.rules.claim.overclaim` (first at line 3)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("[input.config.duplicate-key]"), std::string::npos) << err;
  EXPECT_NE(err.find(bad.string() + ":3:5: note: the key's first occurrence"), std::string::npos) << err;
  std::ofstream(bad) << "docs:\n  overrides:\n    - files: [\"**\"]\n      rulez: {claim.overclaim: off}\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  EXPECT_NE(err.find(bad.string() + ":4:7: error: unknown key `docs.overrides[0].rulez`; did you mean `rules`? [input.config]"), std::string::npos)
      << err;
  std::ofstream(bad) << "docs:\n  rules:\n    claim.overclaim: {severity: loud}\n";
  EXPECT_EQ(docs(fixture_args(root, "--config " + bad.string()), &err).rc, 2);
  EXPECT_NE(err.find(bad.string() + ":3:33: error: `docs.rules.claim.overclaim.severity`: a severity must be error, warning or off"),
            std::string::npos)
      << err;
  fs::remove(bad);
}

// Issue #18: a link to a FIFO or a symlink loop says what is there, not "no
// file"; a link to nothing still says "no file".
TEST(Cli, LinkToAFifoOrASymlinkLoopSaysWhatItIs) {
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_fifo_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "docs" / "audit");
  fs::create_directories(dir / "data");
  ASSERT_EQ(::mkfifo((dir / "data" / "pipe").c_str(), 0600), 0);
  fs::create_symlink("loop", dir / "data" / "loop");
  std::ofstream(dir / "docs" / "audit" / "README.md")
      << "---\nlast_updated: 2026-08-20\naudit_role: index\n---\n\n# Index\n\n"
         "See [the pipe](../../data/pipe), [the loop](../../data/loop) and [nothing](../../data/none).\n";
  CliRun r = docs("--repo-root " + dir.string() + " --today 2026-09-01");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("`data/pipe` is a FIFO (named pipe), not a file [anchor.broken-link]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("`data/loop` is a symlink loop, not a file [anchor.broken-link]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no file `data/none` [anchor.broken-link]"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Issue #18: the backend example configuration of docs/docaudit.md (read from
// the page itself) accepts `plan_state: superseded_for_active_execution_work`,
// the historical-design value the default rule set allows.
TEST(Cli, DocsExampleBackendConfigAcceptsTheHistoricalDesignState) {
  const std::string page = read(fs::path(DOCAUDIT_FIXTURES) / ".." / ".." / "docs" / "docaudit.md");
  const std::size_t from = page.find("```yaml\ndocs:\n  overrides:\n");
  ASSERT_NE(from, std::string::npos) << "the overrides example is gone from docs/docaudit.md";
  const std::size_t body = from + std::string("```yaml\n").size();
  const std::string example = page.substr(body, page.find("```", body) - body);
  ASSERT_NE(example.find("allowed_values"), std::string::npos) << example;
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_example_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "docs" / "audit" / "backend");
  std::ofstream(dir / ".fusecert.yaml") << example;
  std::ofstream(dir / "docs" / "audit" / "README.md")
      << "---\nlast_updated: 2026-08-20\naudit_role: index\n---\n\n# Index\n\n- [backend](backend/README.md)\n";
  std::ofstream(dir / "docs" / "audit" / "backend" / "README.md")
      << "---\nlast_updated: 2026-08-20\naudit_role: index\nowner: backend\n---\n\n# Backend\n\n- [history](HISTORY.md)\n";
  std::ofstream(dir / "docs" / "audit" / "backend" / "HISTORY.md")
      << "---\nlast_updated: 2026-08-20\naudit_role: historical_design\nowner: backend\n"
         "plan_state: superseded_for_active_execution_work\n---\n\n# A superseded design\n\nKept for the record.\n";
  CliRun r = docs("--repo-root " + dir.string() + " --today 2026-09-01");
  // The tree has no compiler/ folder: the example's compiler entry matches
  // nothing, a warning (config.override-unmatched), and that is all.
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("warning: `docs.overrides[0]` matches no document"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 error(s), 1 warning(s)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("frontmatter.allowed-value"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Issue #18 (h18f): `--print-config` shows the effective lists (a default
// list extended by `{add: [...]}` keeps its defaults), exit 0, and with a
// PATH the set that document is checked with.
TEST(Cli, PrintConfigShowsTheEffectiveLists) {
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_print_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "docs" / "audit" / "backend");
  std::ofstream(dir / ".fusecert.yaml") << "docs:\n  anchoring:\n    path_intent_markers: {add: [slated]}\n"
                                           "  overrides:\n    - files: [\"docs/audit/backend/**\"]\n"
                                           "      anchoring: {path_intent_markers: {add: [queued]}}\n";
  std::ofstream(dir / "docs" / "audit" / "backend" / "x.md") << "# x\n";
  std::string err;
  CliRun all = docs("--repo-root " + dir.string() + " --print-config", &err);
  EXPECT_EQ(all.rc, 0) << err;
  EXPECT_NE(all.out.find("slated"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("proposed"), std::string::npos) << all.out;
  CliRun one = docs("--repo-root " + dir.string() + " --print-config " + (dir / "docs/audit/backend/x.md").string(), &err);
  EXPECT_EQ(one.rc, 0) << err;
  EXPECT_NE(one.out.find("# for docs/audit/backend/x.md, with docs.overrides[0]"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("queued"), std::string::npos) << one.out;
  EXPECT_EQ(docs("--repo-root " + dir.string() + " --print-config a.md b.md", &err).rc, 2);
  std::ofstream(dir / ".fusecert.yaml") << "docs:\n  anchoring:\n    path_intent_markers: {ad: [slated]}\n";
  EXPECT_EQ(docs("--repo-root " + dir.string() + " --print-config", &err).rc, 2);
  EXPECT_NE(err.find("did you mean `add`?"), std::string::npos) << err;
  fs::remove_all(dir);
}

// Issue #18 (h18h): the summary counts the documents checked, and says how
// many files it skipped: three generated files (one under generated/, the
// root dashboard by its name, one by its marker) are skipped, not checked,
// in a tree run and named explicitly alike.
TEST(Cli, SummaryCountsTheGeneratedFilesItSkipped) {
  const fs::path dir = fs::temp_directory_path() / ("docaudit_cli_skip_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path audit = dir / "docs" / "audit";
  fs::create_directories(audit / "generated");
  std::ofstream(audit / "README.md") << "---\nlast_updated: 2026-08-20\naudit_role: index\n---\n\n# Index\n\n"
                                        "See [the board](generated/board.md).\n";
  std::ofstream(audit / "generated" / "board.md") << "# Board\n\nAUTO-GENERATED by the board tool; do not edit.\n";
  std::ofstream(audit / "op_target_conformance.md") << "# Conformance\n\nAUTO-GENERATED; do not edit.\n";
  std::ofstream(audit / "coverage.md") << "<!-- AUTO-GENERATED by coverage.py; do not edit -->\n# Coverage\n";
  std::string err;
  CliRun tree = docs("--repo-root " + dir.string() + " --today 2026-09-01", &err);
  EXPECT_EQ(tree.rc, 0) << tree.out << err;
  EXPECT_NE(tree.out.find("remark: 1 file(s), 3 skipped (generated or excluded), 0 error(s), 0 warning(s)"),
            std::string::npos)
      << tree.out;
  CliRun named = docs("--repo-root " + dir.string() + " --today 2026-09-01 " + (audit / "generated" / "board.md").string() +
                          " " + (audit / "op_target_conformance.md").string() + " " + (audit / "coverage.md").string(),
                      &err);
  EXPECT_EQ(named.rc, 0) << named.out << err;
  EXPECT_NE(named.out.find("remark: 0 file(s), 3 skipped (generated or excluded), 0 error(s), 0 warning(s)"),
            std::string::npos)
      << named.out;
  CliRun json = docs("--repo-root " + dir.string() + " --today 2026-09-01 --format json", &err);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["files"], 1);
  EXPECT_EQ(j["skipped"], 3);
  fs::remove_all(dir);
}
