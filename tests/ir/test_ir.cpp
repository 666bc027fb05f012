// Units of the IR checker: the MLIR front end, the P9 locality query, body
// recognition by proof, certificates and the re-checker.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <z3++.h>

#include "support/files.h"
#include "verifier/cert/certify.h"
#include "verifier/guards/guards.h"
#include "verifier/ir/attributes.h"
#include "verifier/ir/candidates.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/locality.h"
#include "verifier/ir/recognize.h"
#include "verifier/ir/split.h"

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
  // A missing key is an error diagnostic on an inconclusive candidate: an
  // input error (2, issue #14), which outranks illegal.
  EXPECT_EQ(cert::exit_code({missing}), 2);
  EXPECT_EQ(cert::exit_code({illegal, missing}), 2);
  // (Inconclusive with no error diagnostic, 3, and illegal over it: in
  // tests/cli/exit_codes_test.sh, where a fresh process has no answer cache.)
}

// The obligation table of docs/certificates.md is the data of
// verifier/guards/obligations.h: same ids, how, expected, decides and
// required forms, row for row.
#include <sstream>

#include "verifier/guards/obligations.h"

TEST(ObligationTable, DocsMatchTheSharedTable) {
  const std::string doc = support::read_file(std::string(FUSECERT_FIXTURES) + "/../../docs/certificates.md");
  std::istringstream in(doc);
  std::string line;
  size_t rows = 0;
  auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cur;
    for (size_t i = 1; i < l.size(); ++i) {
      if (l[i] == '|') {
        size_t a = cur.find_first_not_of(' '), b = cur.find_last_not_of(' ');
        out.push_back(a == std::string::npos ? "" : cur.substr(a, b - a + 1));
        cur.clear();
      } else {
        cur += l[i];
      }
    }
    return out;
  };
  while (std::getline(in, line)) {
    if (line.rfind("| `P", 0) != 0 && line.rfind("| `TV", 0) != 0) continue;
    auto c = cells(line);
    ASSERT_EQ(c.size(), 6u) << line;
    std::string id = c[0].substr(1, c[0].size() - 2);
    if (auto p = id.find('<'); p != std::string::npos) id = id.substr(0, p) + "0";
    const guards::ObligationSpec* s = guards::find_obligation(id);
    ASSERT_NE(s, nullptr) << id << " is documented but not in obligations.h";
    ASSERT_LT(rows, std::size(guards::kObligations));
    EXPECT_EQ(std::string(guards::kObligations[rows].id), std::string(s->id)) << "row order differs at " << id;
    EXPECT_EQ(c[1].substr(0, c[1].find(' ')), s->how) << id;
    EXPECT_EQ(c[3], s->expected) << id;
    EXPECT_EQ(c[4], s->decides ? "yes" : "no") << id;
    std::string req = s->required == guards::kAllForms ? "all"
                      : s->required == guards::kFused ? "fused"
                      : s->required == guards::kDag ? "dag"
                      : s->required == (guards::kLinalg | guards::kBufferized) ? "linalg, bufferized (linalg.generic consumer)"
                      : s->required == guards::kTv ? "translation validation"
                      : s->required == 0 ? "—" : "?";
    EXPECT_EQ(c[5], req) << id;
    ++rows;
  }
  EXPECT_EQ(rows, std::size(guards::kObligations)) << "docs/certificates.md and obligations.h list different obligations";
}

// check-cert without the IR: a table violation is invalid even with a
// recomputed digest (flipped expected, decides false, smt turned structural,
// a dropped obligation of a legal certificate).
TEST(CheckCert, ObligationTableWithoutIr) {
  const std::string text = fixture("tamper.mlir");
  cert::InputReport r = cert::certify_text(text, "tamper.mlir", 30000);
  ASSERT_FALSE(r.candidates.empty());
  nlohmann::json good = cert::certificate(r, 0, "test");
  ASSERT_EQ(good["verdict"], "legal");
  cert::Solver z3{"z3"};
  auto check = [&](nlohmann::json j) {
    j["digest"] = cert::digest(j);
    return cert::check_certificate(cert::dump(j), std::nullopt, z3, 30000);
  };
  auto ok = check(good);
  EXPECT_TRUE(ok.valid);
  EXPECT_GT(ok.structural_unchecked, 0u);
  auto find = [](nlohmann::json& j, const std::string& id) -> nlohmann::json& {
    for (auto& o : j["obligations"])
      if (o["id"] == id) return o;
    throw std::runtime_error("no " + id);
  };
  {
    auto j = good;
    find(j, "P9.locality")["expected"] = "sat";
    EXPECT_FALSE(check(j).valid);
  }
  {
    auto j = good;
    find(j, "P9.locality")["decides"] = false;
    EXPECT_FALSE(check(j).valid);
  }
  {
    auto j = good;
    auto& o = find(j, "P9.locality");
    o["how"] = "structural";
    o["expected"] = "holds";
    o["answer"] = "holds";
    EXPECT_FALSE(check(j).valid);
  }
  {
    auto j = good;
    nlohmann::json kept = nlohmann::json::array();
    for (auto& o : j["obligations"])
      if (o["id"] != "P1.k_order") kept.push_back(o);
    j["obligations"] = kept;
    EXPECT_FALSE(check(j).valid);
  }
}

