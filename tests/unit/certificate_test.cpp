// Proposition certificates are deterministic and carry what a re-check needs.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/files.h"
#include "tests/unit/prover_test_util.h"
#include "verifier/report/certificate.h"

using namespace fusecert;
namespace fs = std::filesystem;

TEST(Certificate, ByteIdenticalOnRerunAndComplete) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  auto a = verifier::prove(test::registry(), {"P2", "P4"}, opt);
  auto b = verifier::prove(test::registry(), {"P2", "P4"}, opt);
  fs::path d1 = fs::temp_directory_path() / "fusecert_cert_a", d2 = fs::temp_directory_path() / "fusecert_cert_b";
  fs::remove_all(d1);
  fs::remove_all(d2);
  auto w1 = verifier::report::write_certificates(a, test::registry(), d1);
  auto w2 = verifier::report::write_certificates(b, test::registry(), d2);
  ASSERT_EQ(w1.size(), 2u);
  for (size_t i = 0; i < w1.size(); ++i) EXPECT_EQ(support::read_file(w1[i]), support::read_file(w2[i]));
  auto j = nlohmann::json::parse(support::read_file(d1 / "P2.cert.json"));
  EXPECT_EQ(j["verdict"], "refuted");
  EXPECT_EQ(j["rules_sha256"], test::registry().sha256);
  EXPECT_FALSE(j["z3_version"].get<std::string>().empty());
  EXPECT_EQ(j["obligations"].size(), 6u);  // identities, the general impossibility, the fixed instance
  for (const auto& o : j["obligations"]) {
    EXPECT_TRUE(o.contains("smt2"));
    // What the answer covers (issue #19).
    ASSERT_TRUE(o.contains("scope")) << o["id"];
    EXPECT_FALSE(o["scope"]["theory"].get<std::string>().empty()) << o["id"];
    EXPECT_TRUE(o["scope"]["evidence"].is_boolean()) << o["id"];
    EXPECT_FALSE(o.contains("time_ms"));
    // The stored query re-solves to the stored answer.
    auto r = smt::solve_smt2(o["smt2"].get<std::string>(), 10000);
    EXPECT_EQ(std::string(smt::to_string(r.answer)), o["answer"].get<std::string>());
    // Non-vacuity is recorded: every unsat answer's premises alone are sat.
    if (o["answer"] == "unsat")
      EXPECT_EQ(o["premises"], "sat") << o["id"];
    else
      EXPECT_TRUE(o["premises"].is_null()) << o["id"];
  }
}
