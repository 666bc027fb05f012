#include <gtest/gtest.h>

#include "docaudit/frontmatter.h"

using namespace fusecert::docaudit;

TEST(Frontmatter, ParsesMappingWithFileLines) {
  Frontmatter fm = parse_frontmatter("---\nlast_updated: 2026-08-18\naudit_role: plan\nplan_state: open\n---\n\n# T\n");
  ASSERT_TRUE(fm.present);
  ASSERT_TRUE(fm.closed);
  EXPECT_TRUE(fm.error.empty());
  EXPECT_EQ(fm.body_first_line, 6);
  auto role = fm.get("audit_role");
  ASSERT_TRUE(role);
  EXPECT_EQ(role->text, "plan");
  EXPECT_EQ(role->line, 3);
  EXPECT_EQ(role->col, 13);
  EXPECT_FALSE(fm.get("missing"));
}

TEST(Frontmatter, AbsentWhenNoOpeningDelimiter) {
  Frontmatter fm = parse_frontmatter("# Title\n\n---\nnot: frontmatter\n---\n");
  EXPECT_FALSE(fm.present);
}

TEST(Frontmatter, BrokenYamlIsAnErrorWithALine) {
  Frontmatter fm = parse_frontmatter("---\nlast_updated: 2026-08-18\naudit_role: [plan\n---\nbody\n");
  EXPECT_FALSE(fm.error.empty());
  EXPECT_GE(fm.error_line, 2);
}

TEST(Frontmatter, NonMappingAndUnclosedAreErrors) {
  EXPECT_NE(parse_frontmatter("---\n- a\n- b\n---\n").error.find("not a mapping"), std::string::npos);
  EXPECT_NE(parse_frontmatter("---\njust a string\n---\n").error.find("not a mapping"), std::string::npos);
  EXPECT_NE(parse_frontmatter("---\n---\n").error.find("empty"), std::string::npos);
  Frontmatter open = parse_frontmatter("---\na: 1\n\n# body\n");
  EXPECT_FALSE(open.closed);
  EXPECT_NE(open.error.find("never closed"), std::string::npos);
}

TEST(Frontmatter, DeeplyNestedYamlDoesNotCrash) {
  std::string deep = "---\na: " + std::string(100000, '[') + "\n---\n";
  Frontmatter fm = parse_frontmatter(deep);
  EXPECT_FALSE(fm.error.empty());
}

TEST(Frontmatter, KeyWithoutValueIsPresentButNotAScalar) {
  Frontmatter fm = parse_frontmatter("---\nlast_updated:\naudit_role: plan\n---\n");
  auto v = fm.get("last_updated");
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->scalar);
  EXPECT_EQ(v->text, "");
  EXPECT_EQ(v->line, 2);
}

TEST(Frontmatter, DuplicateKeysAreRecordedAndTheLastValueIsRead) {
  // yaml-cpp kept both and data[key] answered the first; YAML readers and
  // the user's gate take the last. The duplicate is recorded (a finding).
  Frontmatter fm = parse_frontmatter("---\naudit_role: plan\nowner:\n  a: 1\n  a: 2\naudit_role: reference\n---\n# T\n");
  ASSERT_TRUE(fm.error.empty()) << fm.error;
  ASSERT_EQ(fm.duplicates.size(), 2u);
  EXPECT_EQ(fm.duplicates[0].key, "a");
  EXPECT_EQ(fm.duplicates[0].line, 5);
  EXPECT_EQ(fm.duplicates[0].col, 3);
  EXPECT_EQ(fm.duplicates[0].first_line, 4);
  EXPECT_EQ(fm.duplicates[1].key, "audit_role");
  EXPECT_EQ(fm.duplicates[1].line, 6);
  EXPECT_EQ(fm.duplicates[1].first_line, 2);
  auto role = fm.get("audit_role");
  ASSERT_TRUE(role);
  EXPECT_EQ(role->text, "reference");
  EXPECT_EQ(role->line, 6);
  EXPECT_TRUE(parse_frontmatter("---\na: 1\nb: {a: 2}\n---\n").duplicates.empty());
}
