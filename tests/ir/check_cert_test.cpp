// check-cert's statuses (docs/certificates.md): a certificate certify just
// wrote is valid with --ir through the Z3 library, the z3 binary and cvc5,
// for a legal and an illegal candidate; without --ir it is at most
// consistent; with --ir only regenerated text reaches a solver; proposition
// certificates are re-derived by the prover (an edited verdict is invalid,
// another version or rules file stale).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "support/files.h"
#include "support/sha256.h"
#include "verifier/cert/certify.h"
#include "verifier/prover.h"
#include "verifier/report/report.h"

using namespace fusecert;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Case {
  std::string name, text;
  json cert;
};

const Case& fixture(const std::string& name) {
  static std::map<std::string, Case> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Case c{name, support::read_file(fs::path(FUSECERT_SOURCE_DIR) / "fixtures/ir" / name), json()};
  auto r = cert::certify_text(c.text, name, 30000);
  EXPECT_FALSE(r.candidates.empty()) << name;
  if (!r.candidates.empty()) c.cert = cert::certificate(r, 0, verifier::report::tool_version());
  return cache.emplace(name, c).first->second;
}

cert::CheckOutcome check(const json& j, const Case* ir, const std::string& solver = "z3") {
  std::optional<std::pair<std::string, std::string>> in;
  if (ir) in = std::make_pair(ir->text, ir->name);
  return cert::check_certificate(cert::dump(j), in, cert::Solver{solver}, 30000);
}

bool have(const char* bin) { return std::system(("command -v " + std::string(bin) + " > /dev/null 2>&1").c_str()) == 0; }

std::string why(const cert::CheckOutcome& o) {
  std::string s = o.status() + ":";
  for (auto& p : o.problems) s += " " + p;
  for (auto& p : o.undecided) s += " " + p;
  return s;
}

}  // namespace

TEST(CheckCert, FreshCertificatesAreValidWithTheInputThroughEverySolver) {
  for (const char* name : {"adamw_tessera.mlir", "split_k_tessera.mlir"}) {
    const Case& c = fixture(name);
    ASSERT_FALSE(c.cert.is_null());
    EXPECT_EQ(c.cert["verdict"], std::string(name).find("split") != std::string::npos ? "illegal" : "legal");
    auto lib = check(c.cert, &c);
    EXPECT_EQ(lib.status(), "valid") << name << " " << why(lib);
    for (const char* bin : {"/usr/bin/z3", "cvc5"}) {
      if (!have(bin)) {
        ADD_FAILURE() << bin << " is not installed (scripts/install-deps.sh installs it)";
        continue;
      }
      auto o = check(c.cert, &c, bin);
      EXPECT_EQ(o.status(), "valid") << name << " with " << bin << ": " << why(o);
    }
  }
}

TEST(CheckCert, WithoutTheInputAtMostConsistent) {
  for (const char* name : {"adamw_tessera.mlir", "split_k_tessera.mlir"}) {
    auto o = check(fixture(name).cert, nullptr);
    EXPECT_EQ(o.status(), "consistent") << why(o);
    EXPECT_FALSE(o.rederived);
  }
}

// (assert false)(check-sat) for every query, hashes and digest recomputed:
// consistent at most without the input, invalid with it.
TEST(CheckCert, AssertFalseForgeryIsNeverValid) {
  const Case& c = fixture("adamw_tessera.mlir");
  json j = c.cert;
  for (auto& o : j["obligations"])
    if (o["how"] == "smt") {
      o["smt2"] = "(assert false)\n(check-sat)\n";
      o["smt2_sha256"] = support::sha256_hex(o["smt2"].get<std::string>());
    }
  j["digest"] = cert::digest(j);
  EXPECT_NE(check(j, nullptr).status(), "valid");
  auto with = check(j, &c);
  EXPECT_EQ(with.status(), "invalid") << why(with);
}

// A vacuous proof: one unsat obligation's query replaced by one whose goal
// is unsat only because its premises contradict (x > 1 and x < 0), the
// recorded premise answer left at sat, hashes and digest recomputed. The
// query itself answers unsat, as recorded; only the premise re-run (x > 1
// and x < 0 alone: unsat, by the semantics of the reals) contradicts the
// certificate, so without the input it is invalid for that reason alone.
TEST(CheckCert, VacuousProofForgeryIsInvalidWithoutTheInput) {
  const Case& c = fixture("adamw_tessera.mlir");
  json j = c.cert;
  std::string id;
  for (auto& o : j["obligations"])
    if (o["how"] == "smt" && o["answer"] == "unsat" && o["premises"] == "sat" && id.empty()) {
      id = o["id"];
      o["smt2"] =
          "(declare-fun x () Real)\n(assert (> x 1.0))\n(assert (< x 0.0))\n(assert (not (= x x)))\n(check-sat)\n";
      o["smt2_sha256"] = support::sha256_hex(o["smt2"].get<std::string>());
    }
  ASSERT_FALSE(id.empty()) << "adamw_tessera.mlir's certificate has no unsat obligation over satisfiable premises";
  j["digest"] = cert::digest(j);
  auto o = check(j, nullptr);
  EXPECT_EQ(o.status(), "invalid") << why(o);
  ASSERT_EQ(o.problems.size(), 1u) << why(o);
  EXPECT_NE(o.problems[0].find(id + " (premises alone)"), std::string::npos) << o.problems[0];
  EXPECT_NE(o.problems[0].find("answers unsat, the certificate records sat"), std::string::npos) << o.problems[0];
  auto with = check(j, &c);
  EXPECT_EQ(with.status(), "invalid") << why(with);
}

