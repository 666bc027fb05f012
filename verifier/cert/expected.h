// `certify --verify-diagnostics`, as `mlir-opt -verify-diagnostics` reads
// MLIR's invalid.mlir tests: comments `// expected-error {{text}}` (also
// -warning, -remark, -note), optionally `@+N`, `@-N`, `@above`, `@below`,
// name the diagnostics a module must produce. Every expected diagnostic must
// be produced on its line with its severity and a message containing the
// text, and every error produced must be expected.
#pragma once
#include <string>
#include <vector>

#include "verifier/cert/certify.h"

namespace fusecert::cert {

struct Expectation {
  std::string severity;   ///< error | warning | remark | note, or "malformed" (no {{text}})
  std::string kind;       ///< as written after `expected-`
  unsigned line = 0;      ///< the line the diagnostic must be on (in the file)
  unsigned written_at = 0;///< the comment's line
  std::string text;       ///< must occur in the message
};

/// The expectations in `text` (a module or split starting at `first_line`
/// of its file). Malformed ones (no `{{...}}`) are returned with severity
/// "malformed".
std::vector<Expectation> parse_expectations(const std::string& text, unsigned first_line);

/// What does not match, one error each at its line, rule `verify.mismatch`
/// (as mlir-opt -verify-diagnostics: `expected error "…" was not produced`,
/// `unexpected error: …`); empty = all expectations met and no unexpected error.
std::vector<diag::Diagnostic> verify_diagnostics(const std::vector<Expectation>& expected, const InputReport& r);

}  // namespace fusecert::cert
