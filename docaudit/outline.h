// The outline of a Markdown body: what the rules look at, extracted from the
// cmark-gfm tree in one non-recursive walk (cmark_iter). Prose is the text of
// paragraphs, headings and table cells only; code blocks, code spans and HTML
// (comments included) are never prose. Positions are 1-based file lines and
// byte columns from cmark's source positions.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace fusecert::docaudit {

struct Pos {
  int line = 0, col = 0;
};

struct Heading {
  int level = 1;
  std::string text;   ///< plain text (code spans included, markup removed)
  std::string slug;   ///< GitHub anchor, numbered on duplicates ("x", "x-1")
  Pos pos;
};

/// A link or image destination.
struct Link {
  std::string url;
  std::string text;
  Pos pos;
  int section = -1;   ///< index of the enclosing heading; -1 before the first
};

struct CodeSpan {
  std::string text;
  Pos pos;
  int section = -1;
  long prose = -1;          ///< index of the prose block it sits in (-1: none)
  std::size_t offset = 0;   ///< byte offset of the span in that block's text
};

/// An HTML comment (block or inline), its body between `<!--` and `-->`.
struct Comment {
  std::string body;
  Pos pos;
  int end_line = 0;
};

/// The prose of one block with a map from byte offsets back to positions.
struct Prose {
  std::string text;
  struct Anchor { std::size_t offset; Pos pos; };
  std::vector<Anchor> anchors;  ///< one per text segment, ascending offsets
  int section = -1;
  bool paragraph = false;  ///< a paragraph's prose (not a heading's or a table cell's)
  /// File position of byte `offset` of `text`.
  Pos locate(std::size_t offset) const;
};

struct TableCell {
  std::string text;
  Pos pos;
};

struct Table {
  Pos pos;
  std::vector<TableCell> header;
  std::vector<std::vector<TableCell>> rows;
  int section = -1;
  std::string before;  ///< plain text of the paragraph right before the table
  std::string after;   ///< plain text of the paragraph right after it (a caption)
};

/// A paragraph that opens with a bold label ("**Out of scope:** ...").
struct BoldLabel {
  std::string label;
  Pos pos;
  int section = -1;
};

struct Outline {
  std::vector<Heading> headings;
  std::vector<Link> links;
  std::vector<CodeSpan> code_spans;
  std::vector<Comment> comments;
  std::vector<Prose> prose;
  std::vector<Table> tables;
  std::vector<BoldLabel> bold_labels;

  /// True when section index `s` lies under heading `h` (h itself or one of
  /// its subsections).
  bool within(int s, int h) const;
  /// Indices of headings whose normalized text begins with one of `names`.
  std::vector<int> find_sections(const std::vector<std::string>& names) const;
  bool has_slug(std::string_view slug) const;
};

/// Parses `body` with cmark-gfm (GFM core extensions registered; tables on;
/// source positions on). `body` must be valid UTF-8; lines before
/// `first_line` are taken as blank so positions match the file.
Outline parse_outline(std::string_view body, int first_line);

}  // namespace fusecert::docaudit
