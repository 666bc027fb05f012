// The attribute boundary (issue #15): an op a dialect table lists is read
// only through its entry. Every attribute key must be one the entry names
// and its value of a kind the entry allows; anything else (a misspelt key,
// `split_k = "4"`, `split_k = 4.0 : f32`) is a diagnostic here, before any
// guard reads the op, never a value a guard interprets its own way.
#pragma once
#include <string>
#include <vector>

#include "support/nearest_key.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"

namespace fusecert::ir {

/// One diagnostic per bad attribute of `op` against `spec`: input.attr.kind
/// for a value of a kind the entry does not allow (also inside a
/// dictionary), input.attr.key for a key it does not name (a misspelt key
/// names the known key it is closest to).
std::vector<diag::Diagnostic> check_attributes(const Op& op, const OpSpec& spec, const DialectTable& table);

/// Marks on every op a table lists (collectives aside: their keys are
/// collective_key_problems') the keys check_attributes refuses — a value of
/// another kind, also inside a dictionary, or a key the entry does not
/// name — so that no guard reads them (Op::refused, Op::attr).
void mark_refused(Module& m, const DialectTables& tables);

/// Reads every dtype-kind attribute of the ops the tables list as its dtype
/// ("fp32" -> "f32"), in place: the guards see one spelling. Spellings the
/// table does not know are left as written (the guards reject them).
void canonicalize_dtypes(Module& m, const DialectTables& tables);

/// The known key `key` is most likely a misspelling of (support/nearest_key.h).
using support::nearest_key;

}  // namespace fusecert::ir
