// Units of the IR checker: the MLIR front end, the P9 locality query, body
// recognition by proof, certificates and the re-checker.
#include <gtest/gtest.h>

#include "support/files.h"
#include "verifier/cert/certify.h"
#include "verifier/ir/candidates.h"
#include "verifier/ir/locality.h"
#include "verifier/ir/recognize.h"

using namespace fusecert;

namespace {

smt::Answer solve(const std::string& q) { return smt::solve_smt2(q, 30000).answer; }

ir::Module parse_ok(const std::string& text) {
  auto r = ir::parse_mlir(text, "t.mlir");
  EXPECT_TRUE(r.module.has_value());
  for (auto& d : r.diags) ADD_FAILURE() << d.message;
  return r.module ? *r.module : ir::Module{};
}

std::string fixture(const std::string& name) { return support::read_file(std::string(FUSECERT_FIXTURES) + "/" + name); }

}  // namespace

TEST(Locality, IdentityMapIsCoordinateForEveryTileSize) {
  auto p = ir::problem_for(ir::Locality::Coordinate, {256, 128});
  EXPECT_EQ(solve(ir::locality_query(p)), smt::Answer::Unsat);
  // Symbolic shape too.
  EXPECT_EQ(solve(ir::locality_query(ir::problem_for(ir::Locality::Coordinate, {-1, -1}))), smt::Answer::Unsat);
}

TEST(Locality, RowAndColumnStatisticsAreNotLocalAndAreClassified) {
  for (auto [l, want] : {std::pair{ir::Locality::Row, ir::Locality::Row}, {ir::Locality::Column, ir::Locality::Column},
                         {ir::Locality::Tensor, ir::Locality::Tensor}}) {
    auto p = ir::problem_for(l, {256, 128});
    EXPECT_EQ(solve(ir::locality_query(p)), smt::Answer::Sat) << ir::to_string(l);
    std::vector<bool> spreads;
    for (unsigned r = 0; r < 2; ++r) spreads.push_back(solve(ir::spread_query(p, r)) == smt::Answer::Sat);
    EXPECT_EQ(ir::classify(spreads), want) << ir::to_string(l);
  }
}

TEST(Locality, ShiftedReadIsCaughtByTheHomeTileCondition) {
  // out(i, j) reads g(i + 1, j): every output reads one element, but not its own.
  ir::LocalityProblem p = ir::problem_for(ir::Locality::Coordinate, {256, 128});
  p.dim_sizes = {255, 128};
  p.grad_map.results[0] = ir::AffineExpr::bin(ir::AffineExpr::Kind::Add, ir::AffineExpr::dim(0), ir::AffineExpr::cst(1));
  EXPECT_EQ(solve(ir::locality_query(p)), smt::Answer::Sat);
}

TEST(FrontEnd, EmbeddedTrainingStepHasTwoWgradCandidates) {
  ir::Module m = parse_ok(cert::embedded_training_step());
  auto c = ir::find_candidates(m);
  ASSERT_EQ(c.size(), 2u);  // the forward matmul and the ΔX GEMM are not wgrad producers
  for (auto& x : c) {
    EXPECT_EQ(m.ops[x.producer].name, "linalg.matmul_transpose_a");
    ASSERT_GE(x.consumer, 0);
    EXPECT_EQ(m.ops[x.consumer].name, "linalg.generic");
    EXPECT_EQ(x.consumer_operand, 1);
  }
  EXPECT_TRUE(ir::unknown_ops(m).empty());
}

TEST(FrontEnd, SyntaxErrorsAndEmptyInputAreDiagnostics) {
  auto r = ir::parse_mlir("func.func @f( {", "bad.mlir");
  EXPECT_FALSE(r.module.has_value());
  ASSERT_FALSE(r.diags.empty());
  EXPECT_EQ(r.diags[0].loc.file, "bad.mlir");
  EXPECT_EQ(r.diags[0].loc.line, 1u);
  auto e = ir::parse_mlir("   \n", "empty.mlir");
  EXPECT_FALSE(e.module.has_value());
  ASSERT_EQ(e.diags.size(), 1u);
}

