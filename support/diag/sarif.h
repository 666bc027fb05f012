// The one SARIF 2.1.0 emitter of fusecert: docs, certify (a file or a tree),
// check-cert, validate and prove all write their diagnostics through it, so every
// file GitHub code scanning reads has the same shape:
//   - ruleId is the stable rule ("P3.reduce_into_state", "frontmatter.plan-state");
//     what tells two results of one rule apart (a candidate, an output) is in
//     result.properties.instance and in the fingerprint, never in the id;
//   - tool.driver.rules[] holds every rule a result names, with
//     shortDescription, fullDescription, help (text + markdown) and helpUri
//     (the rule's section in fusecert's docs);
//   - partialFingerprints "fusecert/v2": "HASH:N", HASH the SHA-256 of rule,
//     artifact URI, instance and the result's line with its whitespace
//     removed (GitHub's primaryLocationLineHash reads lines the same way),
//     N the occurrence index among the run's results of the same HASH in
//     line/column order: stable when lines are inserted or removed above,
//     distinct for distinct results (docs/ci/README.md, "SARIF");
//   - columnKind "utf16CodeUnits": columns are counted in UTF-16 code units of
//     the line's text (diagnostics count bytes; the emitter reads the line);
//     a column it cannot compute is left out rather than given wrong;
//   - artifact URIs relative to %SRCROOT% (docs: the repository root; the
//     other commands: the working folder), percent-encoded; a file outside it
//     is an absolute file:// URI with no uriBaseId (SARIF 2.1.0 §3.4.3-3.4.4);
//   - tool.driver name/version, and tool.extensions for the solvers and
//     libraries that decided the results (Z3, cvc5, MLIR).
// No time and no machine path is written: the same inputs give the same bytes.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/diag/diagnostic.h"

namespace fusecert::diag::sarif {

/// A rule's entry in rules/catalog.yaml.
struct Rule {
  std::string id;                 ///< stable rule id
  std::string short_description;  ///< one line
  std::string full_description;   ///< what the rule checks and why
  std::string help;               ///< what to do about a result (plain text)
  std::string doc;                ///< "ir-checking.md#guards": docs/ file and heading anchor
};

/// rules/catalog.yaml, loaded once (support::rules_dir()). Throws
/// std::runtime_error naming the file on a missing or ill-typed entry.
const std::vector<Rule>& catalog();

/// The catalog rule a reported rule id belongs to: the longest catalog id
/// equal to it or extending to it at a '.' or a digit ("P3.reduce_into_state"
/// for "P3.reduce_into_state.out2", "TV.result" for "TV.result0"); the rest
/// is the instance. nullptr when none matches.
const Rule* find_rule(const std::string& reported, std::string* instance);

struct Component {
  std::string name, version;
};

struct Run {
  std::string tool_version;           ///< fusecert's
  std::vector<Component> components;  ///< Z3, cvc5, MLIR as used by the run
  std::vector<Diagnostic> diagnostics;  ///< remarks (verdict lines) are not results
  /// Per diagnostic (same index; may be shorter): what the result is about
  /// (a candidate, a certificate), joined with the rule id's own instance
  /// suffix, and extra result properties.
  struct About {
    std::string instance;
    nlohmann::ordered_json properties = nlohmann::ordered_json::object();
  };
  std::vector<About> about;
  /// A rule's configured level (docs' rule set: "error", "warning", "none"),
  /// written as its defaultConfiguration.
  std::map<std::string, std::string> default_levels;
  /// Where relative diagnostic paths are relative to (the working folder).
  std::filesystem::path base = ".";
  /// %SRCROOT%: the repository root (default: base).
  std::filesystem::path srcroot;
  /// What %SRCROOT% is for this command (originalUriBaseIds' description).
  std::string srcroot_description =
      "the working folder fusecert ran in; a file outside it is an absolute file:// URI with no uriBaseId";
};

/// The base of every helpUri: FUSECERT_DOCS_URL at build time (default
/// file:///usr/share/doc/fusecert/docs, where the .deb puts the docs).
std::string docs_url();

/// The SARIF log. A diagnostic whose rule is in no catalog entry still gets
/// a rules[] entry, marked "uncatalogued" in its properties (the tests fail
/// on any).
nlohmann::ordered_json render(const Run& run);

/// `byte_col` (1-based, in bytes of `line`) as a 1-based UTF-16 code-unit
/// column; invalid UTF-8 bytes count one unit each.
unsigned utf16_column(const std::string& line, unsigned byte_col);

/// `path` (generic form, relative) as a URI reference: unreserved characters
/// and '/' as they are, every other byte percent-encoded.
std::string uri_encode(const std::string& path);

}  // namespace fusecert::diag::sarif
