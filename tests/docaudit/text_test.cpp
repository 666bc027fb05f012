#include <gtest/gtest.h>

#include "docaudit/text.h"

using namespace fusecert::docaudit;

TEST(Text, GithubSlugMatchesGitHubAnchors) {
  EXPECT_EQ(github_slug("Central development plan — 2026-08-17"), "central-development-plan--2026-08-17");
  EXPECT_EQ(github_slug("2.1 P1 — the legality predicate is structural"), "21-p1--the-legality-predicate-is-structural");
  EXPECT_EQ(github_slug("W3 — `matmul → optimizer` fusion (P0, the FORGE instance)"),
            "w3--matmul--optimizer-fusion-p0-the-forge-instance");
  EXPECT_EQ(github_slug("Über Café"), "über-café");
  EXPECT_EQ(github_slug("snake_case and CAPS"), "snake_case-and-caps");
}

TEST(Text, FindTermIsWordBoundedAndCaseInsensitive) {
  EXPECT_NE(find_term("The backend is Production-Ready now", "production-ready"), std::string::npos);
  EXPECT_EQ(find_term("reproduction-ready", "production-ready"), std::string::npos);
  EXPECT_EQ(find_term("items", "ms"), std::string::npos);
  EXPECT_EQ(find_term("Latency (ms)", "ms"), 9u);
  EXPECT_NE(find_term("TFLOP/s", "TFLOP/s"), std::string::npos);
  EXPECT_EQ(find_term("", "x"), std::string::npos);
}

TEST(Text, NormalizeAndPrefixWords) {
  EXPECT_EQ(normalize_words("**False,   provably**"), "false, provably");
  EXPECT_EQ(normalize_words("Affine `A` only"), "affine a only");
  EXPECT_TRUE(starts_with_word("no", "no"));
  EXPECT_TRUE(starts_with_word("no — see below", "no"));
  EXPECT_FALSE(starts_with_word("nothing", "no"));
  EXPECT_TRUE(starts_with_word("false, provably", "false"));
}

TEST(Text, Utf8Validation) {
  EXPECT_FALSE(find_invalid_utf8("plain ASCII\nand ünïcödé — ok 🙂"));
  auto bad = find_invalid_utf8("line one\nCaf\xe9 au lait");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->line, 2);
  EXPECT_EQ(bad->col, 4);
  EXPECT_TRUE(find_invalid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_TRUE(find_invalid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_TRUE(find_invalid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_TRUE(find_invalid_utf8("trailing \xE2\x82"));  // truncated
}

TEST(Text, IsoDates) {
  EXPECT_TRUE(parse_iso_date("2026-08-18"));
  EXPECT_TRUE(parse_iso_date("2024-02-29"));
  EXPECT_FALSE(parse_iso_date("2026-02-29"));
  EXPECT_FALSE(parse_iso_date("2026-8-18"));
  EXPECT_FALSE(parse_iso_date("2026-13-01"));
  EXPECT_FALSE(parse_iso_date("yesterday"));
}
