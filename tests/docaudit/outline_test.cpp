#include <gtest/gtest.h>

#include "docaudit/outline.h"
#include "docaudit/parse_arena.h"

#include <thread>

using namespace fusecert::docaudit;

TEST(Outline, HeadingsSlugsAndDuplicates) {
  Outline o = parse_outline("# A title\n\n## Part — one\n\n## Part — one\n", 1);
  ASSERT_EQ(o.headings.size(), 3u);
  EXPECT_EQ(o.headings[1].slug, "part--one");
  EXPECT_EQ(o.headings[2].slug, "part--one-1");
  EXPECT_EQ(o.headings[1].pos.line, 3);
  EXPECT_TRUE(o.within(2, 0));
  EXPECT_FALSE(o.within(2, 1));
}

TEST(Outline, CodeAndCommentsAreNotProse) {
  Outline o = parse_outline(
      "Some `inline production-ready` text.\n\n```\nproduction-ready in a block\n```\n\n"
      "<!-- production-ready in a comment -->\n\nplain production-ready\n",
      1);
  std::string all;
  for (const auto& p : o.prose) all += p.text + "\n";
  EXPECT_EQ(all.find("production-ready in a block"), std::string::npos);
  EXPECT_EQ(all.find("in a comment"), std::string::npos);
  EXPECT_EQ(all.find("inline production-ready"), std::string::npos);
  EXPECT_NE(all.find("plain production-ready"), std::string::npos);
  ASSERT_EQ(o.code_spans.size(), 1u);
  EXPECT_EQ(o.code_spans[0].text, "inline production-ready");
  ASSERT_EQ(o.comments.size(), 1u);
  EXPECT_EQ(o.comments[0].pos.line, 7);
}

TEST(Outline, ProsePositionsMapBackToTheFile) {
  // Body starts at file line 5 (after a 4-line frontmatter).
  Outline o = parse_outline("Intro line\nsecond line with target word\n", 5);
  ASSERT_FALSE(o.prose.empty());
  const Prose& p = o.prose[0];
  const std::size_t at = p.text.find("target");
  ASSERT_NE(at, std::string::npos);
  Pos pos = p.locate(at);
  EXPECT_EQ(pos.line, 6);
  EXPECT_EQ(pos.col, 18);
}

TEST(Outline, GfmTablesWithContext) {
  Outline o = parse_outline(
      "## Timings\n\nMeasured on an H200.\n\n| Kernel | Time (ms) |\n|---|---:|\n| fused | **1.2** |\n| plain | 2.0 |\n", 1);
  ASSERT_EQ(o.tables.size(), 1u);
  const Table& t = o.tables[0];
  ASSERT_EQ(t.header.size(), 2u);
  EXPECT_EQ(t.header[1].text, "Time (ms)");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][1].text, "1.2");
  EXPECT_EQ(t.rows[1][0].pos.line, 8);
  EXPECT_EQ(t.before, "Measured on an H200.");
  EXPECT_EQ(t.section, 0);
}

TEST(Outline, TableCellPositionsSkipThePadding) {
  // A finding on a cell points at its text, not at the blank after the pipe.
  Outline o = parse_outline("| Id | Verdict |\n|---|---|\n|   P10 | Holds |\n| P11|\tNo |\n|x|  |\n", 1);
  ASSERT_EQ(o.tables.size(), 1u);
  const Table& t = o.tables[0];
  EXPECT_EQ(t.header[0].pos.col, 3);
  EXPECT_EQ(t.header[1].pos.col, 8);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][0].text, "P10");
  EXPECT_EQ(t.rows[0][0].pos.line, 3);
  EXPECT_EQ(t.rows[0][0].pos.col, 5);
  EXPECT_EQ(t.rows[0][1].pos.col, 11);
  EXPECT_EQ(t.rows[1][0].pos.col, 3);
  EXPECT_EQ(t.rows[1][1].pos.col, 8);
  EXPECT_EQ(t.rows[2][0].pos.col, 2);
}

TEST(Outline, LinksAndBoldLabels) {
  Outline o = parse_outline("**Out of scope:** memory numbers. See [x](a/b.md#c) and ![img](i.png).\n", 1);
  ASSERT_EQ(o.links.size(), 2u);
  EXPECT_EQ(o.links[0].url, "a/b.md#c");
  EXPECT_EQ(o.links[0].text, "x");
  EXPECT_EQ(o.links[1].url, "i.png");
  ASSERT_EQ(o.bold_labels.size(), 1u);
  EXPECT_EQ(o.bold_labels[0].label, "Out of scope:");
}

TEST(Outline, DeepNestingDoesNotOverflow) {
  std::string deep(50000, '>');
  deep += " text\n";
  Outline o = parse_outline(deep, 1);
  EXPECT_FALSE(o.prose.empty());
}

namespace {
std::string describe(const Outline& o) {
  std::string out;
  for (const auto& h : o.headings) out += "h" + std::to_string(h.level) + ":" + h.slug + "@" + std::to_string(h.pos.line) + "\n";
  for (const auto& l : o.links) out += "l:" + l.url + "|" + l.text + "\n";
  for (const auto& c : o.code_spans) out += "c:" + c.text + "@" + std::to_string(c.pos.line) + ":" + std::to_string(c.pos.col) + "\n";
  for (const auto& t : o.tables) {
    out += "t:" + t.before + "|" + t.after + "\n";
    for (const auto& r : t.rows)
      for (const auto& c : r) out += "  " + c.text + "@" + std::to_string(c.pos.col) + "\n";
  }
  for (const auto& p : o.prose) out += "p:" + p.text + "\n";
  return out;
}
}  // namespace

// cmark parses into a per-thread arena (parse_arena.h), released after each
// parse: a document parsed after a large one reads exactly as it does alone,
// on any thread, and the arena keeps at most one 256 KiB block between parses.
TEST(Outline, TheParseArenaIsReleasedAndReusedWithoutChangingTheOutline) {
  const std::string small =
      "# Title\n\nSee [the plan](PLAN.md#a) and `src/x.cc`.\n\n| Kernel | Time (ms) |\n|---|---:|\n| k0 | 1.5 |\n\n"
      "Measured on MI300X.\n\n## A\n\n- item with `code` and **bold**\n";
  const std::string expected = describe(parse_outline(small, 1));
  std::string large;  // ~4 MB: large cells, long paragraphs, many nodes
  for (int i = 0; i < 20000; ++i)
    large += "Paragraph " + std::to_string(i) + " with `span` and [a link](x" + std::to_string(i) + ".md) " +
             std::string(100, 'w') + "\n\n| a | b |\n|---|---|\n| " + std::string(40, 'c') + " | d |\n\n";
  const Outline big = parse_outline(large, 1);
  EXPECT_EQ(big.links.size(), 20000u);
  EXPECT_EQ(big.tables.size(), 20000u);
  EXPECT_EQ(big.links.back().url, "x19999.md");
  EXPECT_LE(ParseArena::held_bytes(), 256u * 1024u);
  EXPECT_EQ(describe(parse_outline(small, 1)), expected);
  std::string on_threads[2];
  std::thread a([&] { on_threads[0] = describe(parse_outline(small, 1)); });
  std::thread b([&] { parse_outline(large, 1); on_threads[1] = describe(parse_outline(small, 1)); });
  a.join();
  b.join();
  EXPECT_EQ(on_threads[0], expected);
  EXPECT_EQ(on_threads[1], expected);
}