TEST(Recognize, AdamWBodyIsProvenAndAPerturbedOneIsNot) {
  ir::Module m = parse_ok(cert::embedded_training_step());
  auto c = ir::find_candidates(m);
  const ir::Op& cons = m.ops[c[0].consumer];
  auto attr = [&](const std::string& k) { return cons.attr(k); };
  ir::Recognition r = ir::recognize(*cons.body, 1, cons.num_inputs, attr, 30000);
  EXPECT_EQ(r.kind, "adamw");
  EXPECT_EQ(r.result.answer, smt::Answer::Unsat);
  EXPECT_EQ(r.roles, (std::vector<std::string>{"W", "g", "m", "v"}));
  // The same body with β₂ = 0.99 in place of 0.999 is not AdamW(β₂ = 0.999).
  std::string text = cert::embedded_training_step();
  const std::string from = "%b2 = arith.constant 0.999", to = "%b2 = arith.constant 0.990";
  int replaced = 0;
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos)) {
    text.replace(pos, from.size(), to);
    ++replaced;
  }
  ASSERT_EQ(replaced, 2);  // both AdamW bodies
  ir::Module m2 = parse_ok(text);
  auto c2 = ir::find_candidates(m2);
  const ir::Op& cons2 = m2.ops[c2[0].consumer];
  ir::Recognition r2 = ir::recognize(*cons2.body, 1, cons2.num_inputs, [&](const std::string& k) { return cons2.attr(k); }, 30000);
  EXPECT_EQ(r2.kind, "");
}

TEST(Certificates, DeterministicAndRecheckable) {
  auto a = cert::certify_text(cert::embedded_training_step(), "x.mlir", 30000);
  auto b = cert::certify_text(cert::embedded_training_step(), "x.mlir", 30000);
  ASSERT_EQ(a.candidates.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    std::string ca = cert::dump(cert::certificate(a, i, "t")), cb = cert::dump(cert::certificate(b, i, "t"));
    EXPECT_EQ(ca, cb);
    EXPECT_EQ(ca.find("time_ms"), std::string::npos);
    auto ok = cert::check_certificate(ca, std::make_pair(cert::embedded_training_step(), std::string("x.mlir")),
                                      cert::Solver{"z3"}, 30000);
    EXPECT_TRUE(ok.valid) << (ok.problems.empty() ? "" : ok.problems[0]);
    auto j = nlohmann::json::parse(ca);
    j["verdict"] = "illegal";
    EXPECT_FALSE(cert::check_certificate(j.dump(2), std::nullopt, cert::Solver{"z3"}, 30000).valid);
    EXPECT_FALSE(cert::check_certificate(ca.substr(0, ca.size() / 3), std::nullopt, cert::Solver{"z3"}, 30000).valid);
  }
  EXPECT_EQ(cert::exit_code({a}), 0);
}

TEST(Certificates, ExitCodesFollowTheVerdicts) {
  auto illegal = cert::certify_text(fixture("split_k_tessera.mlir"), "s.mlir", 60000);
  ASSERT_EQ(illegal.candidates.size(), 1u);
  EXPECT_EQ(illegal.candidates[0].verdict, "illegal");
  ASSERT_TRUE(illegal.candidates[0].counterexample.has_value());
  EXPECT_EQ(cert::exit_code({illegal}), 1);
  auto missing = cert::certify_text(fixture("missing_keys_tessera.mlir"), "k.mlir", 30000);
  EXPECT_EQ(missing.candidates.at(0).verdict, "inconclusive");
  EXPECT_EQ(cert::exit_code({missing}), 2);
  EXPECT_EQ(cert::exit_code({illegal, missing}), 2);
}
