// Units of the StableHLO path (issue #21): the opaque-attribute grammar,
// the StableHLO / CHLO tables, and the dependence analysis on small steps.
#include <gtest/gtest.h>

#include "verifier/ir/candidates.h"
#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/dot_types.h"
#include "verifier/ir/opaque_attrs.h"

namespace fusecert::ir {
namespace {

Attr opaque(const std::string& data) {
  Attr a;
  a.kind = Attr::Kind::Opaque;
  a.dialect = "stablehlo";
  a.data = data;
  return a;
}

TEST(OpaqueAttrs, ReadsDotDimensionNumbers) {
  std::string why;
  auto d = parse_dot_dimensions(opaque("dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                                       "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>"),
                                why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->lhs_batching, std::vector<int64_t>{0});
  EXPECT_EQ(d->rhs_contracting, std::vector<int64_t>{1});
  auto e = parse_dot_dimensions(opaque("dot<>"), why);
  ASSERT_TRUE(e) << why;
  EXPECT_TRUE(e->lhs_contracting.empty());
}

TEST(OpaqueAttrs, RefusesWhatItDoesNotKnow) {
  for (const char* bad : {"dot<lhs_contracting_dimensions = [0], lhs_contracting_dimensions = [0]>",  // twice
                          "dot<lhs_contracting_dims = [0]>",                                       // unknown field
                          "dot<lhs_contracting_dimensions = [-1]>",                                 // negative
                          "dot<lhs_contracting_dimensions = [0x1]>",                                // not decimal
                          "dot<lhs_contracting_dimensions = [0] rhs_contracting_dimensions = [0]>",  // no comma
                          "dot<lhs_contracting_dimensions = [0]> tail",                              // trailing text
                          "dot<lhs_contracting_dimensions = [0]",                                    // unclosed
                          "conv<raw>", ""}) {
    std::string why;
    EXPECT_FALSE(parse_dot_dimensions(opaque(bad), why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  Attr other = opaque("dot<>");
  other.dialect = "mhlo";
  std::string why;
  EXPECT_FALSE(parse_dot_dimensions(other, why));
  Attr s;
  s.kind = Attr::Kind::String;
  s.text = "dot<>";
  EXPECT_FALSE(parse_dot_dimensions(s, why));
}

TEST(OpaqueAttrs, ReadsEnumerators) {
  std::string why;
  EXPECT_EQ(parse_enum_attr(opaque("precision HIGHEST"), "precision", precision_values(), why), "HIGHEST");
  EXPECT_FALSE(parse_enum_attr(opaque("precision FASTEST"), "precision", precision_values(), why));
  EXPECT_FALSE(parse_enum_attr(opaque("comparison_direction LT"), "precision", precision_values(), why));
  EXPECT_FALSE(parse_enum_attr(opaque("comparison_direction LT GT"), "comparison_direction",
                               comparison_direction_values(), why));
}

TEST(OpaqueAttrs, DimensionNumbersAgainstTypes) {
  auto t = [](std::vector<int64_t> s) {
    Type x;
    x.kind = Type::Kind::Tensor;
    x.shape = std::move(s);
    return x;
  };
  DotDimensions d;
  d.lhs_contracting = {0};
  d.rhs_contracting = {0};
  EXPECT_EQ(dot_dimensions_problem(d, t({512, 128}), t({512, 256}), t({128, 256})), "");
  EXPECT_NE(dot_dimensions_problem(d, t({512, 128}), t({256, 512}), t({128, 256})), "");  // extents differ
  EXPECT_NE(dot_dimensions_problem(d, t({512, 128}), t({512, 256}), t({256, 128})), "");  // wrong result
  d.lhs_contracting = {2};
  EXPECT_NE(dot_dimensions_problem(d, t({512, 128}), t({512, 256}), t({128, 256})), "");  // out of range
}

// Each way dimension numbers can contradict the types, and the reason says
// which field and dimension (issue #21 acceptance: an ill-typed dot_general
// was silently "not a weight gradient").
TEST(OpaqueAttrs, DimensionNumbersSayWhatIsWrong) {
  auto t = [](std::vector<int64_t> s, std::string text) {
    Type x;
    x.kind = Type::Kind::Tensor;
    x.shape = std::move(s);
    x.text = std::move(text);
    return x;
  };
  const Type dy = t({512, 128}, "dY"), x = t({512, 256}, "X"), dw = t({128, 256}, "dW");
  auto why = [&](DotDimensions d, const Type& r) { return dot_dimensions_problem(d, dy, x, r); };
  DotDimensions d;
  d.lhs_contracting = {0};
  d.rhs_contracting = {7};
  EXPECT_EQ(why(d, dw), "rhs_contracting_dimensions names dimension 7, outside the rhs operand X (rank 2)");
  d.rhs_contracting = {-1};  // the grammar refuses it; the check does too
  EXPECT_EQ(why(d, dw), "rhs_contracting_dimensions names dimension -1, outside the rhs operand X (rank 2)");
  d.rhs_contracting = {0, 1};
  EXPECT_EQ(why(d, dw), "lhs_contracting_dimensions names 1 dimension(s) and rhs_contracting_dimensions 2; they must pair up");
  d = {};
  d.lhs_batching = {0};
  d.rhs_batching = {};
  EXPECT_EQ(why(d, dw), "lhs_batching_dimensions names 1 dimension(s) and rhs_batching_dimensions 0; they must pair up");
  d.rhs_batching = {0};
  d.lhs_contracting = {0};
  d.rhs_contracting = {1};
  EXPECT_EQ(why(d, dw), "lhs_contracting_dimensions names dimension 0 of the lhs operand a second time (a dimension "
                        "is batched or contracted once)");
  d = {};
  d.lhs_batching = {1};
  d.rhs_batching = {1};
  EXPECT_EQ(why(d, dw), "batching pair 0 (lhs dimension 1 of dY, rhs dimension 1 of X) has extents 128 and 256; they "
                        "must agree");
  d = {};
  d.lhs_contracting = {1};
  d.rhs_contracting = {0};
  EXPECT_EQ(why(d, dw), "contracting pair 0 (lhs dimension 1 of dY, rhs dimension 0 of X) has extents 128 and 512; "
                        "they must agree");
  d.lhs_contracting = {0};
  EXPECT_EQ(why(d, t({256, 128}, "tensor<256x128xf32>")),
            "the result type tensor<256x128xf32> is not batch x lhs free x rhs free (128x256)");
  EXPECT_EQ(why(d, dw), "");
}

// Every dot_general of the module is checked against its types, whether or
// not it is a candidate: the forward dot too, and one with three operands.
TEST(DotTypes, EveryDotGeneralOfTheModule) {
  const char* text = R"(
func.func @f(%W: tensor<256x128xf32>, %X: tensor<512x256xf32>, %dY: tensor<512x128xf32>) -> (tensor<512x128xf32>, tensor<128x256xf32>, tensor<128x256xf32>) {
  %y = "stablehlo.dot_general"(%X, %W) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>}> : (tensor<512x256xf32>, tensor<256x128xf32>) -> tensor<512x128xf32>
  %d = "stablehlo.dot_general"(%dY, %X) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<512x128xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
  %e = "stablehlo.dot_general"(%dY, %X, %X) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<512x128xf32>, tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
  "func.return"(%y, %d, %e) : (tensor<512x128xf32>, tensor<128x256xf32>, tensor<128x256xf32>) -> ()
}
)";
  LoadResult lr = parse_mlir(text, "dots.mlir");
  ASSERT_TRUE(lr.module);
  const auto diags = dot_type_diags(*lr.module);
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].rule, "input.dot_dims");
  EXPECT_TRUE(diags[0].is_error());
  EXPECT_EQ(diags[0].loc.line, 3u);
  EXPECT_NE(diags[0].message.find("lhs_contracting_dimensions names dimension 2"), std::string::npos);
  EXPECT_EQ(diags[1].loc.line, 5u);
  EXPECT_NE(diags[1].message.find("it takes two operands (lhs, rhs) and returns one result; it has 3 operand(s)"),
            std::string::npos);
}

TEST(StableHloTable, RolesAreSemantics) {
  const DialectTables& ts = builtin_dialects();
  ASSERT_TRUE(ts.find("stablehlo.dot_general"));
  EXPECT_EQ(ts.find("stablehlo.dot_general")->role, OpRole::Contraction);
  EXPECT_TRUE(exact_reduction(ts.find("stablehlo.maximum")->computes));
  EXPECT_TRUE(rounded_reduction(ts.find("stablehlo.add")->computes));
  EXPECT_TRUE(sums(ts.find("stablehlo.subtract")->computes));
  EXPECT_FALSE(sums(ts.find("stablehlo.multiply")->computes));
  EXPECT_EQ(ts.find("chlo.square")->role, OpRole::Elementwise);
  EXPECT_EQ(ts.find("stablehlo.reduce")->role, OpRole::Reduce);
  EXPECT_THROW(parse_dialect_table("dialect: x\nops:\n  m:\n    role: elementwise\n    computes: fuzzy\n", "t"),
               std::invalid_argument);
  EXPECT_THROW(parse_dialect_table("dialect: x\nops:\n  m:\n    role: broadcast\n    computes: max\n", "t"),
               std::invalid_argument);
  EXPECT_THROW(parse_dialect_table("dialect: x\nops:\n  m:\n    role: reduce\n    computes: add\n", "t"),
               std::invalid_argument);
  // The fields `computes:` replaced (issue #15) no longer load.
  EXPECT_THROW(parse_dialect_table("dialect: x\nops:\n  m:\n    role: elementwise\n    reduction: exact\n", "t"),
               std::invalid_argument);
  EXPECT_THROW(parse_dialect_table("dialect: x\nops:\n  m:\n    role: elementwise\n    sums: true\n", "t"),
               std::invalid_argument);
}

const char* kStep = R"(
func.func @step(%W: tensor<256x128xf32>, %r: tensor<256xf32>, %X: tensor<512x256xf32>, %dY: tensor<512x128xf32>)
    -> (tensor<256x128xf32>, tensor<256xf32>) {
  %d = "stablehlo.dot_general"(%dY, %X) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<512x128xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
  %g = "stablehlo.transpose"(%d) <{permutation = array<i64: 1, 0>}> : (tensor<128x256xf32>) -> tensor<256x128xf32>
  %rb = "stablehlo.broadcast_in_dim"(%r) <{broadcast_dimensions = array<i64: 0>}> : (tensor<256xf32>) -> tensor<256x128xf32>
  %s = "stablehlo.multiply"(%g, %rb) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %w1 = "stablehlo.add"(%W, %s) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %z = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %m = "stablehlo.reduce"(%g, %z) <{dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %x = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) : (tensor<256x128xf32>, tensor<f32>) -> tensor<256xf32>
  "func.return"(%w1, %m) : (tensor<256x128xf32>, tensor<256xf32>) -> ()
}
)";

TEST(Dependence, FollowsTheStepsMaps) {
  LoadResult lr = parse_mlir(kStep, "step.mlir");
  ASSERT_TRUE(lr.module);
  const Module& m = *lr.module;
  auto cands = find_candidates(m);
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(cands[0].form, Form::Dag);
  const Dag d = analyze_dag(m, cands[0].func, cands[0].grad);
  ASSERT_TRUE(d.problem.empty()) << d.problem;
  ASSERT_EQ(d.outputs.size(), 2u);
  // W1 reads g at its own coordinate; the old row statistic is broadcast
  // (it does not depend on g) and reads nothing.
  ASSERT_EQ(d.outputs[0].dep.reads.size(), 1u);
  EXPECT_EQ(d.outputs[0].dep.reads[0].map.text, "(d0, d1) -> (d0, d1)");
  EXPECT_EQ(d.weight_result, 0);
  // The new statistic is an exact max read by nothing else: exempt, its
  // input (g itself) is what P9 checks; its own read spans the row.
  EXPECT_GE(d.outputs[1].exempt_reduce, 0);
  ASSERT_EQ(d.outputs[1].dep.reads.size(), 1u);
  EXPECT_EQ(d.outputs[1].dep.reads[0].map.text, "(d0, d1) -> (d0, d1)");
  EXPECT_EQ(d.outputs[1].dep.reads[0].extra, std::vector<int64_t>{128});
  EXPECT_EQ(d.outputs[1].exempt_input.reads.size(), 1u);
}


/// Two weight-gradient contractions and `combine` (an op on %g and %hs,
/// %hs = h * %sc with %sc an argument) feeding W's update.
std::string two_contractions(const std::string& combine) {
  return R"(
func.func @step(%W: tensor<256x128xf32>, %X: tensor<512x256xf32>, %dY: tensor<512x128xf32>, %X2: tensor<512x256xf32>, %dY2: tensor<512x128xf32>, %sc: tensor<256x128xf32>) -> (tensor<256x128xf32>) {
  %d = "stablehlo.dot_general"(%dY, %X) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<512x128xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
  %g = "stablehlo.transpose"(%d) <{permutation = array<i64: 1, 0>}> : (tensor<128x256xf32>) -> tensor<256x128xf32>
  %e = "stablehlo.dot_general"(%dY2, %X2) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<512x128xf32>, tensor<512x256xf32>) -> tensor<128x256xf32>
  %h = "stablehlo.transpose"(%e) <{permutation = array<i64: 1, 0>}> : (tensor<128x256xf32>) -> tensor<256x128xf32>
  %hs = "stablehlo.multiply"(%h, %sc) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %s = ")" + combine + R"("(%g, %hs) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %w1 = "stablehlo.add"(%W, %s) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  "func.return"(%w1) : (tensor<256x128xf32>) -> ()
}
)";
}

