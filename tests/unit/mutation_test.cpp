// Mutation tests: a deliberately wrong encoding must change the verdict, so
// the verdict tests above cannot pass on an encoding that proves nothing.
#include <gtest/gtest.h>

#include "tests/unit/prover_test_util.h"

using namespace fusecert;
using verifier::Verdict;

TEST(Mutation, ChangedKOrderOnFusedSideRefutesP1) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.mutations = {"P1.fused_k_order"};
  opt.timeout_ms = 3000;  // the mutated FP queries may time out (inconclusive): still never `holds`
  auto r = test::prove_one("P1", opt);
  EXPECT_EQ(r.obligations.at(2).id, "P1.korder.int");
  EXPECT_EQ(r.obligations.at(2).result, smt::Answer::Sat);
  EXPECT_NE(r.obligations.at(0).result, smt::Answer::Unsat);
  EXPECT_NE(r.verdict, Verdict::Holds);
}

TEST(Mutation, SwappedBetasBreakP2Identity) {
  verifier::ProveOptions opt;
  opt.witnesses = false;
  opt.mutations = {"P2.swap_beta"};
  auto r = test::prove_one("P2", opt);
  EXPECT_EQ(r.obligations.at(0).result, smt::Answer::Sat);
  EXPECT_NE(r.verdict, Verdict::Refuted);
}
