// Translation validation: fixture verdicts, and every counterexample replayed
// in C++ twice — through the scalar program (tv/eval.cpp) and through an
// independent re-implementation of both sides (model/optimizer.h over the
// bit-exact emulation of witness/numeric.h) — so a counterexample is only
// accepted if the two results really differ on it.
#include <gtest/gtest.h>

#include "support/diag/render.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "verifier/cert/certify.h"
#include "verifier/model/hyper.h"
#include "verifier/model/optimizer.h"
#include "verifier/smt/values.h"
#include "verifier/tv/eval.h"
#include "verifier/tv/validate.h"
#include "verifier/witness/numeric.h"

using namespace fusecert;

namespace {

tv::Validation run(const std::string& name, int k = 4) {
  tv::ValidateOptions o;
  o.k_bound = k;
  o.timeout_ms = 10000;
  return tv::validate_files(std::string(FUSECERT_FIXTURES) + "/" + name, "", o);
}

double value_of(const smt::ModelValue& m) {
  uint64_t bits = std::stoull(m.bits, nullptr, 16);
  unsigned sb = m.sort.find("8 8)") != std::string::npos ? 8 : 24;
  return smt::decode_fp(bits, 8, sb);
}

/// The element's operands as the counterexample gives them (absent: +0).
struct Element {
  std::map<std::string, double> in;
  double get(const std::string& n) const {
    auto it = in.find(n);
    return it == in.end() ? 0.0 : it->second;
  }
  double x(int k) const { return get("arg0_ki_k" + std::to_string(k)); }
  double y(int k) const { return get("arg1_kj_k" + std::to_string(k)); }
  double W() const { return get("arg2_ij"); }
  double m() const { return get("arg3_ij"); }
  double v() const { return get("arg4_ij"); }
};

/// Σ_k x·y in binary32 from +0 in ascending k, `splits` contiguous chunks.
double dot(const Element& e, int K, int splits) {
  witness::F32Arith a({});
  double total = 0;
  for (int s = 0; s < K; s += K / splits) {
    double part = 0;
    for (int k = s; k < s + K / splits; ++k) part = a.add(part, a.mul(e.x(k), e.y(k)));
    total = splits == 1 ? part : a.add(total, part);
  }
  return total;
}

model::Hyper hyper(int step) {
  model::Hyper h;
  h.lr = 1e-3, h.beta1 = 0.9, h.beta2 = 0.999, h.eps = 1e-8, h.lam = 0.01, h.step = step;
  return h;
}

/// Reference W1 of the unfused pair (tessera.matmul → tessera.adamw), binary32.
double reference_W1(const Element& e, int K, double g_scale = 1.0, int step = 1, int splits = 1, bool bf16_grad = false) {
  witness::F32Arith a(hyper(step).constants());
  double g = dot(e, K, splits);
  if (bf16_grad) g = witness::round_bf16(static_cast<float>(g));
  if (g_scale != 1.0) g = a.mul(g, g_scale);
  return model::adamw_step(a, model::AdamWState<double>{e.W(), e.m(), e.v()}, g).W;
}

/// Hand-written epilogues of the two body fixtures, binary32.
double W1_decay_before(const Element& e, int K) {
  witness::F32Arith a({});
  double g = a.add(dot(e, K, 1), a.mul(a.num(0.01), e.W()));
  double mn = a.add(a.mul(a.num(0.9), e.m()), a.mul(a.num(0.1), g));
  double vn = a.add(a.mul(a.num(0.999), e.v()), a.mul(a.num(1e-3), a.mul(g, g)));
  double den = a.add(a.sqrt(a.div(vn, a.num(1e-3))), a.num(1e-8));
  return a.sub(e.W(), a.mul(a.num(1e-3), a.div(a.div(mn, a.num(0.1)), den)));
}
double W1_eps_inside(const Element& e, int K) {
  witness::F32Arith a({});
  double g = dot(e, K, 1);
  double mn = a.add(a.mul(a.num(0.9), e.m()), a.mul(a.num(0.1), g));
  double vn = a.add(a.mul(a.num(0.999), e.v()), a.mul(a.num(1e-3), a.mul(g, g)));
  double den = a.sqrt(a.add(a.div(vn, a.num(1e-3)), a.num(1e-8)));
  return a.sub(a.mul(e.W(), a.num(0.99999)), a.mul(a.num(1e-3), a.div(a.div(mn, a.num(0.1)), den)));
}

uint32_t f32_bits(double x) { return static_cast<uint32_t>(tv::bits_in(x, tv::Fmt::F32)); }

/// Checks the first non-equivalent result of `v`: the solver's two results
/// differ; the scalar program replays both; `before`/`after` (independent
/// C++) replay them too.
void check_counterexample(const tv::Validation& v, const std::function<double(const Element&)>& before,
                          const std::function<double(const Element&)>& after) {
  ASSERT_EQ(v.verdict, "not equivalent") << tv::render_text(v);
  ASSERT_EQ(v.pairs.size(), 1u);
  const tv::ResultCheck* r = nullptr;
  for (auto& rc : v.pairs[0].results)
    if (rc.verdict == "not equivalent" && !r) r = &rc;
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->id, "TV.result0") << "the fixtures' bugs all change W1";
  Element e;
  for (auto& in : r->inputs) e.in[in.name] = value_of(in);
  ASSERT_FALSE(r->before.bits.empty());
  ASSERT_NE(r->before.bits, r->after.bits);
  // 1. The scalar program, evaluated in C++.
  std::vector<double> vals = tv::evaluate(*v.program, e.in);
  EXPECT_EQ(smt::hex_bits(tv::bits_in(vals.at(static_cast<size_t>(r->before_node)), r->fmt), 32), r->before.bits);
  EXPECT_EQ(smt::hex_bits(tv::bits_in(vals.at(static_cast<size_t>(r->after_node)), r->fmt), 32), r->after.bits);
  // 2. Independent re-implementations of both sides.
  EXPECT_EQ(smt::hex_bits(f32_bits(before(e)), 32), r->before.bits);
  EXPECT_EQ(smt::hex_bits(f32_bits(after(e)), 32), r->after.bits);
}

}  // namespace

