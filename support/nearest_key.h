// "Did you mean": the known name a misspelt key is closest to, shared by the
// IR attribute boundary (verifier/ir/attributes) and the docaudit
// configuration loader (docaudit/ruleset).
#pragma once
#include <string>
#include <vector>

namespace fusecert::support {

/// The known key `key` is most likely a misspelling of, or empty: equal up
/// to case, '_', '.' and '-', or within two edits.
std::string nearest_key(const std::string& key, const std::vector<std::string>& known);

}  // namespace fusecert::support