TEST(Dependence, SecondContractionThroughAnArgumentIsTied) {
  LoadResult lr = parse_mlir(two_contractions("stablehlo.add"), "tied.mlir");
  ASSERT_TRUE(lr.module);
  const Module& m = *lr.module;
  auto cands = find_candidates(m);
  ASSERT_EQ(cands.size(), 2u);
  const Dag d = analyze_dag(m, cands[0].func, cands[0].grad);
  ASSERT_TRUE(d.problem.empty()) << d.problem;
  EXPECT_EQ(d.producer, cands[0].producer);
  ASSERT_GE(d.tied_at, 0);
  EXPECT_EQ(d.tied_with, cands[1].producer);
  EXPECT_EQ(m.ops[d.tied_at].name, "stablehlo.add");
}

TEST(Dependence, SecondContractionInAProductIsUndecided) {
  LoadResult lr = parse_mlir(two_contractions("stablehlo.multiply"), "product.mlir");
  ASSERT_TRUE(lr.module);
  const Module& m = *lr.module;
  auto cands = find_candidates(m);
  ASSERT_EQ(cands.size(), 2u);
  const Dag d = analyze_dag(m, cands[0].func, cands[0].grad);
  ASSERT_TRUE(d.problem.empty()) << d.problem;
  EXPECT_LT(d.tied_at, 0);
  EXPECT_EQ(d.other_contraction, cands[1].producer);
  EXPECT_EQ(d.other_output, 0);
  EXPECT_FALSE(d.other_reduced);
}

