// The diagnostics of a file that cannot be read or written, and of an input
// error met at a place in a file, as every front end reports them
// (docs/diagnostics.md "The text form"); the CLI prints them through
// cli::fail_unreadable / fail_unwritable / fail_located, so none is ever
// formatted by hand:
//
//   in/x.mlir: error: cannot read: no such file [input.unreadable]
//   out/a.cert.json: error: cannot write: … [output.unwritable]
//   rules/propositions.yaml:12:5: error: 'expected' must be … [input.config]
#pragma once
#include <string>

#include "support/diag/diagnostic.h"

namespace fusecert::diag {

/// A file that cannot be read (missing, a folder, no permission, a FIFO):
/// `PATH: error: cannot read: CAUSE [input.unreadable]`. `cause` may be an
/// error text that starts with the path (support::FileError's what()): that
/// prefix, and a leading "cannot open: ", are dropped.
Diagnostic unreadable(const std::string& file, std::string cause);
/// A file that cannot be written: `PATH: error: cannot write: CAUSE [output.unwritable]`.
Diagnostic unwritable(const std::string& file, std::string cause);
/// The same from an error text alone, `PATH: CAUSE` (support::FileError's
/// what(), which names the file it failed on: a temporary or a folder may be
/// that file rather than the one asked for). Text with no `PATH: ` prefix is
/// the cause, at `fallback`.
Diagnostic unwritable_cause(const std::string& what, const std::string& fallback);

/// An error at `at` (its file must be named: an input error is about a
/// file): `FILE:LINE:COL: error: MESSAGE [RULE]`, `FILE: error: …` when the
/// line is unknown. Each message line becomes its own line: a message with
/// newlines keeps its first line and the rest become notes at `at`.
Diagnostic located(Location at, std::string rule, std::string message);
/// The same from an error text a library wrote that names `file` itself:
/// `FILE:LINE:COL: [error: ]MESSAGE`, `FILE:LINE: …` or `FILE: …` become the
/// location and the message; text that does not start with `FILE:` is the
/// message, at `file`.
Diagnostic located_text(const std::string& file, std::string rule, const std::string& text);

}  // namespace fusecert::diag
