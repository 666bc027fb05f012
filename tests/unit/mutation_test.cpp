// Mutation tests: a deliberately wrong encoding must change the verdict, so
// the verdict tests above cannot pass on an encoding that proves nothing.
#include <gtest/gtest.h>

#include "tests/unit/prover_test_util.h"

using namespace fusecert;
using verifier::Verdict;

namespace {
using fusecert::test::ob;
verifier::PropositionResult p1_with(const std::string& mutation) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.mutations = {mutation};
  opt.timeout_ms = 3000;  // the mutated FP queries may time out (inconclusive): still never `holds`
  return test::prove_one("P1", opt);
}
}  // namespace

// The sanity check's fused side reads another K order: the check fails, and
// a failed sanity check means no verdict.
TEST(Mutation, ChangedKOrderOnFusedSideRefutesP1) {
  auto r = p1_with("P1.fused_k_order");
  EXPECT_NE(ob(r, "P1.tiling.binary32").smt_answer(), smt::Answer::Unsat);
  EXPECT_NE(r.verdict, Verdict::Holds);
}

// Deleting the partition premises l < T, c < S (issue #19's surviving
// mutant): two tiles update the same element.
TEST(Mutation, PartitionWithoutTheLocalBoundBreaksP1) {
  auto r = p1_with("P1.partition_no_local_bound");
  EXPECT_EQ(ob(r, "P1.partition.int").smt_answer(), smt::Answer::Sat);
  EXPECT_NE(r.verdict, Verdict::Holds);
}

// No clipping of the ragged edge tile: it writes past W.
TEST(Mutation, PartitionWithoutTheEdgeClipBreaksP1) {
  auto r = p1_with("P1.partition_no_edge_clip");
  EXPECT_EQ(ob(r, "P1.partition.int").smt_answer(), smt::Answer::Sat);
  EXPECT_NE(r.verdict, Verdict::Holds);
}

// A kernel that declared a reversed or a blocked K order.
TEST(Mutation, ReversedOrBlockedKernelKOrderBreaksP1) {
  for (const char* m : {"P1.kernel_k_reversed", "P1.kernel_k_blocked"}) {
    auto r = p1_with(m);
    EXPECT_EQ(ob(r, "P1.korder.kernels").smt_answer(), smt::Answer::Sat) << m;
    EXPECT_NE(r.verdict, Verdict::Holds) << m;
  }
}

TEST(Mutation, SwappedBetasBreakP2Identity) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.mutations = {"P2.swap_beta"};
  auto r = test::prove_one("P2", opt);
  EXPECT_EQ(r.obligations.at(0).smt_answer(), smt::Answer::Sat);
  EXPECT_NE(r.verdict, Verdict::Refuted);
}
