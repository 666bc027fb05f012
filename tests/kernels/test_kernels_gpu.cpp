// GPU tests: the four hardware evidence rows (kernels.md) and the arithmetic
// they rely on. Each test skips with a clear message when no CUDA device is
// present (CI has none).
#include <gtest/gtest.h>

#include <vector>

#include "fusecert/kernels/cuda_api.h"
#include "fusecert/kernels/evidence.h"
#include "fusecert/kernels/host_reference.h"

namespace fk = fusecert::kernels;

namespace {

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!fk::cuda_device_available(&why))
      GTEST_SKIP() << "skipped: " << why << " (these tests need a CUDA GPU)";
  }
};

TEST_F(Gpu, Row1FusedBitwiseEqualsHostReference) {
  const fk::EvidenceRow r = fk::evidence_fused_vs_host();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.details.dump();
}

TEST_F(Gpu, Row2TileConfigurationsBitwiseEqual) {
  const fk::EvidenceRow r = fk::evidence_tile_configs();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.details.dump();
}

TEST_F(Gpu, Row3NoGradientSizedAllocation) {
  const fk::EvidenceRow r = fk::evidence_no_gradient_buffer();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.details.dump();
}

TEST_F(Gpu, Row4Fp32AccumulatorGains) {
  const fk::EvidenceRow r = fk::evidence_p6_gains();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.details.dump();
}

// The refined square root of the _pingpong and TMA epilogues (issue #20):
// bitwise __fsqrt_rn on every binary32 pattern of its range, and, with the
// range check, everywhere; outside the range it does differ (so the check is
// needed and the comparison can fail).
TEST_F(Gpu, RefinedSqrtEqualsIeeeSqrtOnEveryPattern) {
  fk::SqrtRefinedCheck c;
  ASSERT_EQ(fk::check_sqrt_refined(&c), cudaSuccess);
  EXPECT_EQ(c.patterns, 1ull << 32);
  EXPECT_EQ(c.in_range, static_cast<unsigned long long>(c.range_max_bits - c.range_min_bits) + 1);
  EXPECT_EQ(c.in_range_mismatches, 0u);
  EXPECT_EQ(c.select_mismatches, 0u);
  EXPECT_GT(c.outside_mismatches, 0u);
}

// The checked division of the _pingpong epilogue (issue #20 step 12):
// every quotient div_is_rn accepts is __fdiv_rn's, bit for bit; the guess
// alone does differ (so the test is needed and the comparison can fail),
// and in the epilogue's magnitudes nearly every guess is accepted (else the
// batch would fall back to __fdiv_rn and gain nothing).
TEST_F(Gpu, CheckedDivisionAcceptsOnlyIeeeQuotients) {
  fk::DivCheckedCheck c;
  ASSERT_EQ(fk::check_div_checked(&c), cudaSuccess);
  EXPECT_EQ(c.pairs, 1ull << 32);
  EXPECT_EQ(c.accepted_mismatches, 0u);
  EXPECT_GT(c.guess_mismatches, 0u);
  EXPECT_GT(c.epilogue_like_accepted, c.epilogue_like_pairs - c.epilogue_like_pairs / 1000);
}

TEST_F(Gpu, RejectsShapesTheTensorCoreKernelCannotTake) {
  const fk::Shape s{48, 100, 128};  // N % 128 != 0, BT % 32 != 0
  fk::StepParams p = fk::make_step_params(fk::StepParams{});
  EXPECT_EQ(fk::launch_fused(fk::mma_configs()[0], p, s, nullptr, nullptr, nullptr,
                             fk::DType::f32, nullptr, nullptr, fk::DType::f32, nullptr, 0),
            cudaErrorInvalidValue);
}

