// GPU tests: the four hardware evidence rows (kernels.md). Each test skips
// with a clear message when no CUDA device is present (CI has none).
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
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.json;
}

TEST_F(Gpu, Row2TileConfigurationsBitwiseEqual) {
  const fk::EvidenceRow r = fk::evidence_tile_configs();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.json;
}

TEST_F(Gpu, Row3NoGradientSizedAllocation) {
  const fk::EvidenceRow r = fk::evidence_no_gradient_buffer();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.json;
}

TEST_F(Gpu, Row4Fp32AccumulatorGains) {
  const fk::EvidenceRow r = fk::evidence_p6_gains();
  EXPECT_TRUE(r.passed) << r.summary << "\n" << r.json;
}

TEST_F(Gpu, RejectsShapesTheTensorCoreKernelCannotTake) {
  const fk::Shape s{48, 100, 128};  // N % 128 != 0, BT % 32 != 0
  fk::StepParams p = fk::make_step_params(fk::StepParams{});
  EXPECT_EQ(fk::launch_fused(fk::mma_configs()[0], p, s, nullptr, nullptr, nullptr,
                             fk::DType::f32, nullptr, nullptr, fk::DType::f32, nullptr, 0),
            cudaErrorInvalidValue);
}

}  // namespace