// P3 reduce-into-state: a collective on an optimizer output is checked affine
// in g. Momentum's B and AdamW's m are (unsat), AdamW's v is not (sat, with a
// model); the certificate re-checks, and its P3 obligation is in the table.
TEST(ReduceIntoState, AffineStateIsExactQuadraticIsNot) {
  auto p3 = [](const guards::CandidateReport& c, const std::string& id) -> const guards::Obligation* {
    for (auto& o : c.obligations)
      if (o.id == id) return &o;
    return nullptr;
  };
  const std::string legal_text = fixture("reduce_into_state_linalg.mlir");
  auto legal = cert::certify_text(legal_text, "l.mlir", 30000);
  ASSERT_EQ(legal.candidates.size(), 2u);
  for (auto& c : legal.candidates) {
    EXPECT_EQ(c.verdict, "legal");
    const guards::Obligation* o = p3(c, "P3.reduce_into_state.out1");
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->answer, "unsat");
    EXPECT_EQ(o->logic, "QF_NRA");
  }
  const std::string text = fixture("reduce_into_state_v_tessera.mlir");
  auto bad = cert::certify_text(text, "v.mlir", 30000);
  ASSERT_EQ(bad.candidates.size(), 2u);
  const auto& adamw = bad.candidates[0];
  EXPECT_EQ(adamw.verdict, "illegal");
  const guards::Obligation* v = p3(adamw, "P3.reduce_into_state.out2");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->answer, "sat");
  ASSERT_TRUE(adamw.counterexample.has_value());
  EXPECT_EQ(adamw.counterexample->obligation, "P3.reduce_into_state.out2");
  std::vector<std::string> names;
  for (auto& mv : adamw.counterexample->values) names.push_back(mv.name);
  for (const char* n : {"g1", "g2", "v", "reduced", "stepped"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  // The fused op reduces m (exact) and v (not).
  const auto& fused = bad.candidates[1];
  EXPECT_EQ(fused.cand.form, ir::Form::Fused);
  ASSERT_NE(p3(fused, "P3.reduce_into_state.out1"), nullptr);
  EXPECT_EQ(p3(fused, "P3.reduce_into_state.out1")->answer, "unsat");
  EXPECT_EQ(p3(fused, "P3.reduce_into_state.out2")->answer, "sat");
  EXPECT_EQ(cert::exit_code({bad}), 1);
  // check-cert: valid against the input; a P3 obligation that no longer
  // decides (recomputed digest) breaks the table, and a flipped verdict the rule.
  std::string c0 = cert::dump(cert::certificate(bad, 0, "t"));
  auto ok = cert::check_certificate(c0, std::make_pair(text, std::string("v.mlir")), cert::Solver{"z3"}, 30000);
  EXPECT_TRUE(ok.valid) << (ok.problems.empty() ? "" : ok.problems[0]);
  auto j = nlohmann::json::parse(c0);
  for (auto& o : j["obligations"])
    if (o["id"] == "P3.reduce_into_state.out2") o["decides"] = false;
  j["digest"] = cert::digest(j);
  EXPECT_FALSE(cert::check_certificate(cert::dump(j), std::nullopt, cert::Solver{"z3"}, 30000).valid);
  auto k = nlohmann::json::parse(c0);
  k["verdict"] = "legal";
  k["digest"] = cert::digest(k);
  EXPECT_FALSE(cert::check_certificate(cert::dump(k), std::nullopt, cert::Solver{"z3"}, 30000).valid);
}

// Collective keys: reduction must be "sum", ranks an integer >= 1, nothing else
// (scatter_dim only on reduce_scatter).
TEST(ReduceIntoState, CollectiveKeysFailClosed) {
  ir::Module m = parse_ok(
      "func.func @f(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<1xf32>) {\n"
      "  %0 = \"tessera.all_reduce\"(%a) {reduction = \"sum\", ranks = 8 : i64} : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  %1 = \"tessera.all_reduce\"(%a) {reduction = \"max\", scatter_dim = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>\n"
      "  %2 = \"tessera.reduce_scatter\"(%a) {reduction = \"sum\", ranks = 8 : i64, scatter_dim = 0 : i64} : (tensor<8xf32>) -> tensor<1xf32>\n"
      "  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<1xf32>\n}\n");
  EXPECT_TRUE(ir::unknown_ops(m).empty());
  std::vector<const ir::Op*> colls;
  for (auto& op : m.ops)
    if (ir::is_tessera_collective(op.name)) colls.push_back(&op);
  ASSERT_EQ(colls.size(), 3u);
  EXPECT_TRUE(ir::collective_key_problems(m, *colls[0]).empty());
  auto p = ir::collective_key_problems(m, *colls[1]);
  ASSERT_EQ(p.size(), 3u);  // reduction = "max", ranks missing, scatter_dim unknown on all_reduce
  EXPECT_EQ(p[0].key, "reduction");
  EXPECT_FALSE(p[0].missing);
  EXPECT_EQ(p[1].key, "ranks");
  EXPECT_TRUE(p[1].missing);
  EXPECT_EQ(p[2].key, "scatter_dim");
  EXPECT_TRUE(ir::collective_key_problems(m, *colls[2]).empty());
  EXPECT_EQ(ir::collective_key_diags(m, {}).size(), 3u);
  EXPECT_TRUE(ir::collective_key_diags(m, {colls[1]->id}).empty());

  // Types that contradict the keys: a shard that is not the operand divided
  // by ranks, an all-reduce that changes the shape, an uneven shard.
  ir::Module t = parse_ok(
      "func.func @f(%a: tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<4x8xf32>, tensor<2x4xf32>, tensor<8x1xf32>) {\n"
      "  %0 = \"tessera.reduce_scatter\"(%a) {reduction = \"sum\", ranks = 2 : i64} : (tensor<8x4xf32>) -> tensor<2x4xf32>\n"
      "  %1 = \"tessera.all_reduce\"(%a) {reduction = \"sum\", ranks = 2 : i64} : (tensor<8x4xf32>) -> tensor<4x8xf32>\n"
      "  %2 = \"tessera.reduce_scatter\"(%a) {reduction = \"sum\", ranks = 3 : i64} : (tensor<8x4xf32>) -> tensor<2x4xf32>\n"
      "  %3 = \"tessera.reduce_scatter\"(%a) {reduction = \"sum\", ranks = 4 : i64, scatter_dim = 1 : i64} : (tensor<8x4xf32>) -> tensor<8x1xf32>\n"
      "  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<4x8xf32>, tensor<2x4xf32>, tensor<8x1xf32>\n}\n");
  std::vector<const ir::Op*> tc;
  for (auto& op : t.ops)
    if (ir::is_tessera_collective(op.name)) tc.push_back(&op);
  ASSERT_EQ(tc.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ir::collective_key_problems(t, *tc[i]).size(), 1u) << i;
  EXPECT_EQ(ir::collective_key_problems(t, *tc[2])[0].key, "ranks");
  EXPECT_TRUE(ir::collective_key_problems(t, *tc[3]).empty());
}

TEST(SplitInputFile, CutsOnMarkerLinesOnlyAndKeepsLines) {
  const std::string text =
      "a\n// -----\nb\n  // -----  \r\nc\n// ------------\nd\n// ----- trailing\ne\n// -----";
  auto s = ir::split_input(text);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].text, "a\n");
  EXPECT_EQ(s[0].first_line, 1u);
  EXPECT_EQ(s[1].text, "b\n");
  EXPECT_EQ(s[1].first_line, 3u);
  // A banner of dashes and a marker followed by text do not cut.
  EXPECT_EQ(s[2].text, "c\n// ------------\nd\n// ----- trailing\ne\n");
  EXPECT_EQ(s[2].first_line, 5u);
  EXPECT_EQ(s[3].text, "");
  EXPECT_EQ(s[3].first_line, 11u);
  auto one = ir::split_input("x\ny\n");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].text, "x\ny\n");
}

