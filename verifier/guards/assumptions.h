// Facts the IR cannot show, stated by the user: `--assume KEY=VALUE`
// (certify and check-cert, repeatable) or `ir.assume:` in the repository's
// .fusecert.yaml (KEY: VALUE); the command line beats the file.
// An attribute in the IR stating the same fact takes precedence; a guard
// reads an assumption only through GuardContext::use_assumption (fact for
// an op's attribute), which records every one it used in the candidate's
// report (text, JSON, certificate).
#pragma once

#include <map>
#include <string>

#include "verifier/ir/model.h"

namespace fusecert::guards {

/// The keys and the values each takes:
///   routing          dense | conditional
///   grad_clip_scope  none | layer | global   (a clip applied outside the module)
///   unrouted         dense_zero_grad | skip  (the reference semantics of an unrouted step)
///   buffer_args      distinct                (no two memref arguments of a function share an
///                                             element: the tensor reading of a bufferized one)
/// Returns "" when `kv` ("KEY=VALUE") is one of them and adds it; otherwise
/// the error message (an input error: exit 2). A key given twice with two
/// values is an error too.
std::string add_assumption(const std::string& kv);
/// Where a configuration error is: the file, line and column (1-based).
struct ConfigProblem {
  std::string file;
  unsigned line = 0, col = 0;
  std::string message;  ///< empty: no problem
};
/// Reads the `ir:` section of the repository configuration `path`
/// (.fusecert.yaml): `ir: {assume: {KEY: VALUE, ...}}`, the keys and values
/// of add_assumption. A key already assumed (from --assume) keeps its value:
/// the command line beats the file. An unknown key (at the top level, under
/// `ir:` or under `ir.assume:`), a value not listed, a value that is not a
/// plain string, a key given twice or a file that does not parse is the
/// problem returned, at its line and column (an input error: exit 2);
/// nothing of the file is then in force. Other top-level sections (`docs:`)
/// are their readers'.
ConfigProblem load_assumption_file(const std::string& path);
/// Where the assumption for `key` came from: "--assume", or
/// "FILE:LINE:COL" of its `ir.assume:` entry.
std::string assumption_source(const std::string& key);
/// The assumption for `key`, as a string attribute; nullptr when none.
const ir::Attr* assumed(const std::string& key);
/// Every assumption in force, by key.
const std::map<std::string, ir::Attr>& assumptions();
void clear_assumptions();

}  // namespace fusecert::guards
