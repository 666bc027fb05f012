// ir.scalar_fn (issue #15): what a scalar op computes (ir::ScalarFn) is set
// by the front end from the typed MLIR op, never from its printed name, and
// by a dialect table's `computes:` for an unregistered dialect's ops; the
// old table fields `sums:` / `reduction:` are load errors at their line:col.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"
#include "verifier/ir/scalar_fn.h"

namespace fusecert::ir {
namespace {

// One linalg.generic whose body holds each scalar op fusecert models, in
// order, then ops of another dialect whose names look like arith's.
const char* kBody = R"(
#id = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %0 = arith.addf %x, %y : f32
      %1 = arith.subf %0, %y : f32
      %2 = arith.mulf %1, %y : f32
      %3 = arith.divf %2, %y : f32
      %4 = arith.negf %3 : f32
      %5 = arith.maximumf %4, %y : f32
      %6 = arith.minimumf %5, %y : f32
      %7 = arith.maxnumf %6, %y : f32
      %8 = arith.minnumf %7, %y : f32
      %9 = math.sqrt %8 : f32
      %10 = math.rsqrt %9 : f32
      %11 = arith.extf %10 : f32 to f64
      %12 = arith.truncf %11 : f64 to f32
      %13 = "acme.arith.addf"(%12, %y) : (f32, f32) -> f32
      %14 = "acme.addf"(%13, %y) : (f32, f32) -> f32
      %15 = math.exp %14 : f32
      linalg.yield %15 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)";

TEST(ScalarFn, BodyNodesFromTypedOps) {
  LoadResult r = parse_mlir(kBody, "body.mlir");
  ASSERT_TRUE(r.module) << (r.diags.empty() ? "" : r.diags[0].message);
  const Op* g = nullptr;
  for (const Op& op : r.module->ops)
    if (op.kind == Op::Kind::Generic) g = &op;
  ASSERT_TRUE(g && g->body);
  std::vector<ScalarFn> got;
  std::vector<std::string> names;
  for (const BodyNode& n : g->body->nodes)
    if (n.kind == BodyNode::Kind::Op) {
      got.push_back(n.fn);
      names.push_back(n.op);
    }
  const std::vector<ScalarFn> want = {
      ScalarFn::Add,    ScalarFn::Sub,    ScalarFn::Mul,  ScalarFn::Div,   ScalarFn::Neg,
      ScalarFn::Max,    ScalarFn::Min,    ScalarFn::MaxNum, ScalarFn::MinNum, ScalarFn::Sqrt,
      ScalarFn::Rsqrt,  ScalarFn::Convert, ScalarFn::Convert,
      ScalarFn::Unknown,  // "acme.arith.addf": another dialect's op, whatever its name says
      ScalarFn::Unknown,  // "acme.addf"
      ScalarFn::Unknown,  // math.exp: an upstream op fusecert gives no scalar semantics
  };
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << "body op " << i << " (" << names[i] << "): got " << to_string(got[i])
                               << ", want " << to_string(want[i]);
  EXPECT_EQ(names[13], "acme.arith.addf");  // the name is kept for messages only
}

// A fused op's epilogue is a function of scalar ops: Op::fn of each.
const char* kEpilogue = R"(
func.func @epi(%w: f32, %g: f32) -> f32 {
  %0 = arith.mulf %w, %g : f32
  %1 = arith.subf %w, %0 : f32
  %2 = "acme.arith.subf"(%1, %g) : (f32, f32) -> f32
  %3 = arith.addi %4, %4 : i32
  %4 = arith.constant 1 : i32
  return %2 : f32
}
)";

TEST(ScalarFn, FunctionLevelOpsFromTypedOps) {
  LoadResult r = parse_mlir(kEpilogue, "epi.mlir");
  ASSERT_FALSE(r.module) << "a use before its definition must not verify";
  const char* ok = R"(
func.func @epi(%w: f32, %g: f32, %i: i32) -> f32 {
  %0 = arith.mulf %w, %g : f32
  %1 = arith.subf %w, %0 : f32
  %2 = "acme.arith.subf"(%1, %g) : (f32, f32) -> f32
  %3 = arith.addi %i, %i : i32
  return %2 : f32
}
)";
  r = parse_mlir(ok, "epi.mlir");
  ASSERT_TRUE(r.module);
  std::vector<ScalarFn> got;
  for (const Op& op : r.module->ops) got.push_back(op.fn);
  // mulf, subf, the custom op, addi (an integer add: not given a float
  // add's semantics), return.
  const std::vector<ScalarFn> want = {ScalarFn::Mul, ScalarFn::Sub, ScalarFn::Unknown, ScalarFn::Unknown,
                                      ScalarFn::Unknown};
  EXPECT_EQ(got, want);
}