TEST(SplitInputFile, EachSplitIsItsOwnModuleWithTheFilesLines) {
  const std::string ok = "func.func @f() {\n  return\n}\n";
  const std::string text = ok + "// -----\n" + "func.func @g( {\n" + "// -----\n\n" + "// -----\n" + ok;
  auto r = cert::certify_splits(text, "s.mlir", 30000);
  ASSERT_EQ(r.size(), 4u);
  for (size_t i = 0; i < r.size(); ++i) {
    ASSERT_TRUE(r[i].split);
    EXPECT_EQ(r[i].split->index, i);
    EXPECT_EQ(r[i].split->count, 4u);
    EXPECT_EQ(r[i].sha256, r[0].sha256);  // the whole file's
  }
  EXPECT_TRUE(r[0].parsed);
  EXPECT_FALSE(r[0].has_errors());
  // The broken split is an input error at its line in the file, and only it.
  EXPECT_FALSE(r[1].parsed);
  ASSERT_FALSE(r[1].diags.empty());
  EXPECT_EQ(r[1].diags[0].rule, "input.parse");
  EXPECT_EQ(r[1].diags[0].loc.line, 5u);
  // A blank split is an empty module, not an error.
  EXPECT_TRUE(r[2].parsed);
  EXPECT_FALSE(r[2].has_errors());
  EXPECT_EQ(r[2].split->line, 7u);
  EXPECT_TRUE(r[3].parsed);
  EXPECT_FALSE(r[3].has_errors());
  EXPECT_EQ(r[3].split->line, 9u);
  EXPECT_EQ(cert::exit_code({r[0]}), 0);
  EXPECT_EQ(cert::exit_code(r), 2);
}

