#include <gtest/gtest.h>

#include "docaudit/outline.h"
#include "docaudit/suppression.h"
#include "tests/docaudit/default_rules.h"

using namespace fusecert::docaudit;

namespace {
fusecert::diag::Diagnostic finding(int line, const std::string& rule) {
  return fusecert::docaudit::finding("d.md", line, 1, Severity::Warning, rule, "m");
}
}  // namespace

TEST(Suppression, NextLineWithReasonSuppressesOnlyThatLineAndRule) {
  Outline o = parse_outline("<!-- docaudit-disable-next-line claim.overclaim: quoting -->\nline two\n\nline four\n", 1);
  std::vector<fusecert::diag::Diagnostic> problems;
  auto sups = read_suppressions(o.comments, fusecert::docaudit::test::default_rules(), "d.md", problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(sups.size(), 1u);
  EXPECT_EQ(sups[0].target_line, 2);
  std::vector<fusecert::diag::Diagnostic> f = {finding(2, "claim.overclaim"), finding(4, "claim.overclaim"), finding(2, "anchor.broken-link")};
  apply_suppressions(sups, f, fusecert::docaudit::test::default_rules(), "d.md");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].loc.line, 4u);
  EXPECT_EQ(f[1].rule, "anchor.broken-link");
}

TEST(Suppression, FileScopeAndSeveralIds) {
  Outline o = parse_outline("text\n\n<!-- docaudit-disable-file anchor.broken-path, anchor.broken-link: partial tree -->\n", 1);
  std::vector<fusecert::diag::Diagnostic> problems;
  auto sups = read_suppressions(o.comments, fusecert::docaudit::test::default_rules(), "d.md", problems);
  ASSERT_EQ(sups.size(), 1u);
  std::vector<fusecert::diag::Diagnostic> f = {finding(1, "anchor.broken-path"), finding(9, "anchor.broken-link")};
  apply_suppressions(sups, f, fusecert::docaudit::test::default_rules(), "d.md");
  EXPECT_TRUE(f.empty());
}

TEST(Suppression, MissingReasonUnknownRuleAndUnused) {
  Outline o = parse_outline(
      "<!-- docaudit-disable-next-line claim.overclaim -->\nx\n\n"
      "<!-- docaudit-disable-next-line claim.overclaimz: why -->\ny\n\n"
      "<!-- docaudit-disable-next-line claim.overclaim:   -->\nz\n\n"
      "<!-- docaudit-disable-next-line anchor.broken-link: why -->\nw\n",
      1);
  std::vector<fusecert::diag::Diagnostic> problems;
  auto sups = read_suppressions(o.comments, fusecert::docaudit::test::default_rules(), "d.md", problems);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].rule, "suppress.missing-reason");
  EXPECT_EQ(problems[1].rule, "suppress.unknown-rule");
  EXPECT_EQ(problems[2].rule, "suppress.missing-reason");
  ASSERT_EQ(sups.size(), 1u);
  std::vector<fusecert::diag::Diagnostic> f = {finding(2, "claim.overclaim")};
  apply_suppressions(sups, f, fusecert::docaudit::test::default_rules(), "d.md");
  ASSERT_EQ(f.size(), 2u);  // not suppressed (no valid directive for it) + the unused one
  EXPECT_EQ(f[1].rule, "suppress.unused");
}

TEST(Suppression, DirectivesInCodeAreIgnored) {
  Outline o = parse_outline("```\n<!-- docaudit-disable-file claim.overclaim: no -->\n```\n", 1);
  std::vector<fusecert::diag::Diagnostic> problems;
  EXPECT_TRUE(read_suppressions(o.comments, fusecert::docaudit::test::default_rules(), "d.md", problems).empty());
}

TEST(Suppression, MisspeltDirectivesAreFindings) {
  // Each of these used to be ignored silently, suppressing nothing.
  Outline o = parse_outline(
      "<!-- docaudit-disable-nextline claim.overclaim: why -->\nx\n\n"
      "<!-- docaudit-disable -->\nx\n\n"
      "<!-- docaudit-disable-line claim.overclaim: why -->\nx\n\n"
      "<!-- DOCAUDIT-DISABLE-NEXT-LINE claim.overclaim: why -->\nx\n\n"
      "<!-- docaudit-disable-next-lines claim.overclaim: why -->\nx\n\n"
      "<!-- a note that mentions docaudit-disable-file -->\nx\n\n"
      "<!-- docaudit-disable-file:claim.overclaim why -->\nx\n\n"
      "<!-- docaudit-disable-next-line claim.overclaim: why -->\nx\n",
      1);
  std::vector<fusecert::diag::Diagnostic> problems;
  auto sups = read_suppressions(o.comments, fusecert::docaudit::test::default_rules(), "d.md", problems);
  ASSERT_EQ(sups.size(), 1u);
  EXPECT_EQ(sups[0].target_line, 23);
  ASSERT_EQ(problems.size(), 6u);
  const int lines[] = {1, 4, 7, 10, 13};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(problems[i].rule, "suppress.malformed") << i;
    EXPECT_EQ(static_cast<int>(problems[i].loc.line), lines[i]) << i;
  }
  EXPECT_NE(problems[0].message.find("`docaudit-disable-nextline`"), std::string::npos) << problems[0].message;
  EXPECT_NE(problems[3].message.find("`DOCAUDIT-DISABLE-NEXT-LINE`"), std::string::npos);
  // `docaudit-disable-file:` is the directive, naming no rule id before the colon.
  EXPECT_EQ(problems[5].rule, "suppress.unknown-rule");
}