// The distributed path's use of #8's kernels (P3): with Optimizer::
// momentum_state on a column window of a wider dY (Shape::ldy), every engine
// writes m = fl(mu*seed) + g (seeded) or g (unseeded) from its own
// accumulator, leaves W alone, and accumulates the window exactly as it does
// the same columns copied into a dense dY (same bits).
TEST_F(Gpu, MomentumStateEpilogueOnAColumnWindow) {
  const int BT = 128, V = 384, H = 256, row0 = 128, rows = 128;
  const float mu = 0.9f;
  fk::Rng rng(41);
  const auto dY = fk::random_bf16(rng, static_cast<std::size_t>(BT) * V, 1.0);
  const auto X = fk::random_bf16(rng, static_cast<std::size_t>(BT) * H, 1.0);
  std::vector<fk::bf16> dYw(static_cast<std::size_t>(BT) * rows);  // the window, dense
  for (int t = 0; t < BT; ++t)
    for (int r = 0; r < rows; ++r) dYw[t * rows + r] = dY[static_cast<std::size_t>(t) * V + row0 + r];
  const std::size_t n = static_cast<std::size_t>(rows) * H;
  std::vector<float> seed(n);
  for (auto& x : seed) x = static_cast<float>(rng.normal());
  auto dev = [](const void* host, std::size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
    if (host) EXPECT_EQ(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    return p;
  };
  auto* d_dY = static_cast<fk::bf16*>(dev(dY.data(), dY.size() * 2));
  auto* d_dYw = static_cast<fk::bf16*>(dev(dYw.data(), dYw.size() * 2));
  auto* d_X = static_cast<fk::bf16*>(dev(X.data(), X.size() * 2));
  auto* d_seed = static_cast<float*>(dev(seed.data(), n * 4));
  auto* d_m = static_cast<float*>(dev(nullptr, n * 4));
  auto* d_W = static_cast<float*>(dev(nullptr, n * 4));
  auto* d_m2 = static_cast<float*>(dev(nullptr, n * 4));
  auto* d_dump = static_cast<float*>(dev(nullptr, n * 4));
  auto* d_dump_dense = static_cast<float*>(dev(nullptr, n * 4));
  std::vector<fk::TileConfig> cfgs = {fk::simt_configs()[1], fk::mma_configs()[0]};
  if (fk::wgmma_supported())
    for (const auto& c : fk::wgmma_configs()) cfgs.push_back(c);
  fk::StepParams contrib;
  contrib.opt = fk::Optimizer::momentum_state;
  contrib.momentum = mu;
  contrib = fk::make_step_params(contrib);
  fk::StepParams sgd = contrib;
  sgd.opt = fk::Optimizer::sgd_momentum;
  const std::vector<float> host_g =
      fk::host_gradient_f32(dY.data() + row0, X.data(), fk::Shape{BT, rows, H, V});
  for (const fk::TileConfig& cfg : cfgs)
    for (bool seeded : {true, false}) {
      SCOPED_TRACE(cfg.name() + (seeded ? " seeded" : " unseeded"));
      ASSERT_EQ(cudaMemset(d_m, 0xff, n * 4), cudaSuccess);  // NaN: every element must be written
      ASSERT_EQ(fk::launch_fused(cfg, contrib, fk::Shape{BT, rows, H, V}, d_dY + row0, d_X, nullptr,
                                 fk::DType::f32, d_m, seeded ? d_seed : nullptr, fk::DType::f32,
                                 d_dump, 0),
                cudaSuccess);
      ASSERT_EQ(cudaMemset(d_W, 0, n * 4), cudaSuccess);
      ASSERT_EQ(cudaMemset(d_m2, 0, n * 4), cudaSuccess);
      ASSERT_EQ(cudaMemset(d_dump_dense, 0, n * 4), cudaSuccess);
      ASSERT_EQ(fk::launch_fused(cfg, sgd, fk::Shape{BT, rows, H}, d_dYw, d_X, d_W, fk::DType::f32,
                                 d_m2, nullptr, fk::DType::f32, d_dump_dense, 0),
                cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> m(n), g(n), gd(n);
      ASSERT_EQ(cudaMemcpy(m.data(), d_m, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(g.data(), d_dump, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(gd.data(), d_dump_dense, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(g[i], gd[i]) << "window vs dense accumulator, element " << i;
        ASSERT_EQ(m[i], fk::momentum_contribution(mu, g[i], seeded, seeded ? seed[i] : 0.0f))
            << "element " << i;
        if (cfg.engine == fk::Engine::simt) ASSERT_EQ(g[i], host_g[i]) << "element " << i;
      }
    }
  for (void* p : {static_cast<void*>(d_dY), static_cast<void*>(d_dYw), static_cast<void*>(d_X),
                  static_cast<void*>(d_seed), static_cast<void*>(d_m), static_cast<void*>(d_W), static_cast<void*>(d_m2),
                  static_cast<void*>(d_dump), static_cast<void*>(d_dump_dense)})
    cudaFree(p);
  // A window that does not start on a 16-byte boundary is refused by the
  // tensor-core engines rather than misread.
  fk::StepParams p = contrib;
  EXPECT_EQ(fk::launch_fused(fk::mma_configs()[0], p, fk::Shape{BT, rows, H, V},
                             reinterpret_cast<const fk::bf16*>(0x1002), nullptr, nullptr,
                             fk::DType::f32, reinterpret_cast<float*>(0x1000), nullptr,
                             fk::DType::f32, nullptr, 0),
            cudaErrorMisalignedAddress);
}

}  // namespace
