// Units of the typed reads of a table op (verifier/ir/table_reads.h): the
// K-split fact and the epilogue, by meaning through the op's table entry.
// Expected values from the keys' semantics (docs/ir-checking.md, "Typed
// reads of a table op"), written before the accessor ran on them.
#include <gtest/gtest.h>

#include "verifier/ir/attributes.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/table_reads.h"

using namespace fusecert;

namespace {

/// A module with one tessera.matmul (X is 64x256: K = 64) whose attribute
/// dictionary is `attrs`, through the boundary as certify runs it.
ir::Module matmul(const std::string& attrs, const std::string& a = "tensor<64x256xf32>",
                  const std::string& b = "tensor<64x128xf32>", const std::string& c = "tensor<256x128xf32>") {
  const std::string text =
      "func.func @f(%X: " + a + ", %dY: " + b + ") -> " + c + " {\n"
      "  %g = \"tessera.matmul\"(%X, %dY) {" + attrs + "} : (" + a + ", " + b + ") -> " + c + "\n"
      "  return %g : " + c + "\n}\n";
  auto r = ir::parse_mlir(text, "t.mlir");
  EXPECT_TRUE(r.module.has_value());
  ir::mark_refused(*r.module, ir::dialects());
  return *r.module;
}

ir::KSplit split_of(const std::string& attrs, const std::string& a = "tensor<64x256xf32>",
                    const std::string& b = "tensor<64x128xf32>", const std::string& c = "tensor<256x128xf32>") {
  ir::Module m = matmul(attrs, a, b, c);
  for (const ir::Op& op : m.ops)
    if (const ir::OpSpec* s = ir::spec_of(op)) return ir::k_split(m, op, *s);
  ADD_FAILURE() << "no table op";
  return {};
}

using S = ir::KSplit::State;

}  // namespace

TEST(TableReads, KSplitFromTheKeysByMeaning) {
  EXPECT_EQ(split_of("transposeA = true").state, S::Undeclared);
  EXPECT_TRUE(split_of("transposeA = true").declared_by_table);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k").state, S::Whole);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = true").state, S::Whole);
  // An index is Tessera's tiling stamp, A's dimension 1: M (256) here, as
  // transposeA is set (TesseraTiling.cpp: lhs.getDimSize(1)).
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = 256 : index").state, S::Whole);
  EXPECT_EQ(split_of("transposeA = true, split_k = 1 : i64").state, S::Whole);
  const ir::KSplit four = split_of("transposeA = true, split_k = 4 : i64");
  EXPECT_EQ(four.state, S::Split);
  EXPECT_EQ(four.splits, 4u);
  EXPECT_EQ(four.key, "split_k");
  // k_whole = false: not whole; the split count when one is given, else 2.
  const ir::KSplit no = split_of("transposeA = true, tessera.full_k = false");
  EXPECT_EQ(no.state, S::NotWhole);
  EXPECT_EQ(no.splits, 2u);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = false, split_k = 8 : i64").splits, 8u);
}

TEST(TableReads, ValuesThatSayNothingAreUnreadableNeverWhole) {
  // 64 is this op's K, but the stamp sizes A's dimension 1 (M = 256 with
  // transposeA): a contradiction, never "whole" (before: read as the K).
  for (const char* bad : {"split_k = 0 : i64", "split_k = -2 : i64", "tessera.full_k = 32 : index",
                          "tessera.full_k = 64 : index"}) {
    const ir::KSplit k = split_of(std::string("transposeA = true, ") + bad);
    EXPECT_EQ(k.state, S::Unreadable) << bad;
    EXPECT_FALSE(k.why.empty()) << bad;
  }
  // transposeA = false: A is [M, K] (256x64), so A's dimension 1 is K = 64,
  // and B's dimension 0 must agree.
  const char* a = "tensor<256x64xf32>";
  EXPECT_EQ(split_of("transposeA = false, tessera.full_k = 64 : index", a).state, S::Whole);
  EXPECT_EQ(split_of("transposeA = false, tessera.full_k = 256 : index", a).state, S::Unreadable);
  // B's K (dimension 0, 64) checks the stamp when A's K is dynamic.
  EXPECT_EQ(split_of("transposeA = false, tessera.full_k = 1 : index", "tensor<256x?xf32>").state, S::Unreadable);
  EXPECT_EQ(split_of("transposeA = false, tessera.full_k = 64 : index", "tensor<256x?xf32>").state, S::Whole);
  // With transposeB, B is [N, K]: its dimension 1.
  EXPECT_EQ(split_of("transposeA = false, transposeB = true, tessera.full_k = 64 : index", a, "tensor<128x64xf32>").state,
            S::Whole);
}