// With --ir the certificate's text is compared, never solved: a solver that
// logs what it is given sees only regenerated text, and nothing at all when
// the certificate's text differs.
TEST(CheckCert, OnlyRegeneratedTextReachesASolver) {
  const fs::path d = fs::temp_directory_path() / ("fusecert-checkcert-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path log = d / "seen.smt2", solver = d / "logging-solver";
  {
    std::ofstream s(solver);
    s << "#!/bin/sh\ncat \"$1\" >> '" << log.string() << "'\nexec z3 -smt2 \"$1\"\n";
  }
  fs::permissions(solver, fs::perms::owner_all);
  const Case& c = fixture("adamw_tessera.mlir");
  json j = c.cert;
  std::string edited;
  for (auto& o : j["obligations"])
    if (o["how"] == "smt" && edited.empty()) {
      edited = o["smt2"].get<std::string>() + "; an edit\n(assert true)\n";
      // keep check-sat last: move it after the edit
      const auto at = edited.find("(check-sat)");
      edited.erase(at, 11);
      edited += "(check-sat)\n";
      o["smt2"] = edited;
      o["smt2_sha256"] = support::sha256_hex(edited);
    }
  j["digest"] = cert::digest(j);
  auto bad = check(j, &c, solver.string());
  EXPECT_EQ(bad.status(), "invalid") << why(bad);
  EXPECT_FALSE(fs::exists(log)) << "a solver ran on a certificate whose text differs from the re-derivation";
  auto good = check(c.cert, &c, solver.string());
  EXPECT_EQ(good.status(), "valid") << why(good);
  ASSERT_TRUE(fs::exists(log));
  const std::string seen = support::read_file(log);
  EXPECT_EQ(seen.find("; an edit"), std::string::npos);
  for (auto& o : c.cert["obligations"])
    if (o["how"] == "smt") EXPECT_NE(seen.find(o["smt2"].get<std::string>()), std::string::npos);
  fs::remove_all(d);
}

TEST(CheckCert, PropositionCertificatesAreReDerived) {
  auto reg = verifier::load_registry(fs::path(FUSECERT_SOURCE_DIR) / "rules");
  verifier::ProveOptions opt;
  opt.witnesses = false;
  auto rs = verifier::prove(reg, {"P9"}, opt);
  ASSERT_EQ(rs.size(), 1u);
  json good = json(verifier::report::render_certificate(rs[0], reg));
  auto ok = check(good, nullptr);
  EXPECT_EQ(ok.status(), "valid") << why(ok);
  // An edited verdict, digest recomputed: the prover derives another.
  json flip = good;
  flip["verdict"] = good["verdict"] == "holds" ? "refuted" : "holds";
  flip["digest"] = verifier::report::proposition_digest(flip);
  auto f = check(flip, nullptr);
  EXPECT_EQ(f.status(), "invalid") << why(f);
  // Without the recomputed digest: corruption, invalid too.
  json corrupt = good;
  corrupt["verdict"] = flip["verdict"];
  EXPECT_EQ(check(corrupt, nullptr).status(), "invalid");
  // Another fusecert version, another rules file: stale.
  json other = good;
  other["tool"]["version"] = "0.0.0-other";
  other["digest"] = verifier::report::proposition_digest(other);
  EXPECT_EQ(check(other, nullptr).status(), "stale");
  json rules = good;
  rules["rules_sha256"] = std::string(64, '0');
  rules["digest"] = verifier::report::proposition_digest(rules);
  EXPECT_EQ(check(rules, nullptr).status(), "stale");
}

// A query that would write a file (set-option + echo), hashes and digest
// recomputed: invalid before any solver runs, with or without the input,
// with the library and with the z3 binary; the file is never created.
TEST(CheckCert, HostileQueryIsInvalidAndRunsNothing) {
  const Case& c = fixture("adamw_tessera.mlir");
  const fs::path out = fs::temp_directory_path() / ("fusecert-pwned-" + std::to_string(::getpid()));
  fs::remove(out);
  json j = c.cert;
  for (auto& o : j["obligations"])
    if (o["how"] == "smt") {
      o["smt2"] = "(set-option :regular-output-channel \"" + out.string() + "\")\n(echo \"pwned\")\n" +
                  o["smt2"].get<std::string>();
      o["smt2_sha256"] = support::sha256_hex(o["smt2"].get<std::string>());
      break;
    }
  j["digest"] = cert::digest(j);
  for (const Case* ir : {static_cast<const Case*>(nullptr), &c})
    for (const char* solver : {"z3", "/usr/bin/z3"}) {
      auto o = check(j, ir, solver);
      EXPECT_EQ(o.status(), "invalid") << why(o);
      ASSERT_FALSE(o.problems.empty());
      EXPECT_NE(o.problems[0].find("(set-option …) is not allowed"), std::string::npos) << o.problems[0];
    }
  EXPECT_FALSE(fs::exists(out));
}
