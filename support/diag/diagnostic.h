// The one diagnostic type of fusecert. Every front end (docs, certify,
// check-cert, validate, prove, the shell) reports through it, and one engine
// (render.h) prints it in the compiler's form:
//
//   file:line:col: error: message [rule-id]
//   file:line:col: note: what would make it legal
//
// Severities follow clang/MLIR: error, warning, note (only as a note of
// another diagnostic, or a front end's own note such as MLIR's), remark
// (informational: a candidate's verdict line, a recognised optimizer).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusecert::diag {

enum class Severity { Error, Warning, Note, Remark };

/// "error" | "warning" | "note" | "remark".
const char* to_string(Severity s);
/// The inverse of to_string; nullopt for any other text.
std::optional<Severity> parse_severity(std::string_view s);

/// A source position. `file` is as the front end names it: a path relative
/// to the renderer's base folder (the working directory unless said), or
/// absolute; empty for a diagnostic about no file (a usage error). `line` and
/// `col` are 1-based; 0 means unknown (the whole file, or the whole line).
struct Location {
  std::string file;
  unsigned line = 0, col = 0;
  /// `file:line:col` exactly as stored (no path mapping; for messages and keys).
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

/// A note attached to a diagnostic, at its own location ("producer here").
struct Note {
  Location loc;
  std::string message;
};

struct Diagnostic {
  Location loc;
  Severity severity = Severity::Error;
  std::string rule;     ///< stable rule id: "P2.clip_scope", "claim.overclaim", "input.parse"; may be empty
  std::string message;  ///< one sentence, no trailing newline, no location or rule in it
  std::vector<Note> notes;

  bool is_error() const { return severity == Severity::Error; }
  /// Appends a note; returns *this for chaining.
  Diagnostic& note(Location at, std::string msg) {
    notes.push_back({std::move(at), std::move(msg)});
    return *this;
  }
};

/// Builds a diagnostic.
Diagnostic make(Severity s, Location at, std::string rule, std::string message);
inline Diagnostic error(Location at, std::string rule, std::string message) {
  return make(Severity::Error, std::move(at), std::move(rule), std::move(message));
}
inline Diagnostic warning(Location at, std::string rule, std::string message) {
  return make(Severity::Warning, std::move(at), std::move(rule), std::move(message));
}
inline Diagnostic remark(Location at, std::string rule, std::string message) {
  return make(Severity::Remark, std::move(at), std::move(rule), std::move(message));
}

/// Total order for deterministic output: file, line, col, rule, message.
bool operator<(const Diagnostic& a, const Diagnostic& b);
/// Same location, severity, rule and message (notes not compared).
bool operator==(const Diagnostic& a, const Diagnostic& b);

/// Any diagnostic of severity error.
bool any_error(const std::vector<Diagnostic>& ds);

/// Thrown to abandon a piece of work with a diagnostic (a translator meeting
/// an op it cannot model); caught where the work started, and reported.
struct Fatal {
  Diagnostic diagnostic;
};

}  // namespace fusecert::diag
