// Renderers of a check result: compiler-style text, JSON, and SARIF 2.1.0
// (accepted by GitHub code scanning). All read the same CheckResult.
#pragma once
#include <filesystem>
#include <string>

#include "docaudit/checker.h"
#include "docaudit/ruleset.h"
#include "support/diag/render.h"

namespace fusecert::docaudit {

/// One line per finding through the diagnostic engine,
/// `path:line:col: error|warning: message [rule-id]` (paths relative to the
/// working directory: pass an engine whose base is the repository root),
/// then a summary line.
std::string render_text(const CheckResult& res, const diag::TextRenderer& engine = diag::TextRenderer());

/// {"tool", "version", "files", "bytes", "errors", "warnings", "findings": [...]}.
std::string render_json(const CheckResult& res, const std::string& version);

/// A SARIF 2.1.0 log: one run, the rule catalog as reportingDescriptors,
/// results with ruleId/ruleIndex/level/message/physicalLocation (uri relative
/// to %SRCROOT%, the repository root).
/// Built by support/diag/sarif.h; `repo_root` is what finding paths are relative to (%SRCROOT%).
std::string render_sarif(const CheckResult& res, const RuleSet& rules, const std::string& version,
                         const std::filesystem::path& repo_root);

}  // namespace fusecert::docaudit
