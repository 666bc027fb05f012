// The SMT-LIB2 whitelist (verifier/smt/whitelist.h): what it refuses (every
// command with an effect outside the query), what it accepts (Z3's own
// rendering of our queries), and that every query fusecert generates — the
// prover's, certify's and validate's — passes it (each is also refused by
// smt::solve_smt2 otherwise, so a query that did not pass would be an error).
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <unistd.h>

#include "support/files.h"
#include "verifier/cert/certify.h"
#include "verifier/prover.h"
#include "verifier/smt/arith.h"
#include "verifier/smt/query.h"
#include "verifier/smt/whitelist.h"
#include "verifier/tv/validate.h"

using namespace fusecert;
namespace fs = std::filesystem;

namespace {
const std::string kOk =
    "; \n(set-info :status unknown)\n(declare-fun x () Int)\n(declare-const |a (b)| Real)\n"
    "(define-fun f ((y Int)) Int (+ y 1))\n(assert (let ((?z (f x))) (> ?z 2)))\n"
    "(assert (! (= \"a)\"\"(\" \"a)\"\"(\") :named s))\n(check-sat)\n";
bool refused(const std::string& q, const std::string& what) {
  auto p = smt::whitelist_problem(q);
  return p && p->find(what) != std::string::npos;
}
}  // namespace

TEST(Whitelist, AcceptsDeclarationsDefinitionsAssertionsAndOneCheckSat) {
  EXPECT_FALSE(smt::whitelist_problem(kOk)) << *smt::whitelist_problem(kOk);
  EXPECT_FALSE(smt::whitelist_problem("(set-logic QF_LIA)(declare-fun x () Int)(assert (> x 0))(check-sat)"));
  EXPECT_FALSE(smt::whitelist_problem("(assert true)", smt::CheckSats::at_most_one));
}

TEST(Whitelist, RefusesEveryCommandWithAnEffect) {
  const std::string body = "(declare-fun x () Int)\n(assert (> x 0))\n";
  for (const char* c : {"set-option :regular-output-channel \"/tmp/x\"", "echo \"unsat\"", "exit", "reset",
                        "push 1", "pop 1", "get-model", "get-value (x)", "get-info :reason-unknown",
                        "include \"/etc/passwd\"", "eval x", "check-sat-using smt", "reset-assertions",
                        "get-assertions", "simplify x", "display x"}) {
    const std::string name = std::string(c).substr(0, std::string(c).find(' '));
    EXPECT_TRUE(refused("(" + std::string(c) + ")\n" + body + "(check-sat)\n", "(" + name + " …) is not allowed")) << c;
    EXPECT_TRUE(refused(body + "(check-sat)\n(" + c + ")\n", "(" + name + " …)")) << c;
  }
  EXPECT_TRUE(refused("(set-info :regular-output-channel \"/tmp/x\")" + body + "(check-sat)", "(set-info :regular"));
  EXPECT_TRUE(refused(body + "(check-sat)\n(check-sat)\n", "after (check-sat)"));
  EXPECT_TRUE(refused(body, "no (check-sat)"));
  EXPECT_TRUE(refused(body + "(check-sat) x", "text outside a command"));
  EXPECT_TRUE(refused(body + "(check-sat x)", "with arguments"));
  EXPECT_TRUE(refused(body + "(assert (> x 0)", "unterminated"));
  EXPECT_TRUE(refused(body + "(assert (= \"a\" \"b))(check-sat)", "unterminated string"));
  EXPECT_TRUE(refused("(echo \"unsat\")\n", "(echo"));
  EXPECT_TRUE(refused("()", "without a name"));
}

TEST(Whitelist, SolveRefusesBeforeZ3ParsesAnything) {
  const fs::path out = fs::temp_directory_path() / ("fusecert-whitelist-" + std::to_string(::getpid()));
  fs::remove(out);
  auto r = smt::solve_smt2("(set-option :regular-output-channel \"" + out.string() + "\")\n(echo \"pwned\")\n(check-sat)\n", 5000);
  EXPECT_EQ(r.answer, smt::Answer::Error);
  EXPECT_NE(r.reason.find("refused before solving"), std::string::npos) << r.reason;
  EXPECT_FALSE(fs::exists(out));
}

// Every query the prover writes (each proposition, witnesses off; a 1 ms
// limit: the text is what is checked, not the answer).
TEST(Whitelist, EveryProverQueryPasses) {
  auto reg = verifier::load_registry(fs::path(FUSECERT_SOURCE_DIR) / "rules");
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.timeout_ms = 1;
  size_t n = 0;
  for (const auto& r : verifier::prove(reg, verifier::known_ids(reg), opt))
    for (const auto& o : r.obligations) {
      auto p = smt::whitelist_problem(o.query());
      EXPECT_FALSE(p) << o.id << ": " << *p;
      ++n;
    }
  EXPECT_GT(n, 20u);
}

// Every query certify writes for the IR fixtures, and validate for the TV ones.
TEST(Whitelist, EveryCertifyAndValidateQueryPasses) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(FUSECERT_SOURCE_DIR) / "fixtures/ir")) {
    if (e.path().extension() != ".mlir") continue;
    cert::InputReport r = cert::certify_text(support::read_file(e.path()), e.path().filename().string(), 1);
    for (const auto& c : r.candidates)
      for (const auto& o : c.obligations)
        if (o.how == "smt") {
          auto p = smt::whitelist_problem(*o.smt2);
          EXPECT_FALSE(p) << e.path().filename() << " " << o.id << ": " << *p;
          ++n;
        }
  }
  for (const auto& e : fs::directory_iterator(fs::path(FUSECERT_SOURCE_DIR) / "fixtures/tv")) {
    if (e.path().extension() != ".mlir") continue;
    tv::ValidateOptions opt;
    opt.timeout_ms = 1;
    opt.search_trials = 0;
    tv::Validation v = tv::validate_texts(support::read_file(e.path()), e.path().string(), std::nullopt,
                                          e.path().string(), opt);
    for (const auto& p : v.pairs)
      for (const auto& rc : p.results) {
        auto w = smt::whitelist_problem(rc.smt2);
        EXPECT_FALSE(w) << e.path().filename() << ": " << *w;
        ++n;
      }
  }
  EXPECT_GT(n, 50u);
}

// Non-finite doubles: no real-number encoding (a caller that skipped its
// boundary check gets an exception, never a malformed numeral), and the
// IEEE encoding of ±inf (a max-reduction's initial value) is ±oo.
TEST(NonFinite, RealsRefuseFloatsEncode) {
  EXPECT_THROW(smt::exact_decimal(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(smt::exact_decimal(-std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(smt::exact_decimal(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_EQ(smt::exact_decimal(1e-4), "0.0001");
  z3::context ctx;
  smt::FpArith fa(ctx, 8, 24, {});
  z3::solver s(ctx);
  s.add(!fa.num(-std::numeric_limits<double>::infinity()).mk_is_inf());
  EXPECT_EQ(s.check(), z3::unsat);
  z3::solver t(ctx);
  t.add(z3::expr(ctx, Z3_mk_fpa_is_positive(ctx, fa.num(-std::numeric_limits<double>::infinity()))));
  EXPECT_EQ(t.check(), z3::unsat);
}