TEST(SplitInputFile, TooManySplitsIsOneInputError) {
  std::string text;
  for (size_t i = 0; i <= ir::kMaxSplits; ++i) text += "// -----\n";
  auto r = cert::certify_splits(text, "many.mlir", 30000);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].diags.size(), 1u);
  EXPECT_EQ(r[0].diags[0].rule, "input.bounds");
}

TEST(FrontEnd, UpstreamDialectsParseInPrettySyntax) {
  // scf, vector, math, gpu, llvm, bufferization: registered, so their custom
  // syntax parses and their verifiers run.
  auto r = ir::parse_mlir(
      "func.func @k(%A: memref<128xf32>, %n: index, %t: tensor<4xf32>) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %c4 = arith.constant 4 : index\n"
      "  scf.for %i = %c0 to %n step %c4 {\n"
      "    %v = vector.load %A[%i] : memref<128xf32>, vector<4xf32>\n"
      "    %e = math.exp %v : vector<4xf32>\n"
      "    vector.store %e, %A[%i] : memref<128xf32>, vector<4xf32>\n"
      "  }\n"
      "  %x = gpu.thread_id x\n"
      "  %p = llvm.mlir.zero : !llvm.ptr\n"
      "  %m = bufferization.to_memref %t : memref<4xf32>\n"
      "  return\n"
      "}\n",
      "pretty.mlir");
  for (auto& d : r.diags) ADD_FAILURE() << d.loc.str() << ": " << d.message;
  EXPECT_TRUE(r.module.has_value());
  // A verifier failure is input.verify, not input.parse.
  auto v = ir::parse_mlir("func.func @f() -> i32 {\n  return\n}\n", "v.mlir");
  EXPECT_FALSE(v.module.has_value());
  ASSERT_FALSE(v.diags.empty());
  EXPECT_EQ(v.diags[0].rule, "input.verify");
}

TEST(DialectTables, BuiltinTablesParse) {
  const ir::DialectTables& t = ir::builtin_dialects();
  ASSERT_FALSE(t.tables().empty());
  const ir::OpSpec* adamw = t.find("tessera.adamw");
  ASSERT_NE(adamw, nullptr);
  EXPECT_EQ(adamw->role, ir::OpRole::Optimizer);
  EXPECT_EQ(adamw->body, "adamw");
  EXPECT_EQ(adamw->operands, (std::vector<std::string>{"W", "g", "m", "v"}));
  EXPECT_EQ(adamw->operand("m"), 2);
  // A fused op takes its optimizer's keys (attrs_of) and its own.
  const ir::OpSpec* fused = t.find("tessera.training.wgrad_adamw");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->role, ir::OpRole::Fused);
  EXPECT_TRUE(fused->attrs.count("beta2"));
  EXPECT_TRUE(fused->attrs.count("epilogue"));
  EXPECT_EQ(t.table_of("tessera.matmul")->dtype("fp32"), std::optional<std::string>("f32"));
  EXPECT_EQ(t.table_of("tessera.matmul")->dtype("fp8_e4m3"), std::nullopt);
  EXPECT_EQ(t.find("tessera.training.wgrad_newton_schulz"), nullptr);  // no family by prefix
}

TEST(DialectTables, AMisspeltTableIsRefused) {
  const std::string ok = "dialect: acme\nops:\n  step:\n    role: optimizer\n    attrs: {lr: float}\n";
  EXPECT_NO_THROW(ir::parse_dialect_table(ok, "acme.yaml"));
  for (const std::string bad : {"dialect: acme\nops:\n  step:\n    role: optimiser\n",
                                "dialect: acme\nops:\n  step:\n    role: optimizer\n    attrs: {lr: double}\n",
                                "dialect: acme\nops:\n  step:\n    role: optimizer\n    bodi: adamw\n",
                                "dialect: acme\nops:\n  step:\n    role: optimizer\n    body: lion\n",
                                "dialect: acme\ndtypes: {fp8: f8}\nops: {}\n", "ops: {}\n", "dialect: [\n"})
    EXPECT_THROW(ir::parse_dialect_table(bad, "acme.yaml"), std::invalid_argument) << bad;
}