TEST(TableReads, AnIndexWhoseDimensionIsDynamicIsUnverified) {
  // K dynamic on both sides (transposeA unset: the stamp is the K): nothing
  // to check it against; K whole is not shown (inconclusive, never Whole).
  const ir::KSplit k = split_of("transposeA = false, tessera.full_k = 1 : index", "tensor<256x?xf32>", "tensor<?x128xf32>");
  EXPECT_EQ(k.state, S::Unverified);
  EXPECT_FALSE(k.why.empty());
  // transposeA: the stamp is M, static in the result (256) even when A's
  // dimension 1 is dynamic.
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = 256 : index", "tensor<64x?xf32>").state, S::Whole);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = 1 : index", "tensor<64x?xf32>").state, S::Unreadable);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = 256 : index", "tensor<64x?xf32>", "tensor<64x128xf32>",
                     "tensor<?x128xf32>").state,
            S::Unverified);
  // A unit k_whole states no extent: K whole whatever K is.
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k", "tensor<?x256xf32>", "tensor<?x128xf32>").state, S::Whole);
}

TEST(TableReads, OperandsWhoseKDiffersAreUnreadable) {
  // X's K is 64, dY's 32: whatever the attributes say.
  for (const char* attrs : {"transposeA = true, tessera.full_k", "transposeA = true, split_k = 1 : i64",
                            "transposeA = true, split_k = 4 : i64", "transposeA = true"}) {
    const ir::KSplit k = split_of(attrs, "tensor<64x256xf32>", "tensor<32x128xf32>");
    EXPECT_EQ(k.state, S::Unreadable) << attrs;
    EXPECT_NE(k.why.find("K extents differ"), std::string::npos) << k.why;
  }
}

TEST(TableReads, RefusedKeysAreNotRead) {
  // split_k = 4 : index is of a kind the table does not give split_k (int).
  EXPECT_EQ(split_of("transposeA = true, split_k = 4 : index").state, S::Refused);
  EXPECT_EQ(split_of("transposeA = true, tessera.full_k = 3 : i64").state, S::Refused);
}

TEST(TableReads, EpilogueOnlyFromTheEntrysKey) {
  const std::string text =
      "func.func @f(%X: tensor<4x4xf32>, %dY: tensor<4x4xf32>, %W: tensor<4x4xf32>, %m: tensor<4x4xf32>, %v: tensor<4x4xf32>)"
      " -> tensor<4x4xf32> {\n"
      "  %W1, %m1, %v1 = \"tessera.training.wgrad_adamw\"(%X, %dY, %W, %m, %v) {epilogue = @epi} : (tensor<4x4xf32>, "
      "tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)\n"
      "  %W2, %m2, %v2 = \"tessera.training.wgrad_adamw\"(%X, %dY, %W, %m, %v) {epilogue = \"epi\"} : (tensor<4x4xf32>, "
      "tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)\n"
      "  %W3, %m3, %v3 = \"tessera.training.wgrad_adamw\"(%X, %dY, %W, %m, %v) : (tensor<4x4xf32>, "
      "tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)\n"
      "  return %W1 : tensor<4x4xf32>\n}\n";
  auto r = ir::parse_mlir(text, "t.mlir");
  ASSERT_TRUE(r.module.has_value());
  ir::mark_refused(*r.module, ir::dialects());
  std::vector<ir::Epilogue> got;
  for (const ir::Op& op : r.module->ops)
    if (const ir::OpSpec* s = ir::spec_of(op)) got.push_back(ir::epilogue(op, *s));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].state, ir::Epilogue::State::Named);
  EXPECT_EQ(got[0].callee, "epi");
  // A string is refused at the boundary (the table gives the kind symbol).
  EXPECT_EQ(got[1].state, ir::Epilogue::State::Unreadable);
  EXPECT_EQ(got[2].state, ir::Epilogue::State::None);
}
