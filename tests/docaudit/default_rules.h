// The shipped docaudit rule set (rules/docaudit/default.yaml), loaded once per
// test program.
#pragma once

#include "docaudit/ruleset.h"

namespace fusecert::docaudit::test {

inline const RuleSet& default_rules() {
  static RuleSet rs = load_rule_set(DOCAUDIT_RULES_FILE);
  return rs;
}

}  // namespace fusecert::docaudit::test