// What an upstream op is comes from MLIR's typed ops, read once by the front
// end, so no guard compares an op name (tests/ir/guard_names_test.py).
TEST(Frontend, TypedKindsAndAccess) {
  ir::Module m = parse_ok(
      "func.func @f(%b: memref<4x4xf32>, %x: f32, %t: tensor<4xf32>) -> f32 {\n"
      "  %s = memref.subview %b[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %v = memref.load %b[%c0, %c0] : memref<4x4xf32>\n"
      "  %a = arith.addf %v, %x : f32\n"
      "  memref.store %a, %b[%c0, %c0] : memref<4x4xf32>\n"
      "  %e = tensor.empty() : tensor<4xf32>\n"
      "  %al = memref.alloc() : memref<4xf32>\n"
      "  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}\n"
      "       ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) {\n"
      "  ^bb0(%i: f32, %o: f32):\n"
      "    linalg.yield %i : f32\n"
      "  } -> tensor<4xf32>\n"
      "  %u = \"acme.unknown\"(%b) : (memref<4x4xf32>) -> memref<4x4xf32>\n"
      "  return %a : f32\n"
      "}\n");
  auto op = [&](const std::string& name) -> const ir::Op& {
    for (const auto& o : m.ops)
      if (o.name == name) return o;
    throw std::runtime_error("no " + name);
  };
  EXPECT_EQ(op("memref.subview").access, ir::Op::Access::View);
  EXPECT_EQ(op("memref.load").access, ir::Op::Access::Operand0);
  EXPECT_EQ(op("memref.store").access, ir::Op::Access::None);
  EXPECT_EQ(op("func.return").access, ir::Op::Access::None);
  EXPECT_EQ(op("arith.addf").kind, ir::Op::Kind::Add);
  EXPECT_EQ(op("tensor.empty").kind, ir::Op::Kind::Alloc);
  EXPECT_EQ(op("memref.alloc").kind, ir::Op::Kind::Alloc);
  EXPECT_EQ(op("linalg.generic").kind, ir::Op::Kind::Generic);
  EXPECT_EQ(op("linalg.generic").access, ir::Op::Access::Inputs);
  EXPECT_EQ(op("acme.unknown").kind, ir::Op::Kind::Other);
  EXPECT_EQ(op("acme.unknown").access, ir::Op::Access::Unknown);  // fail closed
}

TEST(DialectTables, MeaningsCollectivesAndLowering) {
  const ir::DialectTable* t = ir::builtin_dialects().table_of("tessera.matmul");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key("k_whole"), "tessera.full_k");  // Tessera's own spelling
  EXPECT_EQ(t->key("grad_clip_scope"), "grad_clip_scope");  // a meaning not listed: its own name
  EXPECT_EQ(t->lowering, "--tessera-to-linalg");
  EXPECT_EQ(ir::builtin_dialects().find("tessera.reduce_scatter")->collective, ir::CollectiveKind::ReduceScatter);
  EXPECT_EQ(ir::builtin_dialects().find("tessera.all_reduce")->collective, ir::CollectiveKind::AllReduce);
  EXPECT_EQ(t->first_of(ir::OpRole::Decay)->name, "tessera.optim.decay");
  const std::string ok =
      "dialect: acme\nlowering: --acme-to-linalg\nkeys: {k_whole: acme.whole_k, lr: rate}\nops:\n"
      "  step:\n    role: optimizer\n    operands: [W, g]\n    body: sgd\n    attrs: {rate: float}\n"
      "  sum:\n    role: collective\n    collective: all_reduce\n";
  ir::DialectTable a = ir::parse_dialect_table(ok, "acme.yaml");
  EXPECT_EQ(a.key("lr"), "rate");
  EXPECT_EQ(a.key("k_whole"), "acme.whole_k");
  EXPECT_EQ(a.find("acme.sum")->collective, ir::CollectiveKind::AllReduce);
  // Hostile tables: refused, naming the table, never "no semantics".
  for (const std::string bad : {
           "dialect: acme\nkeys: {k_hole: acme.whole_k}\nops: {}\n",          // unknown meaning
           "dialect: acme\nkeys: {lr: rate, eps: rate}\nops: {}\n",           // two meanings, one spelling
           "dialect: acme\nkeys: {lr: [rate]}\nops: {}\n",                    // not a name
           "dialect: acme\nkeys: [lr]\nops: {}\n",                            // not a map
           "dialect: acme\nlowering: [a]\nops: {}\n",                         // not a pass name
           "dialect: acme.x\nops: {}\n",                                       // not a prefix
           "dialect: acme\nops:\n  sum:\n    role: collective\n",             // what does it compute?
           "dialect: acme\nops:\n  sum:\n    role: collective\n    collective: all_gather\n",
           "dialect: acme\nops:\n  step:\n    role: optimizer\n    collective: all_reduce\n",
           "dialect: acme\nops:\n  step:\n    role: [optimizer]\n",           // a list where a name belongs
       })
    EXPECT_THROW(ir::parse_dialect_table(bad, "acme.yaml"), std::invalid_argument) << bad;
  // A second table for a dialect already given is refused.
  ir::DialectTables both = ir::builtin_dialects();
  EXPECT_THROW(both.add(ir::parse_dialect_table("dialect: tessera\nops: {}\n", "mine.yaml")), std::invalid_argument);
}

