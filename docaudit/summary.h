// What other documents see of a document: the part of its parse that the
// cross-document rules read (routing: the folder's index, the root index's
// reachability, the referrers of a removed path; links: a link target's
// anchors and generated markers; propositions: the ids asked of the prover)
// and nothing else. A run keeps one Summary per document until it ends; the
// full Document (its prose, tables and comments) lives only while that
// document's own rules run, so memory per document stays small and bounded by
// its links, code spans and headings.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "docaudit/outline.h"

namespace fusecert::docaudit {

namespace fs = std::filesystem;
struct Document;
class RuleSet;

/// A proposition row of a verdict table: its id, the verdict cell and where,
/// and the parameters its parameters cell states (none: the defaults).
struct PropositionRow {
  std::string id, wording;
  Pos id_pos, verdict_pos;
  std::map<std::string, std::string> params;  ///< name → value as written
  Pos params_pos;                             ///< of the parameters cell ({0, 0}: the table has none)
  std::string params_error;                   ///< why the cell could not be read ("" when it could)
};

struct Summary {
  fs::path abs;              ///< as Document::abs
  std::string display;       ///< as Document::display
  bool authored = false;     ///< as Document::authored
  bool parsed = false;       ///< as Document::parsed
  bool generated = false;    ///< as Document::generated
  std::uintmax_t bytes = 0;
  std::string role;          ///< the scalar audit role ("" when absent)
  Pos role_pos{1, 1};        ///< of the role key ({1, 1} when absent)

  struct Section {
    int level = 1;
    std::string words;  ///< normalize_words(heading text)
    std::string slug;   ///< GitHub anchor
  };
  std::vector<Section> sections;  ///< the headings, in order
  /// A link, resolved once when the document is summarized (every
  /// cross-document rule and the reachability walk compare its target).
  struct LinkRef {
    std::string url;
    Pos pos;
    int section = -1;
    bool external = false;  ///< has a URL scheme (split_link)
    /// The file it points at (resolve_link: a normal absolute path); "" for
    /// an external link or a same-document `#anchor`.
    std::string target;
    std::string anchor;     ///< percent-decoded, without '#'
  };
  std::vector<LinkRef> links;
  /// A code span: its text trimmed (a file or folder named in backticks).
  struct Code {
    std::string text;
    int section = -1;
  };
  std::vector<Code> code_spans;
  /// The rows of its verdict tables.
  std::vector<PropositionRow> propositions;

  /// True when section index `s` lies under heading `h` (h itself or one of
  /// its subsections).
  bool within(int s, int h) const;
  /// Indices of headings whose normalized text begins with one of `titles`.
  std::vector<int> find_sections(const std::vector<std::string>& titles) const;
  bool has_slug(std::string_view slug) const;
};

class Repo;
/// The summary of `doc`, its role, links and verdict tables read with
/// `rules` (the rule set `doc` was loaded with), its links resolved in `repo`.
Summary summarize(const Document& doc, const RuleSet& rules, const Repo& repo);

}  // namespace fusecert::docaudit