/// Two dot_generals over slices of one X [512, 256] and one dY [512, 128]:
/// `xs0`/`ys0` and `xs1`/`ys1` are the slice ops of each (op text).
std::string sliced_contractions(const std::string& xs0, const std::string& ys0, const std::string& xs1,
                                const std::string& ys1) {
  return R"(func.func @step(%W: tensor<256x128xf32>, %X: tensor<512x256xf32>, %dY: tensor<512x128xf32>, %o: tensor<i32>) -> (tensor<256x128xf32>) {
  %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %c256 = "stablehlo.constant"() <{value = dense<256> : tensor<i32>}> : () -> tensor<i32>
  %c900 = "stablehlo.constant"() <{value = dense<900> : tensor<i32>}> : () -> tensor<i32>
  %x0 = )" + xs0 + R"(
  %y0 = )" + ys0 + R"(
  %x1 = )" + xs1 + R"(
  %y1 = )" + ys1 + R"(
  %d = "stablehlo.dot_general"(%y0, %x0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<256x128xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %g = "stablehlo.transpose"(%d) <{permutation = array<i64: 1, 0>}> : (tensor<128x256xf32>) -> tensor<256x128xf32>
  %e = "stablehlo.dot_general"(%y1, %x1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<256x128xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %h = "stablehlo.transpose"(%e) <{permutation = array<i64: 1, 0>}> : (tensor<128x256xf32>) -> tensor<256x128xf32>
  %s = "stablehlo.add"(%g, %h) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %w1 = "stablehlo.add"(%W, %s) : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  "func.return"(%w1) : (tensor<256x128xf32>) -> ()
}
)";
}

