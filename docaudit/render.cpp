#include "docaudit/render.h"

#include <nlohmann/json.hpp>

#include <map>

namespace fusecert::docaudit {

std::string render_text(const CheckResult& res, const diag::TextRenderer& engine) {
  std::string out = engine.render(res.findings);
  out += "fusecert docs: " + std::to_string(res.files) + " file(s), " + std::to_string(res.errors()) + " error(s), " +
         std::to_string(res.warnings()) + " warning(s)\n";
  return out;
}

std::string render_json(const CheckResult& res, const std::string& version) {
  nlohmann::ordered_json j;
  j["tool"] = "fusecert docs";
  j["version"] = version;
  j["files"] = res.files;
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

std::string render_sarif(const CheckResult& res, const RuleSet& rules, const std::string& version) {
  using json = nlohmann::ordered_json;
  json driver;
  driver["name"] = "fusecert-docs";
  driver["semanticVersion"] = version;
  driver["rules"] = json::array();
  std::map<std::string, int> index;
  for (const auto& [id, info] : rules.rules) {
    index[id] = static_cast<int>(index.size());
    driver["rules"].push_back(
        {{"id", id},
         {"shortDescription", {{"text", info.summary}}},
         {"defaultConfiguration", {{"level", info.severity == Severity::Warning ? "warning"
                                              : info.severity == Severity::Off   ? "none"
                                                                                 : "error"}}}});
  }
  json results = json::array();
  for (const auto& f : res.findings) {
    json r;
    r["ruleId"] = f.rule;
    if (auto it = index.find(f.rule); it != index.end()) r["ruleIndex"] = it->second;
    r["level"] = f.severity == diag::Severity::Warning ? "warning" : "error";
    r["message"] = {{"text", f.message}};
    // Repository-relative paths are anchored at %SRCROOT%; others are file URIs.
    const std::string& path = f.loc.file;
    const bool absolute = !path.empty() && path[0] == '/';
    json artifact = {{"uri", absolute ? "file://" + path : path}};
    if (!absolute) artifact["uriBaseId"] = "%SRCROOT%";
    r["locations"] = json::array({{{"physicalLocation",
                                    {{"artifactLocation", artifact},
                                     {"region", {{"startLine", f.loc.line}, {"startColumn", f.loc.col}}}}}}});
    results.push_back(r);
  }
  json run;
  run["tool"] = {{"driver", driver}};
  run["results"] = results;
  json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = json::array({run});
  return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace fusecert::docaudit
