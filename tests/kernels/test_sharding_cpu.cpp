// CPU tests of the ZeRO-2 ownership arithmetic and the host side of P3's
// reduce-into-state, for several rank counts (CI runs these; the two-GPU
// NCCL run checks the same on hardware).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fusecert/kernels/host_reference.h"
#include "fusecert/kernels/sharding.h"

namespace fk = fusecert::kernels;

namespace {

TEST(Sharding, EveryRowHasExactlyOneOwner) {
  for (int R : {1, 2, 3, 8})
    for (int V : {0, 1, 7, 13, 1000, 1001, 4096, 4097}) {
      std::vector<int> owners(V, 0);
      int next = 0;
      for (int r = 0; r < R; ++r) {
        const fk::Shard s = fk::shard_of(V, R, r);
        ASSERT_EQ(s.start, next) << "V=" << V << " R=" << R;  // contiguous, in rank order
        ASSERT_LE(s.rows, fk::max_shard_rows(V, R));
        ASSERT_GE(s.rows, V / R);
        ASSERT_EQ(s.rows, V / R + (r < V % R ? 1 : 0));  // the first V mod R are longer
        for (int i = s.start; i < s.start + s.rows; ++i) {
          ++owners[i];
          ASSERT_EQ(fk::owner_of_row(V, R, i), r);
        }
        next = s.start + s.rows;
      }
      ASSERT_EQ(next, V);
      for (int c : owners) ASSERT_EQ(c, 1);
    }
  EXPECT_THROW(fk::shard_of(10, 0, 0), std::invalid_argument);
  EXPECT_THROW(fk::shard_of(10, 2, 2), std::invalid_argument);
  EXPECT_THROW(fk::owner_of_row(10, 2, 10), std::invalid_argument);
}

std::vector<float> randv(fk::Rng& rng, std::size_t n, double scale) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(scale * rng.normal());
  return v;
}

// P3 on the host: the rank-ordered sum of contributions equals mu*B + sum G
// (exact in the reals; binary32 differs only by reassociation, bounded by
// (R+1) * 2^-24 times the sum of magnitudes), for rank counts 1, 2, 3, 8 and V not
// divisible by R.
TEST(ReduceIntoState, ContributionsSumToMomentumUpdate) {
  const int H = 5;
  const float mu = 0.9f;
  for (int R : {1, 2, 3, 8})
    for (int V : {13, 64}) {
      fk::Rng rng(100 + R * 7 + V);
      const std::size_t n = static_cast<std::size_t>(V) * H;
      const std::vector<float> B = randv(rng, n, 1.0);
      std::vector<std::vector<float>> G(R), contrib(R, std::vector<float>(n));
      for (int r = 0; r < R; ++r) {
        G[r] = randv(rng, n, 1.0);
        fk::host_contribution(B.data(), G[r].data(), H, 0, V, V, R, r, mu, contrib[r].data());
      }
      std::vector<float> sum;
      fk::host_sum_ranks(contrib, &sum);
      double worst = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double exact = static_cast<double>(mu) * B[i], sum64 = 0,
               mag = std::fabs(static_cast<double>(mu) * B[i]);
        for (int r = 0; r < R; ++r) {
          exact += G[r][i];
          sum64 += contrib[r][i];
          mag += std::fabs(G[r][i]);
        }
        // float64 sum of the binary32 contributions vs the float64 truth: the
        // only difference is fl(mu*B) (one rounding), so ~1e-7 relative.
        EXPECT_NEAR(sum64, exact, 1e-6 * (1 + std::fabs(exact)));
        // reassociation bound: |error| <= R * 2^-24 * sum of |terms| (+ mu*B rounding)
        worst = std::max(worst, std::fabs(sum[i] - exact) / mag);
      }
      EXPECT_LT(worst, (R + 1) * 0x1.0p-24) << "R=" << R << " V=" << V;
      // Only the owner seeded mu*B: each row's contributions hold B exactly once.
      for (int row = 0; row < V; ++row) {
        const int owner = fk::owner_of_row(V, R, row);
        for (int r = 0; r < R; ++r) {
          const std::size_t i = static_cast<std::size_t>(row) * H;
          if (r == owner)
            EXPECT_EQ(contrib[r][i], fk::fk_add(fk::fk_mul(mu, B[i]), G[r][i]));
          else
            EXPECT_EQ(contrib[r][i], G[r][i]);
        }
      }
    }
}