// A table that contradicts itself does not load, at the file:line:col of
// the offending node (F4 of the #15 acceptance run: each was accepted).
// Positions counted by hand, 1-based.
TEST(DialectTables, SelfContradictingTablesAreRefusedWithPositions) {
  auto error_of = [](const std::string& yaml) -> std::string {
    try {
      ir::parse_dialect_table(yaml, "acme.yaml");
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(loaded)";
  };
  auto starts = [](const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; };
  // k_whole spelt split_k: "split_k" would mean both k_whole and split_k.
  EXPECT_PRED2(starts, error_of("dialect: acme\nkeys:\n  k_whole: split_k\nops: {}\n"), "acme.yaml:3:12: keys.k_whole: ");
  // The same op entry twice (yaml-cpp keeps both).
  EXPECT_EQ(error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n  step:\n    role: clip\n"),
            "acme.yaml:5:3: ops: 'step' is given twice (first at acme.yaml:3:3)");
  // An operand role fusecert does not read.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n    operands: [W, grad]\n"), "acme.yaml:5:19: ops.step.operands: unknown operand role 'grad'");
  // A role given twice.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n    operands: [W, g, g]\n"), "acme.yaml:5:22:");
  // Too few operands for the body: adamw reads W, g, m, v.
  EXPECT_EQ(error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n    operands: [W, g]\n    body: adamw\n"),
            "acme.yaml:5:15: ops.step.operands: body 'adamw' reads the operands W, g, m, v; the entry gives no "
            "operand the role m, v");
  // A fused op's body reads X and dY in place of g.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  f:\n    role: fused\n    operands: [X, W]\n    body: sgd\n"), "acme.yaml:5:15:");
  EXPECT_EQ(error_of("dialect: acme\nops:\n  f:\n    role: fused\n    operands: [X, dY, W]\n    body: sgd\n"), "(loaded)");
  // A hyper-parameter that names no key of the entry.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n    operands: [W, g]\n    body: sgd\n"
                     "    hyper: [rate]\n    attrs: {lr: float}\n"), "acme.yaml:7:13: ops.step.hyper: 'ra");
  // A key given twice in attrs, in dtypes, in keys.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  step:\n    role: optimizer\n    attrs: {lr: float, lr: int}\n"), "acme.yaml:5:24:");
  EXPECT_PRED2(starts, error_of("dialect: acme\ndtypes: {fp32: f32, fp32: bf16}\nops: {}\n"), "acme.yaml:2:21:");
  EXPECT_PRED2(starts, error_of("dialect: acme\nkeys: {lr: rate, lr: eta}\nops: {}\n"), "acme.yaml:2:18:");
  // yaml-cpp's own errors carry its position too.
  EXPECT_PRED2(starts, error_of("dialect: acme\nops:\n  step:\n    role: [optimizer\n"), "acme.yaml:");
}

TEST(AttributeBoundary, KindsKeysAndMisspellings) {
  EXPECT_EQ(ir::nearest_key("splitK", {"split_k", "transposeA"}), "split_k");
  EXPECT_EQ(ir::nearest_key("grad_clip_scop", {"grad_clip_scope", "lr"}), "grad_clip_scope");
  EXPECT_EQ(ir::nearest_key("tessera.effect", {"split_k", "lr"}), "");
  ir::Module m = parse_ok(
      "func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
      "  %0 = \"tessera.matmul\"(%a, %b) {transposeA = true, split_k = \"4\", splitK = 4, tessera.full_k = 4 : index,\n"
      "        numeric_policy = {accum = \"fp32\", acum = \"f32\", storage = 3 : i32}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"
      "  return %0 : tensor<4x4xf32>\n"
      "}\n");
  const ir::Op* mm = nullptr;
  for (const auto& op : m.ops)
    if (op.name == "tessera.matmul") mm = &op;
  ASSERT_NE(mm, nullptr);
  const auto& t = ir::builtin_dialects();
  auto d = ir::check_attributes(*mm, *t.find(mm->name), *t.table_of(mm->name));
  std::vector<std::string> rules;
  for (auto& x : d) rules.push_back(x.rule + " " + x.message.substr(0, x.message.find(' ', 16)));
  ASSERT_EQ(d.size(), 4u) << ::testing::PrintToString(rules);
  // split_k = "4": a string where the table says int; splitK: a key it does
  // not name (did you mean split_k); acum inside numeric_policy; storage = 3.
  EXPECT_EQ(d[0].rule, "input.attr.key");  // numeric_policy.acum (keys in the order MLIR sorts them)
  EXPECT_NE(d[0].message.find("did you mean 'accum'"), std::string::npos);
  EXPECT_EQ(d[1].rule, "input.attr.kind");  // numeric_policy.storage = 3 : i32
  EXPECT_EQ(d[2].rule, "input.attr.key");  // splitK (MLIR sorts "splitK" before "split_k")
  EXPECT_NE(d[2].message.find("did you mean 'split_k'"), std::string::npos);
  EXPECT_EQ(d[3].rule, "input.attr.kind");  // split_k = "4"
  EXPECT_NE(d[3].message.find("'split_k' = \"4\" is a string"), std::string::npos);
  // "fp32" reads as f32; an index full_k is a kind the table allows.
  ir::canonicalize_dtypes(m, t);
  for (const auto& op : m.ops)
    if (op.name == "tessera.matmul") EXPECT_EQ(op.attr("numeric_policy")->get("accum")->text, "f32");
}

