// The diagnostic engine: the one place that turns a Diagnostic into text
// (and JSON). Every subcommand prints through it, so every tool that reads
// gcc/clang output (problem matchers, editors, `grep ': error: '`) reads
// fusecert's:
//
//   path:line:col: severity: message [rule-id]
//   path:line:col: note: message
//
// `path:line` when the column is unknown, `path` when the line is, and the
// tool's name (`fusecert`) for a diagnostic about no file. Paths print
// relative to the working directory when they lie under it (as compilers
// print them); a path outside it prints as given. The rule id is left off
// when a diagnostic has none. Format of the per-candidate verdict line, which
// is a remark through this same engine: docs/diagnostics.md.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/diag/diagnostic.h"

namespace fusecert::diag {

class TextRenderer {
 public:
  /// `base`: the folder that relative paths in locations are relative to
  /// (docs names files relative to the repository root); empty = the
  /// working directory. `tool` prefixes diagnostics that name no file
  /// (empty: such a line starts with its severity, as the shell prints).
  explicit TextRenderer(std::filesystem::path base = {}, std::string tool = "fusecert");

  /// `file` as printed: relative to the working directory when under it.
  std::string path(const std::string& file) const;
  /// `path:line:col`, `path:line`, `path`, or the tool's name.
  std::string location(const Location& at) const;
  /// The diagnostic line and one line per note, each ending in '\n'.
  std::string render(const Diagnostic& d) const;
  std::string render(const std::vector<Diagnostic>& ds) const;
  /// `text` with each path in it that is absolute or not lexically normal
  /// printed as path() prints it (a message's words, `:LINE:COL` kept).
  std::string paths_in(const std::string& text) const;

 private:
  std::filesystem::path base_, cwd_;
  std::string tool_;
};

/// One diagnostic in text, with the default renderer (working directory).
std::string render_text(const Diagnostic& d);

/// The JSON form: {"severity", "rule", "message", "location": {"file",
/// "line", "col"}, "notes": [{"location", "message"}]}. Paths as stored
/// (JSON and certificates must not depend on the working directory).
nlohmann::json to_json(const Location& at);
nlohmann::json to_json(const Diagnostic& d);

}  // namespace fusecert::diag
