// CPU tests of kernels/: bf16 rounding, the optimizer formulas, the tile
// partition and K order, and the host reference's partition independence and
// P6 gains — the same assertions the GPU evidence rows make on hardware.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "fusecert/kernels/host_reference.h"

namespace fk = fusecert::kernels;
using fk::DType;
using fk::Optimizer;

namespace {

fk::StepParams params(Optimizer opt, int step) {
  fk::StepParams p;
  p.opt = opt;
  p.step = step;
  return fk::make_step_params(p);
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(fk::float_to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(fk::float_to_bf16(1.0f + 0x1.0p-8f).bits, 0x3f80);  // tie -> even (down)
  EXPECT_EQ(fk::float_to_bf16(1.0f + 0x3.0p-8f).bits, 0x3f82);  // tie -> even (up)
  EXPECT_EQ(fk::float_to_bf16(1.0f + 0x1.8p-8f).bits, 0x3f81);  // above half -> up
  EXPECT_EQ(fk::float_to_bf16(-2.0f).bits, 0xc000);
  EXPECT_TRUE(std::isnan(fk::bf16_to_float(fk::float_to_bf16(NAN))));
  EXPECT_TRUE(std::isinf(fk::bf16_to_float(fk::float_to_bf16(INFINITY))));
  for (float x : {0.1f, -3.75f, 1e-20f, 65504.0f})
    EXPECT_EQ(fk::round_bf16(fk::round_bf16(x)), fk::round_bf16(x));
}

TEST(StepParams, BiasCorrectionsAndDecay) {
  const fk::StepParams p = params(Optimizer::adamw, 3);
  EXPECT_FLOAT_EQ(p.bias_corr1, static_cast<float>(1.0 - std::pow(static_cast<double>(0.9f), 3)));
  EXPECT_FLOAT_EQ(p.bias_corr2, static_cast<float>(1.0 - std::pow(static_cast<double>(0.999f), 3)));
  EXPECT_FLOAT_EQ(p.decay, 1.0f - 1e-3f * 0.01f);
  fk::StepParams bad;
  bad.step = 0;
  EXPECT_THROW(fk::make_step_params(bad), std::invalid_argument);
}

TEST(Optimizer, AdamWFirstStepIsSignTimesLr) {
  // t = 1, m = v = 0: m/bc1 = g, sqrt(v/bc2) = |g|, so W -= lr*g/(|g|+eps).
  const fk::StepParams p = params(Optimizer::adamw, 1);
  float w = 0.5f, m = 0.0f, v = 0.0f;
  fk::adamw_update(p, -2.0f, w, m, v);
  EXPECT_NEAR(w, 0.5 * (1 - 1e-5) + 1e-3, 1e-7);
  EXPECT_FLOAT_EQ(m, -0.2f);
  EXPECT_EQ(v, (1.0f - 0.999f) * 4.0f);  // (1-b2) rounded to binary32 first
}

TEST(Optimizer, SgdMomentumByHand) {
  fk::StepParams p = params(Optimizer::sgd_momentum, 1);
  p.lr = 0.5f;
  p.momentum = 0.5f;
  float w = 1.0f, b = 2.0f;
  fk::sgd_momentum_update(p, 1.0f, w, b);  // b = 0.5*2 + 1 = 2; w = 1 - 0.5*2 = 0
  EXPECT_EQ(b, 2.0f);
  EXPECT_EQ(w, 0.0f);
}

TEST(Tiling, PartitionCoversEveryElementOnce) {
  for (const auto& cfgs : {fk::simt_configs(), fk::mma_configs(), fk::wgmma_configs()})
    for (const fk::TileConfig& cfg : cfgs)
      for (auto [N, H] : {std::pair{72, 136}, std::pair{256, 256}, std::pair{1, 1000}}) {
        std::vector<int> hits(static_cast<std::size_t>(N) * H, 0);
        for (const fk::Tile& t : fk::partition(N, H, cfg)) {
          ASSERT_GT(t.rows, 0);
          ASSERT_GT(t.cols, 0);
          ASSERT_LE(t.rows, cfg.bm);
          ASSERT_LE(t.cols, cfg.bn);
          for (int r = 0; r < t.rows; ++r)
            for (int c = 0; c < t.cols; ++c)
              ++hits[static_cast<std::size_t>(t.n0 + r) * H + t.h0 + c];
        }
        for (int h : hits) ASSERT_EQ(h, 1) << cfg.name() << " " << N << "x" << H;
      }
  EXPECT_THROW(fk::partition(0, 4, fk::simt_configs()[0]), std::invalid_argument);
}

TEST(Tiling, AtLeastThreeDistinctTileShapesPerEngine) {
  for (const auto& cfgs : {fk::simt_configs(), fk::mma_configs(), fk::wgmma_configs()}) {
    std::set<std::pair<int, int>> shapes;
    for (const auto& c : cfgs) shapes.insert({c.bm, c.bn});
    EXPECT_GE(shapes.size(), 3u);
  }
}

TEST(Tiling, KOrderDependsOnEngineOnly) {
  for (const auto& cfgs : {fk::simt_configs(), fk::mma_configs(), fk::wgmma_configs()}) {
    const auto ref = fk::k_order(cfgs[0], 512);
    int next = 0;
    for (auto [b, e] : ref) {  // ascending, contiguous, complete
      ASSERT_EQ(b, next);
      ASSERT_GT(e, b);
      next = e;
    }
    EXPECT_EQ(next, 512);
    for (const auto& c : cfgs) EXPECT_EQ(fk::k_order(c, 512), ref) << c.name();
  }
  EXPECT_EQ(fk::k_order(fk::simt_configs()[0], 5).size(), 5u);
  EXPECT_EQ(fk::k_order(fk::mma_configs()[0], 64).size(), 4u);
}

TEST(Tiling, UnsupportedShapes) {
  EXPECT_EQ(fk::unsupported_reason(fk::simt_configs()[0], {100, 72, 136}), "");
  EXPECT_NE(fk::unsupported_reason(fk::mma_configs()[0], {100, 128, 128}), "");
  EXPECT_NE(fk::unsupported_reason(fk::mma_configs()[0], {128, 72, 128}), "");
  EXPECT_EQ(fk::unsupported_reason(fk::mma_configs()[0], {128, 256, 128}), "");
  EXPECT_NE(fk::unsupported_reason(fk::wgmma_configs()[0], {96, 256, 128}), "");  // BT % 64
  EXPECT_EQ(fk::unsupported_reason(fk::wgmma_configs()[2], {128, 128, 256}), "");
}

// The checked division (issue #20 step 12) is a configuration of the 128 x 128
// ping-pong only: it is named, instantiated for both of that kernel's ring
// depths, and refused on any other engine or tile width.
TEST(Tiling, CheckedDivisionIsAPingPongConfiguration) {
  int named = 0;
  for (const auto& c : fk::wgmma_configs())
    if (c.checked_div) {
      ++named;
      EXPECT_EQ(c.epilogue, 5);
      EXPECT_EQ(c.bn, 128);
      EXPECT_NE(c.name().find("_cdiv"), std::string::npos) << c.name();
      EXPECT_EQ(fk::unsupported_reason(c, {512, 256, 256}), "") << c.name();
    }
  EXPECT_EQ(named, 2);
  fk::TileConfig tma2{fk::Engine::wgmma, 128, 128, 64, 4};
  tma2.checked_div = true;
  EXPECT_NE(fk::unsupported_reason(tma2, {512, 256, 256}), "");
  fk::TileConfig narrow{fk::Engine::wgmma, 128, 64, 64, 5};
  narrow.checked_div = true;
  EXPECT_NE(fk::unsupported_reason(narrow, {512, 256, 256}), "");
}

struct Case {
  fk::Shape s;
  std::vector<fk::bf16> dY, X;
  std::vector<std::uint8_t> W, m, v;
};
Case make_case(const fk::Shape& s, DType wt, DType st, std::uint64_t seed) {
  fk::Rng rng(seed);
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  Case c{s, fk::random_bf16(rng, static_cast<std::size_t>(s.BT) * s.N, 1.0),
         fk::random_bf16(rng, static_cast<std::size_t>(s.BT) * s.H, 1.0),
         fk::random_buffer(rng, n, wt, 0.5, false), fk::random_buffer(rng, n, st, 0.1, false),
         fk::random_buffer(rng, n, st, 0.01, true)};
  return c;
}

// P1 on the CPU: the tiled step equals the one-shot step bit for bit, for
// every tile configuration, optimizer, storage type and seed.
TEST(HostReference, TiledStepBitwiseEqualsOneShotForEveryConfig) {
  const fk::Shape s{100, 72, 136};
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  for (Optimizer opt : {Optimizer::adamw, Optimizer::sgd_momentum})
    for (DType wt : {DType::f32, DType::bf16})
      for (DType st : {DType::f32, DType::bf16})
        for (std::uint64_t seed : {1u, 2u}) {
          const fk::StepParams p = params(opt, 2 + static_cast<int>(seed));
          Case ref = make_case(s, wt, st, seed);
          const Case init = ref;
          fk::host_fused_step(p, ref.dY.data(), ref.X.data(), s, ref.W.data(), wt, ref.m.data(),
                              ref.v.data(), st);
          ASSERT_GT(fk::count_bit_mismatches(init.m.data(), ref.m.data(), st, n), n / 2);
          ASSERT_GT(fk::count_bit_mismatches(init.W.data(), ref.W.data(), wt, n), n / 20);
          for (const auto& cfgs : {fk::simt_configs(), fk::mma_configs(), fk::wgmma_configs()})
            for (const auto& cfg : cfgs) {
              Case got = init;
              fk::host_fused_step_tiled(p, cfg, got.dY.data(), got.X.data(), s, got.W.data(), wt,
                                        got.m.data(), got.v.data(), st);
              EXPECT_EQ(fk::count_bit_mismatches(ref.W.data(), got.W.data(), wt, n), 0u);
              EXPECT_EQ(fk::count_bit_mismatches(ref.m.data(), got.m.data(), st, n), 0u);
              if (opt == Optimizer::adamw) {
                EXPECT_EQ(fk::count_bit_mismatches(ref.v.data(), got.v.data(), st, n), 0u);
              }
            }
        }
}

// The bitwise comparison can fail: a different K order (reversed tokens) or
// a bf16-rounded gradient changes bits.
TEST(HostReference, BitwiseComparisonDetectsOrderAndRoundingChanges) {
  const fk::Shape s{256, 32, 48};
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  const fk::StepParams p = params(Optimizer::adamw, 1);
  Case a = make_case(s, DType::f32, DType::f32, 5);
  Case b = a, c = a;
  fk::host_fused_step(p, a.dY.data(), a.X.data(), s, a.W.data(), DType::f32, a.m.data(),
                      a.v.data(), DType::f32);
  // Reversed token order: same math, different rounding sequence.
  std::vector<fk::bf16> dyr(b.dY.size()), xr(b.X.size());
  for (int t = 0; t < s.BT; ++t) {
    std::copy_n(b.dY.begin() + static_cast<std::ptrdiff_t>(t) * s.N, s.N,
                dyr.begin() + static_cast<std::ptrdiff_t>(s.BT - 1 - t) * s.N);
    std::copy_n(b.X.begin() + static_cast<std::ptrdiff_t>(t) * s.H, s.H,
                xr.begin() + static_cast<std::ptrdiff_t>(s.BT - 1 - t) * s.H);
  }
  fk::host_fused_step(p, dyr.data(), xr.data(), s, b.W.data(), DType::f32, b.m.data(), b.v.data(),
                      DType::f32);
  EXPECT_GT(fk::count_bit_mismatches(a.m.data(), b.m.data(), DType::f32, n), 0u);
  fk::host_unfused_bf16_grad_step(p, c.dY.data(), c.X.data(), s, c.W.data(), DType::f32,
                                  c.m.data(), c.v.data(), DType::f32);
  EXPECT_GT(fk::count_bit_mismatches(a.m.data(), c.m.data(), DType::f32, n), n / 2);
}

TEST(HostReference, Fp32StepCloseToFloat64) {
  const fk::Shape s{64, 16, 24};
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  const fk::StepParams p = params(Optimizer::adamw, 4);
  Case a = make_case(s, DType::f32, DType::f32, 9);
  std::vector<double> w = fk::to_f64(a.W.data(), DType::f32, n),
                      m = fk::to_f64(a.m.data(), DType::f32, n),
                      v = fk::to_f64(a.v.data(), DType::f32, n);
  fk::host_fused_step(p, a.dY.data(), a.X.data(), s, a.W.data(), DType::f32, a.m.data(),
                      a.v.data(), DType::f32);
  fk::host_step_f64(p, a.dY.data(), a.X.data(), s, w.data(), m.data(), v.data());
  const std::vector<double> wf = fk::to_f64(a.W.data(), DType::f32, n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(wf[i], w[i], 1e-6 * (1 + std::fabs(w[i])));
}

void host_fp32(void*, const fk::StepParams& p, const fk::bf16* dY, const fk::bf16* X,
               const fk::Shape& s, void* W, DType wt, void* m, void* v, DType st) {
  fk::host_fused_step(p, dY, X, s, W, wt, m, v, st);
}
void host_bf16(void*, const fk::StepParams& p, const fk::bf16* dY, const fk::bf16* X,
               const fk::Shape& s, void* W, DType wt, void* m, void* v, DType st) {
  fk::host_unfused_bf16_grad_step(p, dY, X, s, W, wt, m, v, st);
}

// P6 on the CPU with the witness protocol (W 128x256, BT 512, 20 steps): the
// same criteria as evidence row 4.
TEST(HostReference, P6GainsDependOnStateDtype) {
  const fk::Shape s{512, 128, 256};
  const auto a = fk::run_p6(DType::f32, DType::f32, s, 20, 2026, host_fp32, nullptr, host_bf16,
                            nullptr);
  EXPECT_GE(a.gain, 100.0) << a.err_fp32_grad << " " << a.err_bf16_grad;
  for (auto [wt, st] : {std::pair{DType::f32, DType::bf16}, std::pair{DType::bf16, DType::bf16}}) {
    const auto r = fk::run_p6(wt, st, s, 20, 2026, host_fp32, nullptr, host_bf16, nullptr);
    EXPECT_GE(r.gain, 0.8);
    EXPECT_LE(r.gain, 2.0);
  }
}

}  // namespace
