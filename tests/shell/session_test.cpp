// Units of the shell's command layer (shell/) and of the certify-tree helpers
// (tools/fusecert/certify_tree.cpp): tokenizer, continuation, completion,
// dispatch errors, raw SMT, the P2 question, input expansion and sharding.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "shell/repl.h"
#include "shell/session.h"
#include "tools/fusecert/certify_tree.h"

namespace fs = std::filesystem;
using namespace fusecert;

namespace {
shell::Session& session() {
  static shell::Session s(verifier::load_registry());
  return s;
}
bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }
}  // namespace

TEST(SplitWords, QuotesAndEscapes) {
  EXPECT_EQ(shell::split_words("  load \"a b.mlir\"  x\\ y "), (std::vector<std::string>{"load", "a b.mlir", "x y"}));
  EXPECT_TRUE(shell::split_words("   ").empty());
  EXPECT_THROW(shell::split_words("load \"open"), std::invalid_argument);
}

TEST(Continuation, OnlySolveWithOpenParentheses) {
  EXPECT_TRUE(shell::needs_continuation("solve (assert (> x 2)"));
  EXPECT_FALSE(shell::needs_continuation("solve (assert (> x 2))"));
  EXPECT_FALSE(shell::needs_continuation("solve (assert true) ; comment with ( paren"));
  EXPECT_TRUE(shell::needs_continuation("solve (declare-const |odd (name| Int"));
  EXPECT_FALSE(shell::needs_continuation("prove (P2"));
}

TEST(Complete, CommandsIdsParametersSettings) {
  auto& s = session();
  EXPECT_EQ(s.complete("pro"), (std::vector<std::string>{"prove"}));
  auto ids = s.complete("show P2");
  EXPECT_TRUE(has(ids, "P2") && has(ids, "P2a") && has(ids, "P2b") && has(ids, "P2c")) << ids.size();
  EXPECT_FALSE(has(ids, "P1"));
  EXPECT_EQ(s.complete("prove P2 c"), (std::vector<std::string>{"c="}));
  EXPECT_EQ(s.complete("prove P2 beta"), (std::vector<std::string>{"beta1=", "beta2="}));
  // A parameter already given is not offered again.
  EXPECT_EQ(s.complete("prove P2 beta1=0 beta"), (std::vector<std::string>{"beta2="}));
  EXPECT_EQ(s.complete("set w"), (std::vector<std::string>{"witnesses"}));
  EXPECT_EQ(s.complete("set witnesses o"), (std::vector<std::string>{"off", "on"}));
  EXPECT_TRUE(s.complete("list ").empty());
  EXPECT_TRUE(s.complete("nosuch ").empty());
}

TEST(Complete, MlirPaths) {
  fs::path d = fs::temp_directory_path() / "fusecert_shell_complete";
  fs::remove_all(d);
  fs::create_directories(d / "sub");
  std::ofstream(d / "a.mlir") << "";
  std::ofstream(d / "b.txt") << "";
  auto c = session().complete("load " + d.string() + "/");
  EXPECT_EQ(c, (std::vector<std::string>{d.string() + "/a.mlir", d.string() + "/sub/"}));
  fs::remove_all(d);
}

TEST(Execute, UnknownCommandSuggests) {
  auto r = session().execute("prov P2");
  EXPECT_EQ(r.status, shell::kError);
  EXPECT_EQ(r.text, "fusecert shell: error: unknown command 'prov'; did you mean 'prove'? [usage]\n"
                    "fusecert shell: note: type 'help' for the list of commands\n");
  EXPECT_EQ(r.json["status"], "error");
}