std::string slice(const std::string& v, int64_t lo, int64_t hi, int64_t cols) {
  return "\"stablehlo.slice\"(%" + v + ") <{limit_indices = array<i64: " + std::to_string(hi) + ", " +
         std::to_string(cols) + ">, start_indices = array<i64: " + std::to_string(lo) +
         ", 0>, strides = array<i64: 1, 1>}> : (tensor<512x" + std::to_string(cols) + "xf32>) -> tensor<" +
         std::to_string(hi - lo) + "x" + std::to_string(cols) + "xf32>";
}

std::string dyn(const std::string& v, const std::string& start, int64_t cols) {
  return "\"stablehlo.dynamic_slice\"(%" + v + ", %" + start + ", %c0) <{slice_sizes = array<i64: 256, " +
         std::to_string(cols) + ">}> : (tensor<512x" + std::to_string(cols) +
         "xf32>, tensor<i32>, tensor<i32>) -> tensor<256x" + std::to_string(cols) + "xf32>";
}

struct SplitRun {
  Dag dag;
  std::vector<Candidate> cands;
};

SplitRun split_run(const std::string& text) {
  LoadResult lr = parse_mlir(text, "split.mlir");
  EXPECT_TRUE(lr.module);
  if (!lr.module) return {};
  SplitRun r;
  r.cands = find_candidates(*lr.module);
  EXPECT_EQ(r.cands.size(), 2u);
  if (r.cands.size() == 2) r.dag = analyze_dag(*lr.module, r.cands[0].func, r.cands[0].grad);
  EXPECT_TRUE(r.dag.problem.empty()) << r.dag.problem;
  return r;
}

