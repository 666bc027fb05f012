// YAML frontmatter: the `---` block at the top of a Markdown document, split
// off the body by its delimiter lines and parsed with yaml-cpp.
#pragma once
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusecert::docaudit {

struct Frontmatter {
  bool present = false;      ///< the document opens with a `---` line
  bool closed = false;       ///< ... and a closing `---` / `...` line follows
  int body_first_line = 1;   ///< 1-based line where the Markdown body starts
  std::size_t body_offset = 0;  ///< byte offset of that line
  YAML::Node data;           ///< the parsed mapping (valid only when `error` is empty)
  std::string error;         ///< YAML error, or "not a mapping"; empty when fine
  int error_line = 1;        ///< 1-based line of the error in the file
  int error_col = 1;
  /// A key given twice in one mapping (at any depth): YAML parsers disagree
  /// on which value wins, so it is an error, never a silent choice. Lines
  /// and columns are the file's.
  struct Duplicate { std::string key; int line = 1, col = 1, first_line = 1; };
  std::vector<Duplicate> duplicates;

  /// Scalar value of a top-level key and its 1-based file line, or nullopt.
  /// A duplicated key yields its last value (what YAML parsers and the
  /// user's own gate take); the duplicate itself is reported.
  struct Value { std::string text; int line = 1; int col = 1; bool scalar = true; };
  std::optional<Value> get(const std::string& key) const;
  bool has(const std::string& key) const;
};

/// Splits and parses the frontmatter of `text` (whole file, valid UTF-8).
/// Never throws: a YAML error or a non-mapping is recorded in `error`.
Frontmatter parse_frontmatter(std::string_view text);

}  // namespace fusecert::docaudit
