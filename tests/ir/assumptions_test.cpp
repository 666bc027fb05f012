// The --assume parser (verifier/guards/assumptions.h): each key takes only
// its listed values; a bad key, a bad value, a missing '=' or one key given
// two values is an error message (a usage error, exit 2, at the command
// line), never a silent default. Expected values: issue #16's "Attributes
// and assumptions" (routing dense|conditional, grad_clip_scope
// none|layer|global, unrouted dense_zero_grad|skip), and buffer_args
// distinct (the tensor reading of a bufferized function).
#include <gtest/gtest.h>

#include <cstdio>

#include "verifier/guards/assumptions.h"

namespace g = fusecert::guards;

class Assume : public ::testing::Test {
 protected:
  void SetUp() override { g::clear_assumptions(); }
  void TearDown() override { g::clear_assumptions(); }
};

TEST_F(Assume, EveryListedValueIsAccepted) {
  for (const char* kv : {"routing=dense", "grad_clip_scope=layer", "unrouted=skip", "buffer_args=distinct"})
    EXPECT_EQ(g::add_assumption(kv), "") << kv;
  ASSERT_NE(g::assumed("routing"), nullptr);
  EXPECT_EQ(g::assumed("routing")->text, "dense");
  EXPECT_EQ(g::assumed("grad_clip_scope")->text, "layer");
  EXPECT_EQ(g::assumed("unrouted")->text, "skip");
  EXPECT_EQ(g::assumed("buffer_args")->text, "distinct");
  EXPECT_EQ(g::assumptions().size(), 4u);
}

// buffer_args takes one value, distinct (no two memref arguments share an
// element); "may alias" is no assumption: it is the default nothing assumes.
TEST_F(Assume, BufferArgsTakesOnlyDistinct) {
  const std::string e = g::add_assumption("buffer_args=aliased");
  EXPECT_NE(e.find("unknown value 'aliased'; one of distinct"), std::string::npos) << e;
  EXPECT_EQ(g::assumed("buffer_args"), nullptr);
}

TEST_F(Assume, UnknownKeyIsAnErrorNamingTheKeys) {
  const std::string e = g::add_assumption("routng=dense");
  EXPECT_NE(e.find("unknown key 'routng'"), std::string::npos) << e;
  EXPECT_NE(e.find("routing (dense | conditional)"), std::string::npos) << e;
  EXPECT_EQ(g::assumed("routng"), nullptr);
  EXPECT_TRUE(g::assumptions().empty());
}

TEST_F(Assume, UnknownValueIsAnErrorNamingTheValues) {
  const std::string e = g::add_assumption("unrouted=zero");
  EXPECT_NE(e.find("unknown value 'zero'"), std::string::npos) << e;
  EXPECT_NE(e.find("dense_zero_grad | skip"), std::string::npos) << e;
  EXPECT_EQ(g::assumed("unrouted"), nullptr);
  // Case and blanks are not folded: the value must be one of the spellings.
  EXPECT_NE(g::add_assumption("routing=Dense"), "");
  EXPECT_NE(g::add_assumption("routing= dense"), "");
  EXPECT_NE(g::add_assumption("routing="), "");
  EXPECT_TRUE(g::assumptions().empty());
}

TEST_F(Assume, MissingEqualsIsAnError) {
  EXPECT_NE(g::add_assumption("routing").find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(g::add_assumption("").find("expected KEY=VALUE"), std::string::npos);
  EXPECT_TRUE(g::assumptions().empty());
}

TEST_F(Assume, OneKeyTwoValuesIsAnErrorAndKeepsTheFirst) {
  ASSERT_EQ(g::add_assumption("grad_clip_scope=none"), "");
  const std::string e = g::add_assumption("grad_clip_scope=global");
  EXPECT_NE(e.find("given twice"), std::string::npos) << e;
  EXPECT_EQ(g::assumed("grad_clip_scope")->text, "none");
  // The same value twice says one thing: accepted.
  EXPECT_EQ(g::add_assumption("grad_clip_scope=none"), "");
}

TEST_F(Assume, ClearForgetsEverything) {
  ASSERT_EQ(g::add_assumption("routing=conditional"), "");
  g::clear_assumptions();
  EXPECT_EQ(g::assumed("routing"), nullptr);
  EXPECT_EQ(g::add_assumption("routing=dense"), "");
}

// `ir.assume:` in .fusecert.yaml (issue #16 acceptance R9: the section was ignored): read for the keys
// --assume did not give (the command line beats the file); a bad key or value is a problem at its
// line and column, and nothing of the file is then in force.
namespace {
std::string write_config(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}
}  // namespace

TEST_F(Assume, ConfigFileFillsWhatTheCommandLineDidNotGive) {
  ASSERT_EQ(g::add_assumption("routing=conditional"), "");
  const std::string p = write_config("ok.yaml", "docs: {}\nir:\n  assume:\n    routing: dense\n    grad_clip_scope: none\n");
  EXPECT_EQ(g::load_assumption_file(p).message, "");
  EXPECT_EQ(g::assumed("routing")->text, "conditional");  // --assume beats the file
  EXPECT_EQ(g::assumption_source("routing"), "--assume");
  EXPECT_EQ(g::assumed("grad_clip_scope")->text, "none");
  EXPECT_EQ(g::assumption_source("grad_clip_scope"), p + ":5:5");
}

TEST_F(Assume, ConfigFileProblemsAreLocatedAndApplyNothing) {
  const auto bad_key = g::load_assumption_file(write_config("k.yaml", "ir:\n  assume:\n    grad_clip_scope: none\n    routng: dense\n"));
  EXPECT_NE(bad_key.message.find("unknown key 'routng'"), std::string::npos) << bad_key.message;
  EXPECT_EQ(bad_key.line, 4u);
  EXPECT_EQ(bad_key.col, 5u);
  EXPECT_TRUE(g::assumptions().empty());
  const auto bad_value = g::load_assumption_file(write_config("v.yaml", "ir:\n  assume:\n    unrouted: zero\n"));
  EXPECT_NE(bad_value.message.find("unknown value 'zero'"), std::string::npos) << bad_value.message;
  EXPECT_EQ(bad_value.line, 3u);
  EXPECT_NE(g::load_assumption_file(write_config("t.yaml", "dosc: {}\n")).message.find("unknown top-level key"),
            std::string::npos);
  EXPECT_NE(g::load_assumption_file(write_config("d.yaml", "ir:\n  assume:\n    routing: dense\n    routing: dense\n"))
                .message.find("duplicate key 'routing'"),
            std::string::npos);
  EXPECT_TRUE(g::assumptions().empty());
}
