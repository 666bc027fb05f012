#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

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

// find_term skips to candidates with memchr; it must answer as the plain
// definition does: the first offset where the term matches case-insensitively
// (ASCII) with non-word bytes (or the ends) around it.
TEST(Text, FindTermAgreesWithItsDefinitionOnGeneratedText) {
  auto word = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  auto low = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  auto reference = [&](const std::string& text, const std::string& term) -> std::size_t {
    if (term.empty() || text.size() < term.size()) return std::string::npos;
    for (std::size_t i = 0; i + term.size() <= text.size(); ++i) {
      bool eq = true;
      for (std::size_t k = 0; k < term.size() && eq; ++k) eq = low(text[i + k]) == low(term[k]);
      if (!eq) continue;
      if (word(term.front()) && i > 0 && word(text[i - 1])) continue;
      const std::size_t end = i + term.size();
      if (word(term.back()) && end < text.size() && word(text[end])) continue;
      return i;
    }
    return std::string::npos;
  };
  const std::string alphabet = "aAbB-/ .\xc3\xa9" "1";
  const std::vector<std::string> terms = {"a", "ab", "AB", "b-a", "-", "/b", "a b", "\xc3\xa9", "1a", "ba."};
  unsigned seed = 12345;
  auto rnd = [&] { return (seed = seed * 1103515245u + 12345u) >> 16; };
  for (int n = 0; n < 4000; ++n) {
    std::string text;
    for (unsigned len = rnd() % 24; len > 0; --len) text.push_back(alphabet[rnd() % alphabet.size()]);
    for (const auto& term : terms) EXPECT_EQ(find_term(text, term), reference(text, term)) << '"' << text << "\" / " << term;
  }
}