TEST(Execute, BadArgumentsFailClosed) {
  auto& s = session();
  EXPECT_EQ(s.execute("show P42").status, shell::kError);
  auto bad = s.execute("prove P2 gamma=1");
  EXPECT_EQ(bad.status, shell::kError);
  EXPECT_NE(bad.text.find("'gamma' is not a parameter of P2"), std::string::npos) << bad.text;
  EXPECT_EQ(s.execute("prove P2 beta1=abc").status, shell::kError);
  auto twice = s.execute("prove P2 beta1=0 beta1=0.5");  // the second value used to win silently
  EXPECT_EQ(twice.status, shell::kError);
  EXPECT_NE(twice.text.find("'beta1' is given twice"), std::string::npos) << twice.text;
  auto range = s.execute("prove P2 c=2");  // c = min(1, τ/‖g‖) ∈ (0, 1]
  EXPECT_EQ(range.status, shell::kError);
  EXPECT_NE(range.text.find("'c' must be in (0, 1]"), std::string::npos) << range.text;
  EXPECT_EQ(s.execute("set timeout -5").status, shell::kError);
  EXPECT_EQ(s.execute("why 1").status, shell::kError);
  EXPECT_EQ(s.execute("smt P2.no_such_obligation").status, shell::kError);
  EXPECT_EQ(s.execute("load /no/such/file.mlir").status, shell::kError);
}

TEST(Execute, RawSmt) {
  auto& s = session();
  auto sat = s.execute("solve (declare-const x Int) (assert (> x 2)) (assert (< x 4))");
  ASSERT_EQ(sat.status, shell::kAnswered) << sat.text;
  EXPECT_EQ(sat.json["answer"], "sat");
  EXPECT_EQ(sat.json["model"][0]["value"], "3");
  auto again = s.execute("solve (declare-const x Int) (assert (> x 2)) (assert (< x 4))");
  EXPECT_TRUE(again.json["cached"].get<bool>());
  EXPECT_EQ(s.execute("solve (declare-const x Int) (assert (> x x))").json["answer"], "unsat");
  auto err = s.execute("solve (assert (> y 2))");
  EXPECT_EQ(err.status, shell::kError);
  EXPECT_NE(err.text.find("SMT-LIB2 query rejected"), std::string::npos) << err.text;
  EXPECT_EQ(s.execute("solve").status, shell::kError);
}

