#include "tools/fusecert/kernels_evidence.h"

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <vector>

#include "fusecert/kernels/document_format.h"

namespace fusecert::cli::kernels {

namespace {

diag::Diagnostic refuse(const std::string& what, const RunnerOutcome& r) {
  diag::Diagnostic d = diag::error({}, "kernels.runner", what + "; nothing was checked (exit 2)");
  if (r.ran && r.signal == 0)
    d.note({}, "the runner exited with status " + std::to_string(r.status) + " and printed " +
                   std::to_string(r.out.size()) + " byte(s) on stdout");
  return d;
}

/// The text form: `row K ID (P): PASS|FAIL — SUMMARY` for K = 1..4, then
/// `all rows pass` or `some rows FAIL`. Returns "" when well formed (and sets
/// *passed), else what is wrong.
std::string check_text(const std::string& out, bool* passed) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (out.empty() || out.back() != '\n') return "its output does not end in a complete line (cut short?)";
  if (lines.size() != kEvidenceRows + 1)
    return "it printed " + std::to_string(lines.size()) + " line(s), not the " + std::to_string(kEvidenceRows) +
           " evidence rows and the verdict line";
  static const std::regex row(R"(^row ([0-9]+) [A-Za-z0-9_.-]+ \([^()]+\): (PASS|FAIL) — .*$)");
  bool all = true;
  for (int k = 0; k < kEvidenceRows; ++k) {
    std::smatch m;
    if (!std::regex_match(lines[k], m, row)) return "line " + std::to_string(k + 1) + " is not an evidence row";
    if (m[1] != std::to_string(k + 1))
      return "line " + std::to_string(k + 1) + " is row " + m[1].str() + ", not row " + std::to_string(k + 1);
    all = all && m[2] == "PASS";
  }
  const std::string& last = lines.back();
  if (last != "all rows pass" && last != "some rows FAIL") return "its last line is not the verdict line";
  if ((last == "all rows pass") != all) return "its verdict line '" + last + "' disagrees with its rows";
  *passed = all;
  return "";
}

/// The JSON form: an object with a boolean "passed" and rows 1..4, each an
/// object with a boolean "passed", "passed" their conjunction.
std::string check_json(const std::string& out, bool* passed) {
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "its output is not a JSON object";
  if (doc.contains("schema") && doc["schema"] != ::fusecert::kernels::kEvidenceFormat)
    return "its document is not of schema " + std::string(::fusecert::kernels::kEvidenceFormat);
  if (!doc.contains("passed") || !doc["passed"].is_boolean()) return "its document has no boolean \"passed\"";
  if (!doc.contains("rows") || !doc["rows"].is_array() || doc["rows"].size() != kEvidenceRows)
    return "its document does not hold the " + std::to_string(kEvidenceRows) + " evidence rows";
  bool all = true;
  for (int k = 0; k < kEvidenceRows; ++k) {
    const auto& r = doc["rows"][k];
    if (!r.is_object() || !r.contains("row") || r["row"] != k + 1 || !r.contains("passed") ||
        !r["passed"].is_boolean())
      return "its row " + std::to_string(k + 1) + " is not row " + std::to_string(k + 1) +
             " with a boolean \"passed\"";
    all = all && r["passed"].get<bool>();
  }
  if (doc["passed"].get<bool>() != all) return "its \"passed\" disagrees with its rows";
  *passed = all;
  return "";
}

}  // namespace

std::optional<diag::Diagnostic> check_ended(const RunnerOutcome& r) {
  if (!r.ran) return refuse("the runner could not be run: " + r.why, r);
  if (r.signal != 0) return refuse("the runner was killed by signal " + std::to_string(r.signal), r);
  if (r.status == 127) return refuse("the runner could not be executed (the reason is above)", r);
  if (r.status == 2)
    return refuse("the runner reported a setup failure (exit 2; its reason is on its stderr, above)", r);
  if (r.status != 0 && r.status != 1)
    return refuse("the runner exited with status " + std::to_string(r.status) + ", which is not 0, 1 or 2", r);
  return std::nullopt;
}

std::optional<diag::Diagnostic> check_evidence(const std::string& format, const RunnerOutcome& r) {
  if (auto d = check_ended(r)) return d;
  bool passed = false;
  const std::string bad = format == "json" ? check_json(r.out, &passed) : check_text(r.out, &passed);
  if (!bad.empty()) return refuse("the runner's " + format + " evidence is malformed or partial: " + bad, r);
  if (passed != (r.status == 0))
    return refuse(std::string("the runner's evidence says ") + (passed ? "every row passed" : "a row failed") +
                            " but it exited with status " + std::to_string(r.status),
                  r);
  return std::nullopt;
}

std::optional<diag::Diagnostic> check_distributed(const RunnerOutcome& r) {
  if (auto d = check_ended(r)) return d;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("passed") || !doc["passed"].is_boolean())
    return refuse("--distributed: the runner did not print a JSON object with a boolean \"passed\"", r);
  return std::nullopt;
}

}  // namespace fusecert::cli::kernels
