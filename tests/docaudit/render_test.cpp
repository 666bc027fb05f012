// Renderers, and the SARIF 2.1.0 fields GitHub code scanning requires,
// checked explicitly against the schema's `required` lists.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "docaudit/render.h"
#include "tests/docaudit/default_rules.h"

using namespace fusecert::docaudit;
using json = nlohmann::json;

namespace {
CheckResult sample() {
  CheckResult r;
  r.files = 2;
  r.findings = {finding("docs/audit/A.md", 3, 5, Severity::Error, "anchor.broken-link", "link `x.md` does not resolve"),
                finding("/abs/outside.md", 1, 1, Severity::Warning, "claim.overclaim", "overclaim \"quoted\"")};
  return r;
}
// The repository the SARIF of sample() is rendered for: docs/audit/A.md
// exists (SARIF columns are counted in the file's own line, in UTF-16).
std::filesystem::path sample_root() {
  static const std::filesystem::path root = [] {
    auto p = std::filesystem::temp_directory_path() / ("render_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p / "docs/audit");
    std::ofstream(p / "docs/audit/A.md") << "---\nx: 1\n---\nsee [x](x.md) here\n";
    return p;
  }();
  return root;
}
}  // namespace

TEST(Render, TextIsCompilerStyle) {
  const std::string t = render_text(sample());
  EXPECT_NE(t.find("docs/audit/A.md:3:5: error: link `x.md` does not resolve [anchor.broken-link]\n"), std::string::npos);
  EXPECT_NE(t.find("/abs/outside.md:1:1: warning: overclaim \"quoted\" [claim.overclaim]\n"), std::string::npos);
  EXPECT_NE(t.find("2 file(s), 1 error(s), 1 warning(s)"), std::string::npos);
  // The counts are the last line, a remark in the one form (issue #13).
  const std::string last = "fusecert docs: remark: 2 file(s), 1 error(s), 1 warning(s) [summary]\n";
  EXPECT_TRUE(t.size() >= last.size() && t.compare(t.size() - last.size(), last.size(), last) == 0) << t;
}

TEST(Render, JsonCarriesEveryField) {
  json j = json::parse(render_json(sample(), "0.1.0"));
  EXPECT_EQ(j["schema"], "fusecert-docs-report/1");  // docs/diagnostics.md "Format versions"
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["rule"], "anchor.broken-link");
  EXPECT_EQ(j["findings"][0]["line"], 3);
  EXPECT_EQ(j["findings"][0]["column"], 5);
  EXPECT_EQ(j["findings"][1]["severity"], "warning");
  EXPECT_EQ(j["errors"], 1);
}

TEST(Render, PathsThatAreNotUtf8AreEmittedNotFatal) {
  // A file named `x\xff.md` made both renderers throw type_error.316.
  CheckResult r;
  r.files = 1;
  r.findings = {finding("u/x\xff.md", 1, 1, Severity::Error, "input.empty", "file is empty")};
  std::string out;
  ASSERT_NO_THROW(out = render_json(r, "0.1.0"));
  json j = json::parse(out);
  EXPECT_EQ(j["findings"][0]["path"], "u/x\xef\xbf\xbd.md");  // U+FFFD
  ASSERT_NO_THROW(out = render_sarif(r, fusecert::docaudit::test::default_rules(), "0.1.0", sample_root()));
  json s = json::parse(out);
  // SARIF: the byte is percent-encoded in the URI (a valid URI, the same file).
  EXPECT_EQ(s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "u/x%FF.md");
}

TEST(Render, SarifHasTheRequiredFieldsOf210) {
  json s = json::parse(render_sarif(sample(), fusecert::docaudit::test::default_rules(), "0.1.0", sample_root()));
  // sarifLog: required [version, runs]; version const "2.1.0".
  ASSERT_TRUE(s.contains("version"));
  EXPECT_EQ(s["version"], "2.1.0");
  EXPECT_EQ(s["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_TRUE(s["runs"].is_array());
  ASSERT_EQ(s["runs"].size(), 1u);
  const json& run = s["runs"][0];
  // run: required [tool]; tool: required [driver]; toolComponent: required [name].
  ASSERT_TRUE(run["tool"]["driver"]["name"].is_string());
  const json& descriptors = run["tool"]["driver"]["rules"];
  ASSERT_TRUE(descriptors.is_array());
  for (const auto& d : descriptors) {
    ASSERT_TRUE(d["id"].is_string());  // reportingDescriptor: required [id]
    EXPECT_TRUE(d["shortDescription"]["text"].is_string());  // message/multiformat: required [text]
    EXPECT_TRUE(d["defaultConfiguration"]["level"] == "error" || d["defaultConfiguration"]["level"] == "warning" ||
                d["defaultConfiguration"]["level"] == "none");
  }
  ASSERT_EQ(run["results"].size(), 2u);
  for (const auto& r : run["results"]) {
    // result: required [message]; message: one of text / id.
    ASSERT_TRUE(r["message"]["text"].is_string());
    ASSERT_TRUE(r["ruleId"].is_string());
    const int idx = r["ruleIndex"];
    ASSERT_LT(idx, static_cast<int>(descriptors.size()));
    EXPECT_EQ(descriptors[idx]["id"], r["ruleId"]);  // ruleIndex must agree with ruleId
    EXPECT_TRUE(r["level"] == "error" || r["level"] == "warning");
    const json& loc = r["locations"][0]["physicalLocation"];
    ASSERT_TRUE(loc["artifactLocation"]["uri"].is_string());
    EXPECT_GE(loc["region"]["startLine"].get<int>(), 1);    // region.startLine minimum 1
    EXPECT_GE(loc["region"]["startColumn"].get<int>(), 1);  // region.startColumn minimum 1
  }
  // A repository-relative uri is anchored at %SRCROOT%; an absolute one is not.
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_FALSE(run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"].contains("uriBaseId"));
}