TEST(Execute, P2AtBeta1ZeroSaysWhatChanges) {
  auto& s = session();
  auto base = s.execute("prove P2");
  ASSERT_EQ(base.status, shell::kAnswered) << base.text;
  EXPECT_EQ(base.json["proposition"]["verdict"], "refuted");
  auto r = s.execute("prove P2 beta1=0");
  ASSERT_EQ(r.status, shell::kAnswered) << r.text;
  EXPECT_EQ(r.json["verdict_at_defaults"], "refuted");
  EXPECT_NE(r.text.find("parameters: beta1=0 (default"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\nfusecert shell: note: "), std::string::npos) << r.text;
  auto cx = s.execute("cx P2");
  EXPECT_EQ(cx.status, shell::kAnswered);
  EXPECT_FALSE(cx.json["counterexample"].is_null());
  auto obs = s.execute("obligations P2");
  ASSERT_FALSE(obs.json["obligations"].empty());
  std::string id = obs.json["obligations"][0]["id"];
  auto smt = s.execute("smt " + id);
  EXPECT_EQ(smt.status, shell::kAnswered);
  EXPECT_NE(smt.text.find("(assert"), std::string::npos);
}

TEST(Execute, SetAndHelp) {
  auto& s = session();
  EXPECT_EQ(s.execute("set timeout 1234").json["timeout_ms"], 1234);
  EXPECT_EQ(s.timeout_ms(), 1234u);
  s.execute("set timeout 20000");
  auto h = s.execute("help prove");
  EXPECT_EQ(h.json["commands"].size(), 1u);
  EXPECT_EQ(s.execute("help nosuch").status, shell::kError);
  EXPECT_TRUE(s.execute("quit").quit);
}

// `obligations`, `cx` and `smt` answer for the last proof, with the
// parameters it was proved with (not the defaults'), and for the defaults
// again once `prove P2` runs without changes.
TEST(Execute, ObligationsFollowTheLastProof) {
  shell::Session s(verifier::load_registry());
  auto answer_of = [](const shell::Reply& r, const std::string& id) -> std::string {
    for (const auto& ob : r.json["obligations"])
      if (ob["id"] == id) return ob["answer"];
    return "missing";
  };
  ASSERT_EQ(s.execute("prove P2").status, shell::kAnswered);
  EXPECT_EQ(answer_of(s.execute("obligations"), "P2.recover.m"), "sat");
  ASSERT_EQ(s.execute("prove P2 beta1=0").status, shell::kAnswered);
  auto obs = s.execute("obligations");
  ASSERT_EQ(obs.status, shell::kAnswered) << obs.text;
  EXPECT_EQ(answer_of(obs, "P2.recover.m"), "unsat") << obs.text;  // what `prove P2 beta1=0` printed
  EXPECT_EQ(obs.json["parameters"]["beta1"], "0") << obs.text;
  EXPECT_NE(obs.text.find("P2 with"), std::string::npos) << obs.text;
  EXPECT_EQ(answer_of(s.execute("obligations P2"), "P2.recover.m"), "unsat");  // P2's last proof
  // After `set`, the same parameters are proved again, not the defaults.
  s.execute("set timeout 20000");
  EXPECT_EQ(answer_of(s.execute("obligations"), "P2.recover.m"), "unsat");
  ASSERT_EQ(s.execute("prove P2").status, shell::kAnswered);
  EXPECT_EQ(answer_of(s.execute("obligations"), "P2.recover.m"), "sat");
  auto cx = s.execute("cx");
  EXPECT_EQ(cx.text.find("P2 with"), std::string::npos) << "cx after `prove P2` shows the beta1=0 proof: " << cx.text;
}

// `cx` after `why N` shows the counterexample `why` just printed.
TEST(Execute, CxAfterWhyShowsTheCandidate) {
  shell::Session s(verifier::load_registry());
  EXPECT_EQ(s.execute("cx").status, shell::kError);  // nothing yet
  ASSERT_EQ(s.execute("load " FUSECERT_SOURCE_DIR "/fixtures/ir/global_clip_linalg.mlir").status, shell::kAnswered);
  auto why = s.execute("why 1");
  ASSERT_EQ(why.status, shell::kAnswered) << why.text;
  ASSERT_FALSE(why.json["counterexample"].is_null()) << why.text;
  auto cx = s.execute("cx");
  ASSERT_EQ(cx.status, shell::kAnswered) << cx.text;
  EXPECT_EQ(cx.json["candidate"], 1);
  EXPECT_EQ(cx.json["counterexample"]["obligation"], why.json["counterexample"]["obligation"]);
  EXPECT_NE(cx.text.find("counterexample from"), std::string::npos) << cx.text;
  ASSERT_EQ(s.execute("prove P2").status, shell::kAnswered);
  EXPECT_EQ(s.execute("cx").json["id"], "P2");  // the last source wins
}

TEST(Execute, SmtUnknownObligationSaysObligation) {
  auto& s = session();
  auto r = s.execute("smt NOPE");
  EXPECT_EQ(r.status, shell::kError);
  EXPECT_NE(r.text.find("unknown obligation 'NOPE'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("PROPOSITION.NAME"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("unknown proposition"), std::string::npos) << r.text;
  auto r2 = s.execute("smt P2.nope");
  EXPECT_NE(r2.text.find("unknown obligation 'P2.nope'; P2 has: "), std::string::npos) << r2.text;
  EXPECT_NE(r2.text.find("P2.recover.m"), std::string::npos) << r2.text;
}

// Every example `help COMMAND` shows runs, in table order, in a fresh
// session started in the source tree: answered, no error.
TEST(Execute, EveryHelpExampleRuns) {
  auto cwd = fs::current_path();
  fs::current_path(FUSECERT_SOURCE_DIR);
  shell::Session s(verifier::load_registry());
  for (const auto& c : shell::commands()) {
    ASSERT_FALSE(c.example.empty()) << c.name << " has no example";
    EXPECT_EQ(c.example.rfind(c.name, 0), 0u) << c.example;
    EXPECT_EQ(c.summary.find("e.g."), std::string::npos) << c.name << ": put examples in `example` (tested)";
    auto h = s.execute("help " + c.name);
    EXPECT_NE(h.text.find("example: " + c.example), std::string::npos) << h.text;
    auto r = s.execute(c.example);
    EXPECT_EQ(r.status, shell::kAnswered) << c.example << ":\n" << r.text;
    // No shell error line (a `why` of an illegal candidate quotes the
    // compiler-style "file:line:col: error: ... [P2.clip_scope]" diagnostics; those are the answer).
    EXPECT_EQ(("\n" + r.text).find("\nerror"), std::string::npos) << c.example << ":\n" << r.text;
    if (c.name == "quit") EXPECT_TRUE(r.quit);
  }
  fs::current_path(cwd);
}

// Completion offers words only up to each command's arity (name=value
// parameters repeat).
TEST(Complete, StopsAtTheArity) {
  shell::Session s(verifier::load_registry());
  ASSERT_EQ(s.execute("load " FUSECERT_SOURCE_DIR "/fixtures/ir/global_clip_linalg.mlir").status, shell::kAnswered);
  EXPECT_FALSE(s.complete("why ").empty());
  EXPECT_TRUE(s.complete("why 1 ").empty());
  EXPECT_TRUE(s.complete("show P2 ").empty());
  EXPECT_TRUE(s.complete("cx P2 ").empty());
  EXPECT_TRUE(s.complete("obligations P2 ").empty());
  EXPECT_TRUE(s.complete("help smt ").empty());
  EXPECT_TRUE(s.complete("load x.mlir ").empty());
  EXPECT_TRUE(s.complete("smt P2.recover.m ").empty());
  EXPECT_EQ(s.complete("prove P2 beta1=0 c=0.5 beta"), (std::vector<std::string>{"beta2="}));
  EXPECT_EQ(s.complete("set witnesses "), (std::vector<std::string>{"off", "on"}));
  EXPECT_TRUE(s.complete("set timeout ").empty());
  EXPECT_TRUE(s.complete("set witnesses on ").empty());
}

TEST(Execute, SolveDetails) {
  auto& s = session();
  auto err = s.execute("solve (assert (> y 2))");
  ASSERT_EQ(err.status, shell::kError);
  std::string msg = err.json["error"];
  ASSERT_FALSE(msg.empty());
  EXPECT_NE(msg.back(), '\n') << "the JSON error string ends with a newline";
  EXPECT_EQ(err.text.find("\n\n"), std::string::npos) << err.text;
  // Declared functions are named: the model lists constants only.
  auto f = s.execute("solve (declare-fun f (Int) Int) (declare-const x Int) (assert (= (f x) 2))");
  ASSERT_EQ(f.status, shell::kAnswered) << f.text;
  EXPECT_EQ(f.json["functions_not_shown"], nlohmann::json::array({"f"}));
  EXPECT_NE(f.text.find("not shown: f"), std::string::npos) << f.text;
}

TEST(Execute, TimeoutZeroMeansNoLimit) {
  shell::Session s(verifier::load_registry());
  auto r = s.execute("set timeout 0");
  ASSERT_EQ(r.status, shell::kAnswered);
  EXPECT_NE(r.text.find("timeout 0 ms (no limit)"), std::string::npos) << r.text;
  auto sat = s.execute("solve (declare-const x Int) (assert (> x 41)) (assert (< x 43))");
  ASSERT_EQ(sat.status, shell::kAnswered) << sat.text;
  EXPECT_EQ(sat.json["model"][0]["value"], "42");
}

TEST(CertifyTree, ShardParsingAndHash) {
  EXPECT_EQ(cli::parse_shard("2/4"), std::make_pair(2u, 4u));
  for (const char* bad : {"0/4", "5/4", "2", "a/b", "2/4x", "-1/4", "2/0"})
    EXPECT_THROW(cli::parse_shard(bad), std::invalid_argument) << bad;
  std::set<unsigned> used;
  for (int i = 0; i < 64; ++i) {
    unsigned k = cli::shard_of("dir/f" + std::to_string(i) + ".mlir", 4);
    ASSERT_GE(k, 1u);
    ASSERT_LE(k, 4u);
    used.insert(k);
    EXPECT_EQ(k, cli::shard_of("dir/f" + std::to_string(i) + ".mlir", 4));  // deterministic
  }
  EXPECT_EQ(used.size(), 4u);
}

TEST(CertifyTree, ExpandFoldersAndGlobs) {
  fs::path d = fs::temp_directory_path() / "fusecert_tree_expand";
  fs::remove_all(d);
  fs::create_directories(d / "a/b");
  fs::create_directories(d / ".hidden");
  for (auto p : {"x.mlir", "a/y.mlir", "a/b/z.mlir", "a/b/notes.txt", ".hidden/h.mlir"}) std::ofstream(d / p) << "";
  auto cwd = fs::current_path();
  fs::current_path(d);
  EXPECT_EQ(cli::expand_inputs({"."}, false), (std::vector<std::string>{"x.mlir"}));
  EXPECT_EQ(cli::expand_inputs({"."}, true), (std::vector<std::string>{"a/b/z.mlir", "a/y.mlir", "x.mlir"}));
  EXPECT_EQ(cli::expand_inputs({"a/*.mlir"}, false), (std::vector<std::string>{"a/y.mlir"}));
  EXPECT_EQ(cli::expand_inputs({"**/*.mlir"}, false), (std::vector<std::string>{"a/b/z.mlir", "a/y.mlir", "x.mlir"}));
  EXPECT_EQ(cli::expand_inputs({"a/**/z.mlir", "./x.mlir", "x.mlir"}, false),
            (std::vector<std::string>{"a/b/z.mlir", "x.mlir"}));
  // A missing input is the diagnostic of its path (docs/diagnostics.md).
  try {
    (void)cli::expand_inputs({"nosuch"}, false);
    ADD_FAILURE() << "a missing input was accepted";
  } catch (const fusecert::diag::Fatal& f) {
    EXPECT_EQ(f.diagnostic.rule, "input.unreadable");
    EXPECT_EQ(f.diagnostic.loc.file, "nosuch");
    EXPECT_EQ(f.diagnostic.message, "cannot read: No such file or directory");
  }
  EXPECT_THROW(cli::expand_inputs({"a/*.none"}, false), std::invalid_argument);
  fs::current_path(cwd);
  fs::remove_all(d);
}

// The shell's history never follows a symbolic link (it truncated the
// link's target) and never writes into a FIFO or folder; a regular file is
// replaced whole.
TEST(History, NeverWritesThroughALink) {
  const fs::path d = fs::temp_directory_path() / ("fusecert-history-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  { std::ofstream(d / "target") << "precious\n"; }
  fs::create_symlink(d / "target", d / "hist");
  std::string err;
  EXPECT_FALSE(shell::save_history_file((d / "hist").string(), err));
  EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
  std::ifstream in(d / "target");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "precious");
  EXPECT_TRUE(fs::is_symlink(d / "hist"));
  EXPECT_TRUE(shell::history_refusal((d / "hist").string()).has_value());
  fs::create_directory(d / "folder");
  EXPECT_TRUE(shell::history_refusal((d / "folder").string()).has_value());
  EXPECT_FALSE(shell::history_refusal((d / "absent").string()).has_value());
  EXPECT_TRUE(shell::save_history_file((d / "absent").string(), err)) << err;
  EXPECT_TRUE(fs::is_regular_file(d / "absent"));
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 4);  // no temporary left
  fs::remove_all(d);
}