// The distributed path's GEMM on the host: #8's fused step with the
// momentum_state epilogue, run per rank and per chunk on a column window of
// that rank's dY [BT, V] (Shape::ldy = V), writes exactly host_contribution of
// the rank's gradient for those rows (seeded from B on the owner, unseeded
// elsewhere) and never touches W. Tiled and one-shot forms agree bit for bit.
TEST(ReduceIntoState, FusedMomentumStateEpilogueWritesTheContribution) {
  const int H = 24, BT = 40, C = 5;
  const float mu = 0.9f;
  for (int R : {1, 2, 3, 8})
    for (int V : {13, 64}) {
      fk::Rng rng(300 + R * 11 + V);
      const std::size_t n = static_cast<std::size_t>(V) * H;
      const std::vector<float> B = randv(rng, n, 1.0);
      for (int rank = 0; rank < R; ++rank) {
        const auto dY = fk::random_bf16(rng, static_cast<std::size_t>(BT) * V, 1.0);
        const auto X = fk::random_bf16(rng, static_cast<std::size_t>(BT) * H, 1.0);
        const std::vector<float> G = fk::host_gradient_f32(dY.data(), X.data(), fk::Shape{BT, V, H});
        std::vector<float> want(n);
        fk::host_contribution(B.data(), G.data(), H, 0, V, V, R, rank, mu, want.data());
        fk::StepParams p;
        p.opt = fk::Optimizer::momentum_state;
        p.momentum = mu;
        p = fk::make_step_params(p);
        for (int r = 0; r < R; ++r) {  // every shard's blocks, as the GPU path launches them
          const fk::Shard s = fk::shard_of(V, R, r);
          for (int row0 = s.start; row0 < s.start + s.rows; row0 += C) {
            const int rows = std::min(C, s.start + s.rows - row0);
            const fk::Shape win{BT, rows, H, V};
            const float* seed = r == rank ? B.data() + static_cast<std::size_t>(row0) * H : nullptr;
            std::vector<float> out(static_cast<std::size_t>(rows) * H, -7.0f), tiled = out;
            fk::host_fused_step(p, dY.data() + row0, X.data(), win, nullptr, fk::DType::f32,
                                out.data(), const_cast<float*>(seed), fk::DType::f32);
            fk::host_fused_step_tiled(p, fk::simt_configs()[2], dY.data() + row0, X.data(), win,
                                      nullptr, fk::DType::f32, tiled.data(),
                                      const_cast<float*>(seed), fk::DType::f32);
            for (std::size_t i = 0; i < out.size(); ++i) {
              const std::size_t j = static_cast<std::size_t>(row0) * H + i;
              ASSERT_EQ(out[i], want[j]) << "R=" << R << " V=" << V << " rank=" << rank
                                         << " row0=" << row0 << " i=" << i;
              ASSERT_EQ(tiled[i], out[i]);
            }
          }
        }
      }
    }
  // A stride below the window's width is refused by the kernels' shape check.
  EXPECT_FALSE(fk::unsupported_reason(fk::simt_configs()[0], fk::Shape{16, 8, 8, 4}).empty());
  EXPECT_TRUE(fk::unsupported_reason(fk::simt_configs()[0], fk::Shape{16, 8, 8, 13}).empty());
  EXPECT_FALSE(fk::unsupported_reason(fk::wgmma_configs()[0], fk::Shape{64, 128, 128, 130}).empty());
  EXPECT_TRUE(fk::unsupported_reason(fk::wgmma_configs()[0], fk::Shape{64, 128, 128, 136}).empty());
}

// The negative case: AdamW's v on per-rank partials is not the v of the sum.
TEST(ReduceIntoState, AdamWSecondMomentOnPartialsErrs) {
  const std::size_t n = 4096;
  fk::Rng rng(7);
  const std::vector<float> v(n, 0.0f);
  for (int R : {2, 4, 8}) {
    std::vector<std::vector<float>> G(R);
    for (auto& g : G) g = randv(rng, n, 1.0);
    const double e = fk::host_adamw_v_partials_rel_error(G, v.data(), n, 0.999f);
    EXPECT_GT(e, 0.3) << "R=" << R;
  }
  std::vector<std::vector<float>> one = {randv(rng, n, 1.0)};
  EXPECT_LT(fk::host_adamw_v_partials_rel_error(one, v.data(), n, 0.999f), 1e-12);
}

}  // namespace