TEST(TypedModel, AttributesAndTypesComeFromTypedAccessors) {
  // An index, a 64-bit integer, an i128 too wide for 64 bits, and element
  // types read by isBF16() / IntegerType, not by their printed text.
  ir::Module m = parse_ok(
      "func.func @f(%a: tensor<4xbf16>, %b: memref<4xsi8>) {\n"
      "  \"acme.op\"(%a, %b) {k = 64 : index, n = 64 : i64, big = 170141183460469231731687303715884105727 : i128,\n"
      "                     f = 2.5 : f64, u} : (tensor<4xbf16>, memref<4xsi8>) -> ()\n"
      "  return\n"
      "}\n");
  const ir::Op* op = nullptr;
  for (const auto& o : m.ops)
    if (o.name == "acme.op") op = &o;
  ASSERT_NE(op, nullptr);
  ASSERT_NE(op->attr("k"), nullptr);
  EXPECT_TRUE(op->attr("k")->index);
  EXPECT_EQ(op->attr("k")->ival, 64);
  EXPECT_FALSE(op->attr("n")->index);
  EXPECT_EQ(op->attr("n")->ival, 64);
  EXPECT_EQ(op->attr("n")->type, "i64");
  EXPECT_EQ(op->attr("big")->kind, ir::Attr::Kind::Int);
  EXPECT_FALSE(op->attr("big")->fits);
  EXPECT_EQ(op->attr("big")->num, 0);
  EXPECT_EQ(op->attr("f")->kind, ir::Attr::Kind::Float);
  EXPECT_EQ(op->attr("f")->type, "f64");
  EXPECT_EQ(op->attr("u")->kind, ir::Attr::Kind::Unit);
  EXPECT_EQ(m.values[op->operands[0]].type.elem, "bf16");
  EXPECT_EQ(m.values[op->operands[1]].type.elem, "si8");
  EXPECT_EQ(m.values[op->operands[1]].type.kind, ir::Type::Kind::MemRef);
}

TEST(Slices, CallsAreFollowedIntoCalleesAndBackOutOfReturns) {
  ir::Module m = parse_ok(
      "func.func private @h(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %y = arith.negf %x : tensor<4xf32>\n"
      "  return %y : tensor<4xf32>\n"
      "}\n"
      "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %r = func.call @h(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %s = arith.addf %r, %r : tensor<4xf32>\n"
      "  return %s : tensor<4xf32>\n"
      "}\n");
  int call = -1, neg = -1, add = -1, ret_h = -1;
  for (const auto& o : m.ops) {
    if (o.name == "func.call") call = o.id;
    if (o.name == "arith.negf") neg = o.id;
    if (o.name == "arith.addf") add = o.id;
    if (o.is_return && m.funcs[o.func].name == "h") ret_h = o.id;
  }
  ASSERT_GE(call, 0);
  ASSERT_GE(ret_h, 0);
  EXPECT_GE(m.ops[call].callee, 0);
  EXPECT_EQ(m.funcs[m.ops[call].callee].name, "h");
  // %a's use by the call is the callee argument's use by negf.
  auto in = ir::through_calls(m, m.values[m.ops[call].operands[0]].uses);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].first, neg);
  // negf's result is returned: its uses are those of the call's result.
  auto out = ir::through_calls(m, m.values[m.ops[neg].results[0]].uses);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].first, add);
  EXPECT_EQ(out[1].first, add);
}