TEST(Dependence, TokenSlicesOfOneXAndDyAreSplitK) {
  SplitRun r = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 0, 256, 128),
                                             slice("X", 256, 512, 256), slice("dY", 256, 512, 128)));
  ASSERT_EQ(r.dag.split_partners.size(), 1u);
  EXPECT_EQ(r.dag.split_partners[0], r.cands[1].producer);
  EXPECT_LT(r.dag.tied_at, 0);
  EXPECT_LT(r.dag.other_contraction, 0);
  EXPECT_GE(r.dag.split_at, 0);
}

TEST(Dependence, DynamicSliceStartsAreClampedLikeTheOp) {
  // Start 900 clamps to 512 - 256 = 256: the second half, a split.
  SplitRun r = split_run(sliced_contractions(dyn("X", "c0", 256), dyn("dY", "c0", 128), dyn("X", "c900", 256),
                                             dyn("dY", "c900", 128)));
  EXPECT_EQ(r.dag.split_partners.size(), 1u);
  // Start 0 and a start 256 that the clamp keeps: a split too.
  SplitRun s = split_run(sliced_contractions(dyn("X", "c0", 256), dyn("dY", "c0", 128), dyn("X", "c256", 256),
                                             dyn("dY", "c256", 128)));
  EXPECT_EQ(s.dag.split_partners.size(), 1u);
  // The same unknown start on both sides of the second contraction: the
  // same tokens of X and dY, another window than the first's.
  SplitRun u = split_run(sliced_contractions(dyn("X", "c0", 256), dyn("dY", "c0", 128), dyn("X", "o", 256),
                                             dyn("dY", "o", 128)));
  EXPECT_EQ(u.dag.split_partners.size(), 1u);
}

