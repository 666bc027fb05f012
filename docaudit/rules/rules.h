// The rule families. A document's own rules (frontmatter, lifecycle, the
// repository paths it names, hygiene) read its full parse, a Document; the
// cross-document rules (routing, links and anchors, proposition verdicts)
// read Summaries only, its own and the other documents' (its folder's
// index, its link targets), so a run keeps only the summaries. Both report
// through a Sink; cross-document facts (summaries by path, the prover's
// verdicts, the reachable set) come from the Context.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "docaudit/document.h"
#include "docaudit/summary.h"
#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

struct Context {
  const RuleSet& rules;
  const Repo& repo;
  std::chrono::sys_days today;
  /// The summary of the parsed document at an absolute path (loaded on
  /// demand, cached); nullptr when the file does not exist or cannot be
  /// parsed. Not set for a document's own rules, which read no other document.
  std::function<const Summary*(std::string_view)> lookup;
  /// The prover's answer to every question (id at the row's parameters) a
  /// checked document's verdict rows ask.
  const std::map<Question, OracleAnswer>* verdicts = nullptr;
  /// Live docs reachable from the root index through links of live docs
  /// (normal absolute paths, Repo::normal, as strings); nullptr when the run
  /// does not compute it.
  const std::unordered_set<std::string>* routed = nullptr;
};

/// Collects one document's findings with the rule set's severities.
class Sink {
 public:
  Sink(const RuleSet& rules, std::string path, std::vector<diag::Diagnostic>& out)
      : rules_(rules), path_(std::move(path)), out_(out) {}
  void report(const std::string& rule, Pos pos, const std::string& message);
  bool enabled(const std::string& rule) const { return rules_.enabled(rule); }

 private:
  const RuleSet& rules_;
  std::string path_;
  std::vector<diag::Diagnostic>& out_;
};

/// A link destination split into its file part (percent-decoded) and anchor.
struct LinkTarget {
  bool external = false;  ///< has a URL scheme (http:, mailto:, ...)
  std::string file;       ///< empty for a same-document "#anchor"
  std::string anchor;     ///< without '#'
};
LinkTarget split_link(const std::string& url, const RuleSet& rules);
/// Where a relative link of the document at `doc` (absolute) points,
/// absolute and normalized ("/x" is taken from the repository root, as
/// GitHub renders it), as the string of a normal absolute path.
std::string resolve_link(const fs::path& doc, const std::string& file, const Repo& repo);

/// The index of `folder`: the first of `rules.index_names` that exists there
/// ("" when none does).
fs::path folder_index(const fs::path& folder, const RuleSet& rules, const Repo& repo);
/// The file name of the document at `doc` is one of the configured index names.
bool is_index(const fs::path& doc, const RuleSet& rules);

// A document's own rules.
void check_frontmatter(const Document& doc, const Context& ctx, Sink& sink);
void check_lifecycle(const Document& doc, const Context& ctx, Sink& sink);
/// The repository paths its code spans name resolve (anchor.broken-path,
/// anchor.generated-missing, anchor.outside-root).
void check_paths(const Document& doc, const Context& ctx, Sink& sink);
void check_hygiene(const Document& doc, const Context& ctx, Sink& sink);

// The cross-document rules.
void check_routing(const Summary& doc, const Context& ctx, Sink& sink);
/// Its links and their anchors resolve, and a status surface links a
/// generated dashboard (anchor.broken-link, anchor.broken-anchor,
/// anchor.outside-root, anchor.generated-missing, anchor.dashboard-link).
void check_links(const Summary& doc, const Context& ctx, Sink& sink);
void check_propositions(const Summary& doc, const Context& ctx, Sink& sink);

/// The proposition rows of `doc`'s verdict tables (tables whose header names
/// a configured verdict column and whose first cell matches the id pattern).
std::vector<PropositionRow> proposition_rows(const Document& doc, const RuleSet& rules);

}  // namespace fusecert::docaudit