// What the entry (a public function) returns leaves the module: the return
// is a use of its own; a private helper's return is followed to its callers
// (#15 acceptance F2). A call of a declaration is opaque (F3).
TEST(Slices, ReturnsOfTheEntryAreUsesAndDeclarationsAreOpaque) {
  ir::Module m = parse_ok(
      "func.func private @ext(tensor<4xf32>) -> tensor<4xf32>\n"
      "func.func private @h(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %y = arith.negf %x : tensor<4xf32>\n"
      "  return %y : tensor<4xf32>\n"
      "}\n"
      "func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
      "  %r = func.call @h(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %e = func.call @ext(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  return %r, %e : tensor<4xf32>, tensor<4xf32>\n"
      "}\n");
  int neg = -1, ret_f = -1, call_h = -1, call_ext = -1, h = -1, f = -1;
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    if (m.funcs[i].name == "h") h = static_cast<int>(i);
    if (m.funcs[i].name == "f") f = static_cast<int>(i);
  }
  for (const auto& o : m.ops) {
    if (o.name == "arith.negf") neg = o.id;
    if (o.is_return && o.func == f) ret_f = o.id;
    if (o.name == "func.call" && o.callee == h) call_h = o.id;
    if (o.name == "func.call" && o.callee < 0) call_ext = o.id;
  }
  ASSERT_GE(neg, 0);
  ASSERT_GE(ret_f, 0);
  ASSERT_GE(call_h, 0);
  ASSERT_GE(call_ext, 0);
  EXPECT_FALSE(m.funcs[h].is_public);
  EXPECT_TRUE(m.funcs[f].is_public);
  EXPECT_FALSE(ir::leaves_module(m, h));
  EXPECT_TRUE(ir::leaves_module(m, f));
  // negf's result: @h's return is followed to @f's, which stays a use.
  auto out = ir::through_calls(m, m.values[m.ops[neg].results[0]].uses);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, ret_f);
  EXPECT_EQ(out[0].second, 0);
  EXPECT_FALSE(m.ops[call_h].opaque_call);
  EXPECT_TRUE(m.ops[call_ext].opaque_call);
  auto unknown = ir::unknown_op_ids(m);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0], call_ext);
}

// The verdict rule of a candidate (guards::decide, docs/ir-checking.md):
// illegal when a deciding obligation was decided against its expected
// answer; inconclusive when a deciding one is open (timeout, unknown, unsat
// over unsatisfiable premises, missing); legal otherwise. An obligation that
// does not decide (P9.spread.d<r>, P6.gain_bound: informational) never
// changes the verdict, whatever its answer.
namespace {
guards::Obligation answered(const std::string& id, const std::string& answer, bool decides = true,
                            const std::string& premises = "sat") {
  guards::Obligation o;
  o.id = id;
  o.decides = decides;
  o.expected = "unsat";
  o.answer = answer;
  if (answer == "unsat") o.premises = premises;
  return o;
}
}  // namespace

TEST(CandidateVerdict, DecidingObligationsAloneDecide) {
  const auto holds = answered("P9.locality", "unsat");
  EXPECT_EQ(guards::decide({holds}), "legal");
  EXPECT_EQ(guards::decide({holds, answered("P1.k_order", "sat")}), "illegal");
  EXPECT_EQ(guards::decide({holds, answered("P1.k_order", "timeout")}), "inconclusive");
  EXPECT_EQ(guards::decide({holds, answered("P1.k_order", "unsat", true, "unsat")}), "inconclusive");
  // A definite failure outweighs an open obligation.
  EXPECT_EQ(guards::decide({answered("P1.k_order", "timeout"), answered("P9.locality", "sat")}), "illegal");
  // Informational obligations: refuted, timed out or vacuous, the verdict is the deciding ones'.
  for (const char* a : {"sat", "timeout", "unknown"})
    EXPECT_EQ(guards::decide({holds, answered("P6.gain_bound", a, false)}), "legal") << a;
  EXPECT_EQ(guards::decide({holds, answered("P6.gain_bound", "unsat", false, "unsat")}), "legal");
}

// P6.gain_bound proves the bound its claim states, no looser: its negated
// goal is exactly gain > 1 + u(storage)/u(state) over the reals, with the
// unit roundoffs of the formats (bf16 2^-8, f32 2^-24). bf16_state_tessera
// stores the gradient in bf16 with a bf16 state (bound 1 + 1 = 2) and with
// an f32 state (bound 1 + 2^-8/2^-24 = 65537).
TEST(GainBound, NegatedGoalIsTheClaimedBound) {
  auto r = cert::certify_text(fixture("bf16_state_tessera.mlir"), "b.mlir", 60000);
  const std::map<std::string, int> bound = {{"bf16", 2}, {"f32", 65537}};
  std::set<std::string> seen;
  for (const auto& c : r.candidates)
    for (const auto& o : c.obligations) {
      if (o.id != "P6.gain_bound") continue;
      const std::string state = o.evidence.substr(o.evidence.rfind(' ') + 1);
      ASSERT_TRUE(bound.count(state)) << o.evidence;
      seen.insert(state);
      const int b = bound.at(state);
      EXPECT_EQ(o.answer, "unsat") << o.evidence;
      EXPECT_NE(o.claim.find("= " + std::to_string(b) + ".0 "), std::string::npos) << o.claim;
      z3::context ctx;
      z3::solver s(ctx);
      s.from_string(o.query().c_str());
      const z3::expr_vector all = s.assertions();
      ASSERT_GE(all.size(), 2u);
      const z3::expr negated = all[all.size() - 1], gain = ctx.real_const("gain");
      for (const z3::expr& differ : {gain > b && !negated, negated && gain <= b}) {
        z3::solver t(ctx);
        t.add(differ);
        EXPECT_EQ(t.check(), z3::unsat) << state << ": the negated goal is not gain > " << b << "\n" << o.query();
      }
    }
  EXPECT_EQ(seen, (std::set<std::string>{"bf16", "f32"}));
}
