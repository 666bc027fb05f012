// Units of the pre-parse bounds (verifier/ir/input_bounds.cpp): real nesting
// of brackets and affine expressions, literal lengths. Each hostile case is
// one that crashed or hung certify (issue #17); each benign one is what real
// modules contain and must still parse.
#include <gtest/gtest.h>

#include <string>

#include "verifier/ir/input_bounds.h"

using namespace fusecert;

namespace {

std::string rep(const std::string& s, int n) {
  std::string o;
  for (int i = 0; i < n; ++i) o += s;
  return o;
}
std::string map_module(const std::string& expr) {
  return "#m = affine_map<(d0, d1) -> (" + expr + ")>\nfunc.func @f() { return }\n";
}
std::optional<std::string> refusal(const std::string& text) {
  auto d = ir::check_input_bounds(text, "t.mlir");
  if (!d) return std::nullopt;
  return d->message;
}
bool mentions(const std::optional<std::string>& m, const std::string& what) {
  return m && m->find(what) != std::string::npos;
}

}  // namespace

TEST(InputBounds, UnaryMinusChainCountsAsNesting) {
  EXPECT_TRUE(mentions(refusal(map_module(rep("- ", 300) + "d0")), "affine expression nests deeper than 256"));
  EXPECT_FALSE(refusal(map_module(rep("- ", 200) + "d0")));
}

TEST(InputBounds, BinaryChainCountsAsNesting) {
  EXPECT_TRUE(mentions(refusal(map_module(rep("d0 + ", 300) + "d0")), "affine expression nests deeper than 256"));
  EXPECT_TRUE(mentions(refusal(map_module(rep("d0 * 2 + ", 150) + "d0")), "affine expression nests"));
  EXPECT_TRUE(mentions(refusal(map_module(rep("d0 floordiv 2 mod ", 150) + "d0")), "affine expression nests"));
  EXPECT_FALSE(refusal(map_module(rep("d0 + ", 200) + "d0")));
}

TEST(InputBounds, EachResultIsItsOwnExpression) {
  // 100 results of 100 operators each: no expression nests deeper than 101.
  std::string results;
  for (int i = 0; i < 100; ++i) results += (i ? ", " : "") + rep("d0 + ", 100) + "d1";
  EXPECT_FALSE(refusal(map_module(results)));
}

TEST(InputBounds, AffineSetComparisonsAreNotBrackets) {
  std::string cs;
  for (int i = 0; i < 1000; ++i) cs += (i ? ", " : "") + std::string(i % 2 ? "d0 >= 0" : "-d0 + s0 - 1 >= 0");
  EXPECT_FALSE(refusal("func.func @f() attributes {s = affine_set<(d0)[s0] : (" + cs + ")>} { return }\n"));
  // The old guard took each `>` of `>=` for a closing bracket: arrays of sets
  // nested 2,000 deep passed it and overflowed MLIR's parser.
  const std::string deep = "func.func @f() attributes {s = " +
                           rep("[affine_set<(d0) : (" + rep("d0 >= 0, ", 299) + "d0 >= 0)>, ", 2000) + "0" +
                           rep("]", 2000) + "} { return }\n";
  // (the limit is passed inside a set's parentheses: "affine expression nests")
  EXPECT_TRUE(mentions(refusal(deep), "nests deeper than 256"));
}

TEST(InputBounds, OnlyTheMatchingBracketCloses) {
  // Stray `>` never lower the count below the parser's real depth.
  EXPECT_TRUE(mentions(refusal(rep("[", 200) + rep(">", 200) + rep("[", 200)), "brackets nest deeper than 256"));
  EXPECT_TRUE(mentions(refusal(rep("(", 257)), "brackets nest deeper than 256"));
  EXPECT_FALSE(refusal(rep("(", 256)));
  // `->` is an arrow, not a bracket, and closes nothing.
  EXPECT_FALSE(refusal(rep("#m = affine_map<(d0) -> (d0)>\n", 1000) + rep("[", 250) + rep("]", 250)));
}

