// The rule families, each a small visitor over one parsed document (its
// frontmatter and outline) that reports findings through a Sink. Cross-
// document facts (the folder's index, a link target's headings, the prover's
// verdicts) come from the Context.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "docaudit/document.h"
#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

struct Context {
  const RuleSet& rules;
  const Repo& repo;
  std::chrono::sys_days today;
  /// The parsed document at an absolute path (loaded on demand, cached);
  /// nullptr when the file does not exist or cannot be parsed.
  std::function<const Document*(const fs::path&)> lookup;
  /// The prover's verdict per proposition id named in any checked document.
  const std::map<std::string, OracleAnswer>* verdicts = nullptr;
  /// Live docs reachable from the root index through links of live docs
  /// (absolute paths); nullptr when the run does not compute it.
  const std::set<fs::path>* routed = nullptr;
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
/// Where a relative link of `doc` points, absolute and normalized ("/x" is
/// taken from the repository root, as GitHub renders it).
fs::path resolve_link(const Document& doc, const std::string& file, const Repo& repo);

/// The index of `folder`: the first of `rules.index_names` that exists there
/// ("" when none does).
fs::path folder_index(const fs::path& folder, const RuleSet& rules, const Repo& repo);
/// `doc`'s file name is one of the configured index names.
bool is_index(const Document& doc, const RuleSet& rules);

void check_frontmatter(const Document& doc, const Context& ctx, Sink& sink);
void check_routing(const Document& doc, const Context& ctx, Sink& sink);
void check_lifecycle(const Document& doc, const Context& ctx, Sink& sink);
void check_anchoring(const Document& doc, const Context& ctx, Sink& sink);
void check_hygiene(const Document& doc, const Context& ctx, Sink& sink);
void check_propositions(const Document& doc, const Context& ctx, Sink& sink);

/// A proposition row of a verdict table: its id, the verdict cell and where.
struct PropositionRow {
  std::string id, wording;
  Pos id_pos, verdict_pos;
};
/// The proposition rows of `doc`'s verdict tables (tables whose header names
/// a configured verdict column and whose first cell matches the id pattern).
std::vector<PropositionRow> proposition_rows(const Document& doc, const RuleSet& rules);

}  // namespace fusecert::docaudit