TEST(ScalarFn, SpellingsRoundTrip) {
  for (ScalarFn f : {ScalarFn::Add, ScalarFn::Sub, ScalarFn::Mul, ScalarFn::Div, ScalarFn::Neg, ScalarFn::Max,
                     ScalarFn::Min, ScalarFn::MaxNum, ScalarFn::MinNum, ScalarFn::Sqrt, ScalarFn::Rsqrt,
                     ScalarFn::Convert, ScalarFn::And, ScalarFn::Or, ScalarFn::Xor}) {
    auto back = scalar_fn_of(to_string(f));
    ASSERT_TRUE(back) << to_string(f);
    EXPECT_EQ(*back, f);
  }
  EXPECT_FALSE(scalar_fn_of("unknown"));
  EXPECT_FALSE(scalar_fn_of("Add"));
  EXPECT_FALSE(scalar_fn_of("arith.addf"));
}

TEST(ScalarFn, DerivedProperties) {
  EXPECT_TRUE(sums(ScalarFn::Add));
  EXPECT_TRUE(sums(ScalarFn::Sub));
  EXPECT_FALSE(sums(ScalarFn::Mul));
  EXPECT_FALSE(sums(ScalarFn::Unknown));
  EXPECT_TRUE(exact_reduction(ScalarFn::Max));
  EXPECT_TRUE(exact_reduction(ScalarFn::MinNum));
  EXPECT_TRUE(exact_reduction(ScalarFn::Xor));
  EXPECT_FALSE(exact_reduction(ScalarFn::Add));
  EXPECT_TRUE(rounded_reduction(ScalarFn::Add));
  EXPECT_TRUE(rounded_reduction(ScalarFn::Mul));
  EXPECT_FALSE(is_reduction(ScalarFn::Sub));  // not associative
  EXPECT_FALSE(is_reduction(ScalarFn::Div));
  EXPECT_FALSE(is_reduction(ScalarFn::Unknown));
}

std::string load_error(const std::string& yaml) {
  try {
    parse_dialect_table(yaml, "t.yaml");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ScalarFn, TableComputes) {
  DialectTable t = parse_dialect_table(
      "dialect: acme\nops:\n  plus:\n    role: elementwise\n    computes: add\n  big:\n    role: elementwise\n"
      "    computes: max\n  other:\n    role: elementwise\n",
      "t.yaml");
  EXPECT_EQ(t.find("acme.plus")->computes, ScalarFn::Add);
  EXPECT_EQ(t.find("acme.big")->computes, ScalarFn::Max);
  EXPECT_EQ(t.find("acme.other")->computes, ScalarFn::Unknown);
  // A value that is no scalar function, a non-scalar, an op that is not
  // elementwise: each a load error at the value.
  EXPECT_NE(load_error("dialect: x\nops:\n  m:\n    role: elementwise\n    computes: fuzzy\n").find("t.yaml:5:15:"),
            std::string::npos);
  EXPECT_NE(load_error("dialect: x\nops:\n  m:\n    role: elementwise\n    computes: [add]\n").find("t.yaml:5:15:"),
            std::string::npos);
  EXPECT_NE(load_error("dialect: x\nops:\n  m:\n    role: reduce\n    computes: add\n").find("only an elementwise"),
            std::string::npos);
}

TEST(ScalarFn, OldTableFieldsAreLoadErrors) {
  for (const char* field : {"sums: true", "reduction: exact", "reduction: rounded"}) {
    const std::string e =
        load_error(std::string("dialect: x\nops:\n  m:\n    role: elementwise\n    ") + field + "\n    attrs: {}\n");
    EXPECT_NE(e.find("t.yaml:5:5: ops.m: the field '"), std::string::npos) << e;
    EXPECT_NE(e.find("\nnote: use `computes: <fn>`"), std::string::npos) << e;
  }
}

TEST(ScalarFn, BuiltinTablesSayWhatTheyCompute) {
  const DialectTables& ts = builtin_dialects();
  EXPECT_EQ(ts.find("stablehlo.add")->computes, ScalarFn::Add);
  EXPECT_EQ(ts.find("stablehlo.subtract")->computes, ScalarFn::Sub);
  EXPECT_EQ(ts.find("stablehlo.multiply")->computes, ScalarFn::Mul);
  EXPECT_EQ(ts.find("stablehlo.maximum")->computes, ScalarFn::Max);
  EXPECT_EQ(ts.find("stablehlo.minimum")->computes, ScalarFn::Min);
  EXPECT_EQ(ts.find("stablehlo.power")->computes, ScalarFn::Unknown);
}

}  // namespace
}  // namespace fusecert::ir
