// The diagnostics of a file that cannot be read or written, as every front
// end reports them (docs/diagnostics.md "The text form"):
//
//   in/x.mlir: error: cannot read: no such file [input.unreadable]
//   out/a.cert.json: error: cannot write: … [output.unwritable]
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

}  // namespace fusecert::diag
