// Facts the IR cannot show, stated by the user: `--assume KEY=VALUE`
// (certify and check-cert, repeatable) (.fusecert.yaml `ir.assume:` is not read yet).
// An attribute in the IR stating the same fact takes precedence; a guard
// reads an assumption only through GuardContext::fact, which records every
// one it used in the candidate's report (text, JSON, certificate).
#pragma once

#include <map>
#include <string>

#include "verifier/ir/model.h"

namespace fusecert::guards {

/// The keys and the values each takes:
///   routing          dense | conditional
///   grad_clip_scope  none | layer | global   (a clip applied outside the module)
///   unrouted         dense_zero_grad | skip  (the reference semantics of an unrouted step)
/// Returns "" when `kv` ("KEY=VALUE") is one of them and adds it; otherwise
/// the error message (an input error: exit 2). A key given twice with two
/// values is an error too.
std::string add_assumption(const std::string& kv);
/// The assumption for `key`, as a string attribute; nullptr when none.
const ir::Attr* assumed(const std::string& key);
/// Every assumption in force, by key.
const std::map<std::string, ir::Attr>& assumptions();
void clear_assumptions();

}  // namespace fusecert::guards