TEST(TvPositive, TesseraPairIsEquivalent) {
  auto v = run("wgrad_adamw_tessera.mlir");
  ASSERT_EQ(v.verdict, "equivalent") << tv::render_text(v);
  ASSERT_EQ(v.pairs.size(), 1u);
  EXPECT_EQ(v.pairs[0].results.size(), 3u);
  EXPECT_EQ(v.pairs[0].before.k_used, 4);
  EXPECT_EQ(v.pairs[0].before.k_module, 64);
  EXPECT_EQ(tv::exit_code(v), 0);
}

TEST(TvPositive, LinalgBodyPairIsEquivalent) {
  auto v = run("adamw_linalg_body.mlir", 8);
  ASSERT_EQ(v.verdict, "equivalent") << tv::render_text(v);
  EXPECT_EQ(v.pairs[0].before.k_used, 8);
}

TEST(TvNegative, Bf16GradientInEpilogue) {
  check_counterexample(run("bf16_gradient_epilogue.mlir"), [](const Element& e) { return reference_W1(e, 4); },
                       [](const Element& e) { return reference_W1(e, 4, 1.0, 1, 1, true); });
}

TEST(TvNegative, SplitK) {
  check_counterexample(run("split_k.mlir"), [](const Element& e) { return reference_W1(e, 4); },
                       [](const Element& e) { return reference_W1(e, 4, 1.0, 1, 2); });
}

TEST(TvNegative, BiasCorrectionWrongStep) {
  check_counterexample(run("wrong_step.mlir"), [](const Element& e) { return reference_W1(e, 4); },
                       [](const Element& e) { return reference_W1(e, 4, 1.0, 2); });
}

TEST(TvNegative, DroppedGradClipScale) {
  check_counterexample(run("dropped_clip_scale.mlir"), [](const Element& e) { return reference_W1(e, 4, 0.5); },
                       [](const Element& e) { return reference_W1(e, 4); });
}

TEST(TvNegative, WeightDecayBeforeInsteadOfAfter) {
  check_counterexample(run("decay_before.mlir"), [](const Element& e) { return reference_W1(e, 4); },
                       [](const Element& e) { return W1_decay_before(e, 4); });
}

TEST(TvNegative, EpsInsideSqrt) {
  check_counterexample(run("eps_inside_sqrt.mlir"), [](const Element& e) { return reference_W1(e, 4); },
                       [](const Element& e) { return W1_eps_inside(e, 4); });
}

TEST(TvFailClosed, MissingKeyIsAnErrorNotAVerdict) {
  auto v = run("fail_closed.mlir");
  EXPECT_EQ(v.verdict, "error");
  EXPECT_EQ(tv::exit_code(v), 2);
  ASSERT_FALSE(v.diags.empty());
  EXPECT_EQ(v.diags[0].rule, "TV.unsupported");
  EXPECT_NE(fusecert::diag::render_text(v.diags[0]).find("error: tessera.adamw lacks the semantic key 'eps'"),
            std::string::npos);
}

TEST(TvInconclusive, TimeoutIsNeverEquivalent) {
  // No concrete search, 200 ms per query: finding a model of the general
  // split-K query needs a full binary32 bit-blast, so the solver runs out.
  tv::ValidateOptions o;
  o.k_bound = 4;
  o.timeout_ms = 200;
  o.search_trials = 0;
  auto v = tv::validate_files(std::string(FUSECERT_FIXTURES) + "/split_k.mlir", "", o);
  ASSERT_EQ(v.pairs.size(), 1u);
  bool any_inconclusive = false;
  for (auto& r : v.pairs[0].results)
    if (!smt::is_definite(r.res.answer)) {
      EXPECT_EQ(r.verdict, "inconclusive");
      any_inconclusive = true;
    }
  EXPECT_NE(v.verdict, "equivalent");
  if (any_inconclusive && v.verdict != "not equivalent") {
    EXPECT_EQ(v.verdict, "inconclusive");
    EXPECT_EQ(tv::exit_code(v), 3);  // support/diag/exit_code.h: inconclusive
  }
}

TEST(TvCertificate, ReChecksAndDetectsTampering) {
  auto v = run("wrong_step.mlir");
  ASSERT_EQ(v.pairs.size(), 1u);
  auto j = tv::certificate(v, 0, "test");
  EXPECT_EQ(j["verdict"], "illegal");
  EXPECT_EQ(j["validation"]["verdict"], "not equivalent");
  EXPECT_EQ(j["validation"]["k_bound"], 4);
  cert::Solver z3{"z3"};
  auto ok = cert::check_certificate(cert::dump(j), std::nullopt, z3, 60000);
  EXPECT_TRUE(ok.valid) << (ok.problems.empty() ? "" : ok.problems[0]);
  // Claim equivalence for a counterexample query: the re-run answers sat.
  auto bad = j;
  bad["obligations"][0]["answer"] = "unsat";
  bad["verdict"] = "legal";
  bad["counterexample"] = nullptr;
  bad["digest"] = cert::digest(bad);
  EXPECT_FALSE(cert::check_certificate(cert::dump(bad), std::nullopt, z3, 60000).valid);
}
