#include "docaudit/render.h"

#include <nlohmann/json.hpp>

#include <map>

#include "support/diag/report_format.h"
#include "support/diag/sarif.h"

namespace fusecert::docaudit {

std::string render_text(const CheckResult& res, const diag::TextRenderer& engine) {
  std::string out = engine.render(res.findings);
  // The counts, a remark in the one form (docs/diagnostics.md "Summary lines").
  out += diag::TextRenderer({}, "fusecert docs")
             .render(diag::remark({}, "summary",
                                  std::to_string(res.files) + " file(s), " +
                                      (res.skipped ? std::to_string(res.skipped) + " skipped (generated or excluded), " : "") +
                                      std::to_string(res.errors()) +
                                      " error(s), " + std::to_string(res.warnings()) + " warning(s)"));
  return out;
}

std::string render_json(const CheckResult& res, const std::string& version) {
  nlohmann::ordered_json j;
  j["schema"] = diag::kDocsReportFormat;
  j["tool"] = "fusecert docs";
  j["version"] = version;
  j["files"] = res.files;
  j["skipped"] = res.skipped;
  j["bytes"] = res.bytes;
  j["errors"] = res.errors();
  j["warnings"] = res.warnings();
  j["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : res.findings)
    j["findings"].push_back({{"path", f.loc.file},
                             {"line", f.loc.line},
                             {"column", f.loc.col},
                             {"severity", diag::to_string(f.severity)},
                             {"rule", f.rule},
                             {"message", f.message}});
  // A path need not be UTF-8 (a file named `x\xff.md`): a bad byte is
  // written as U+FFFD rather than aborting the whole report.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_sarif(const CheckResult& res, const RuleSet& rules, const std::string& version,
                         const std::filesystem::path& repo_root) {
  // Through the one emitter (support/diag/sarif.h): paths are relative to
  // the repository root, which is %SRCROOT%.
  diag::sarif::Run run;
  run.tool_version = version;
  run.diagnostics = res.findings;
  run.base = repo_root;
  run.srcroot = repo_root;
  run.srcroot_description =
      "the repository root: --repo-root, else the nearest folder holding .git or .fusecert.yaml above the first "
      "PATH (or the working folder), else the working folder";
  for (const auto& [id, info] : rules.rules)
    run.default_levels[id] = info.severity == Severity::Warning ? "warning" : info.severity == Severity::Off ? "none" : "error";
  // A path need not be UTF-8 (a file named `x\xff.md`): its bytes are
  // percent-encoded in the URI, and any other bad byte is written as U+FFFD.
  return diag::sarif::render(run).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace fusecert::docaudit