TEST(InputBounds, StringsAndCommentsAreNotScanned) {
  EXPECT_FALSE(refusal("// " + rep("[", 1000) + rep("9", 5000) + "\n\"" + rep("(", 1000) + rep("7", 5000) + "\"\n"));
}

TEST(InputBounds, LiteralLength) {
  EXPECT_TRUE(mentions(refusal("%c = arith.constant " + rep("7", 30000) + " : i64\n"), "numeric literal of 30000 characters"));
  EXPECT_TRUE(mentions(refusal("%c = arith.constant 1." + rep("3", 100000) + " : f64\n"), "numeric literal of 100002 characters"));
  EXPECT_TRUE(mentions(refusal("%c = arith.constant 0x" + rep("F", 1001) + " : f64\n"), "numeric literal"));
  EXPECT_FALSE(refusal("%c = arith.constant " + rep("7", 1000) + " : i64\n"));
  EXPECT_FALSE(refusal("%c = arith.constant 0xFF800000 : f32\n%d = arith.constant -1.0e+38 : f32\n"));
  // An identifier is not a literal, however long.
  EXPECT_FALSE(refusal("func.func @" + rep("a1", 5000) + "() { return }\n"));
}

TEST(InputBounds, OtherBoundsStillHold) {
  EXPECT_TRUE(mentions(refusal("   \n"), "input is empty"));
  EXPECT_TRUE(mentions(refusal("a\xC0\xAF"), "invalid UTF-8"));
}

namespace {
std::string linalg_op(const std::string& op, const std::string& keyword_and_list) {
  return "func.func @f(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {\n  %t = linalg." + op +
         " ins(%x : tensor<2x3xf32>) outs(%y : tensor<3x2xf32>) " + keyword_and_list +
         "\n  return %t : tensor<3x2xf32>\n}\n";
}
}  // namespace

TEST(InputBounds, LinalgPermutationAndDimensionsAreI64Lists) {
  // MLIR 19's linalg.transpose / broadcast / reduce parsers store a null
  // attribute for a malformed list and crash (mlir_fuzz, 2026-12-03:
  // SIGSEGV in Attribute::getContext from NamedAttrList::set). Each of these
  // crashed certify; each must be refused before MLIR parses.
  for (const char* bad : {"permutation = [1, x]", "permutation = [1", "permutation = [1.0, 0]",
                          "permutation = array<i64: 1, 0>", "permutation = [1 : i64, 0]", "permutation =",
                          "dimensions = [99999999999999999999]", "dimensions = [9223372036854775808]",
                          "dimensions = [1,]", "dimensions = [0x]", "dimensions = [1 // c\n"})
    EXPECT_TRUE(mentions(refusal(linalg_op("transpose", bad)), "must be a list of 64-bit integers")) << bad;
  // What MLIR parses: plain, negative, hex, empty, commented, spread over lines.
  for (const char* good : {"permutation = [1, 0]", "permutation=[1,0]", "dimensions = []",
                           "dimensions = [-1, 0x7fffffffffffffff, 9223372036854775807]",
                           "permutation = [1, // the row\n 0]", "// note\n permutation\n =\n [1, 0]"})
    EXPECT_FALSE(refusal(linalg_op("transpose", good))) << good;
  // A keyword not after outs(...), or no `=` after it, is not this list: an
  // attribute dictionary's key is parsed (and checked) by MLIR itself.
  EXPECT_FALSE(refusal("%t = \"linalg.transpose\"(%x, %y) <{permutation = array<i64: 1, 0>}> : (t, t) -> t\n"));
  EXPECT_FALSE(refusal("func.func @f() attributes {dimensions = [1 : i32, x]} { return }\n"));
  EXPECT_FALSE(refusal("%t = linalg.reduce ins(%x : t) outs(%y : t) dimensions\n"));
  EXPECT_FALSE(refusal("%d = \"x.y\"() {a = \") permutation = [x\"} : () -> ()\n"));
}