TEST(Dependence, OtherSlicesAreTiedNotSplit) {
  // X's rows 0:256 against dY's rows 256:512: not a slice of X^T.dY.
  SplitRun mis = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 256, 512, 128),
                                               slice("X", 256, 512, 256), slice("dY", 0, 256, 128)));
  EXPECT_TRUE(mis.dag.split_partners.empty());
  EXPECT_GE(mis.dag.tied_at, 0);
  // The same window twice is one contraction repeated, not a split of K.
  SplitRun same = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 0, 256, 128),
                                                slice("X", 0, 256, 256), slice("dY", 0, 256, 128)));
  EXPECT_TRUE(same.dag.split_partners.empty());
  EXPECT_GE(same.dag.tied_at, 0);
  // Unknown starts that differ between X and dY: not shown to be the same tokens.
  SplitRun unk = split_run(sliced_contractions(dyn("X", "c0", 256), dyn("dY", "c0", 128), dyn("X", "o", 256),
                                               dyn("dY", "c256", 128)));
  EXPECT_TRUE(unk.dag.split_partners.empty());
  EXPECT_GE(unk.dag.tied_at, 0);
}

TEST(Dependence, OverlappingWindowsAreNoSplit) {
  // Tokens [0,256) and [128,384): 128..255 counted twice, no partition of K.
  SplitRun ov = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 0, 256, 128),
                                              slice("X", 128, 384, 256), slice("dY", 128, 384, 128)));
  EXPECT_TRUE(ov.dag.split_partners.empty());
  ASSERT_GE(ov.dag.tied_at, 0);
  EXPECT_EQ(ov.dag.tied_operands, Dag::Tied::Overlapping);
  EXPECT_EQ(ov.dag.tied_of, ov.cands[0].producer);
  EXPECT_EQ(ov.dag.of_window.start, 0);
  EXPECT_EQ(ov.dag.tied_window.start, 128);
  EXPECT_EQ(ov.dag.tied_window.limit, 384);
  SplitRun same = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 0, 256, 128),
                                                slice("X", 0, 256, 256), slice("dY", 0, 256, 128)));
  EXPECT_EQ(same.dag.tied_operands, Dag::Tied::Same);
  // Adjacent windows share no token: a split.
  SplitRun adj = split_run(sliced_contractions(slice("X", 0, 256, 256), slice("dY", 0, 256, 128),
                                               slice("X", 256, 512, 256), slice("dY", 256, 512, 128)));
  EXPECT_EQ(adj.dag.split_partners.size(), 1u);
  EXPECT_EQ(adj.dag.tied_operands, Dag::Tied::Other);
}

/// A step calling @h(%a) `calls` times; @h returns its argument.
std::string helper_calls(int calls) {
  std::string t = R"(func.func @step(%X: tensor<512x256xf32>) -> (tensor<256x256xf32>) {
  %a = )" + slice("X", 0, 256, 256) + "\n";
  for (int k = 0; k < calls; ++k)
    t += "  %r" + std::to_string(k) + " = func.call @h(%a) : (tensor<256x256xf32>) -> tensor<256x256xf32>\n";
  t += R"(  "func.return"(%a) : (tensor<256x256xf32>) -> ()
}
func.func private @h(%p: tensor<256x256xf32>) -> tensor<256x256xf32> {
  "func.return"(%p) : (tensor<256x256xf32>) -> ()
}
)";
  return t;
}

TEST(Dependence, HelperArgumentsAreSeenThroughOneCallSiteOnly) {
  for (int calls : {0, 1, 2}) {
    LoadResult lr = parse_mlir(helper_calls(calls), "helper.mlir");
    ASSERT_TRUE(lr.module) << calls;
    const Module& m = *lr.module;
    ASSERT_EQ(m.funcs.size(), 2u);
    const int p = m.funcs[1].args.at(0);
    const int a = m.ops[m.values[m.funcs[0].args.at(0)].uses.at(0).first].results.at(0);
    // One call: @h's argument is that call's operand, a window of X.
    EXPECT_EQ(through_one_call(m, p), calls == 1 ? a : p) << calls;
    const std::optional<AxisWindow> w = axis_window(m, p);
    EXPECT_EQ(w.has_value(), calls == 1) << calls;
    if (w) EXPECT_EQ(w->base, m.funcs[0].args[0]);
    // The step's own argument and a value defined by an op stay themselves.
    EXPECT_EQ(through_one_call(m, m.funcs[0].args[0]), m.funcs[0].args[0]);
    EXPECT_EQ(through_one_call(m, a), a);
  }
}

}  // namespace
}  // namespace fusecert::ir
