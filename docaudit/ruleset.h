// The rule set: every role, state, phrase list, threshold, exclusion and
// section name the rules use, loaded from rules/docaudit/default.yaml and
// overridden by a repository's `.fusecert.yaml` (key `docs:`) or `--config`.
// The default file is also the schema: an override key it does not define is
// a ConfigError, never a silent default.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "docaudit/finding.h"

namespace re2 {
class RE2;
}

namespace fusecert::docaudit {

/// Rule set missing, unreadable, ill-typed, or naming an unknown key
/// (a usage/configuration error: exit 2). what() names the file and the key.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
  /// A duplicated key: rule input.config.duplicate-key, with the position of
  /// the key's first occurrence (1-based) for a note.
  ConfigError(const std::string& what, std::string rule_id, int first_line, int first_col)
      : std::runtime_error(what), rule(std::move(rule_id)), first_line(first_line), first_col(first_col) {}
  std::string rule = "input.config";
  int first_line = 0, first_col = 0;  ///< 0: no note
};

/// A verdict a proposition row can assert, in the prover's vocabulary.
enum class AssertedVerdict { Holds, Refuted, Conditional };
std::string to_string(AssertedVerdict v);

/// A snapshot kept in the live tree past the age limit, with its reason.
struct RetainedSnapshot {
  std::string path;    ///< repository-relative
  std::string reason;
  std::string source;  ///< config file that declared it
  int line = 0;        ///< 1-based line of the entry in `source`
  int col = 1;         ///< 1-based column of the entry in `source`
};

/// Metadata of one rule id.
struct RuleInfo {
  std::string id, summary;
  Severity severity = Severity::Error;
};

struct WordingRule {
  std::string prefix;  ///< lower-case
  AssertedVerdict verdict = AssertedVerdict::Holds;
};

/// An `overrides:` entry as written: where it and each of its globs stand
/// in the configuration file (1-based), for the findings about it.
struct OverrideSite {
  struct Glob {
    std::string glob;
    int line = 0, col = 0;
  };
  std::string file;   ///< the configuration file
  std::string shown;  ///< `docs.overrides[N]`
  int line = 0, col = 0;
  std::vector<Glob> globs;
};

struct RuleSet;
namespace detail {
struct Overrides;
}

struct RuleSet {
  // tree (global: an override cannot set these)
  std::string audit_root, generated_dir;
  std::vector<std::string> extensions, excluded, generated_dashboards, generated_markers;
  std::uintmax_t max_file_bytes = 0;
  std::uintmax_t max_block_brackets = 0;  ///< `[` per block outside code fences
  // frontmatter
  std::string date_key, role_key, plan_role, plan_state_key, historical_role, historical_key;
  std::vector<std::string> roles, plan_states;
  std::vector<std::string> required_keys;                      ///< present, any value
  std::map<std::string, std::vector<std::string>> allowed_values;  ///< key -> the values it may take
  // routing
  std::string index_role, global_order_authority, root_index;
  std::vector<std::string> index_names;  ///< names a folder's index may have (first found wins)
  bool require_index = false;            ///< a folder must have an index that names each doc
  bool require_routing_sections = false; ///< an index must have the question table and catalog
  std::vector<std::string> question_table_headings, catalog_headings;
  // lifecycle
  std::vector<std::string> closed_states;
  std::string snapshot_role;
  int snapshot_max_age_days = 0;
  std::vector<RetainedSnapshot> retained;
  // anchoring
  std::vector<std::string> status_roles, path_roots, external_schemes;
  std::vector<std::string> path_intent_markers, path_intent_verbs, path_intent_modals, unchecked_path_docs,
      deliverable_headers;
  /// Markers that say a path is planned only when the rest of its clause
  /// does not state it is there now ("New `x/` for ..." vs "The new `x`
  /// scheduler is live").
  std::vector<std::string> path_weak_markers;
  /// Phrases that, right after a path (its subject), say it is not there
  /// yet ("is scheduled to land", "will land") or no longer is ("was
  /// deleted", "no longer exists").
  std::vector<std::string> path_plan_predicates, path_gone_predicates;
  /// Phrases that say a path is there now ("existing", "keep using", "still
  /// ships"): governing a path, they override every planned or gone excuse.
  std::vector<std::string> path_presence_phrases;
  /// Names of other repositories a path may be written under (besides those
  /// a document pins or declares itself).
  std::vector<std::string> other_repositories;
  // hygiene
  std::vector<std::string> overclaim_phrases, measurement_terms, provenance_terms;
  /// Units a timing cell carries after its number, or its column's header
  /// names (`ms`, `cycles`, `TFLOP/s`, `x`).
  std::vector<std::string> measurement_units;
  /// Units of time: a column most of whose cells are a number with one
  /// (`2.5 ms`, `310 µs`) holds timings whatever its header says.
  std::vector<std::string> time_units;
  /// Product lines and model prefixes: a table's context names hardware
  /// when one is followed by a model number (`RTX 4090`, `MI300X`).
  std::vector<std::string> hardware_names;
  /// Product lines that name hardware alone (`EPYC`, `Xeon`).
  std::vector<std::string> hardware_lines;
  /// A sentence of a section's (or the document's) intro states provenance
  /// for every table after it in that section when a quantifier ("every",
  /// "all") and a noun of numbers ("numbers", "timings") come before a place
  /// ("here", "below", "in this section").
  /// A clause holding one names no provenance ("unlike the A100 numbers").
  std::vector<std::string> provenance_contrast_terms;
  std::vector<std::string> provenance_scope_quantifiers, provenance_scope_nouns, provenance_scope_places;
  std::vector<std::string> provenance_scope_verbs, provenance_scope_negations;
  std::string disclaimer_marker, status_key;
  std::vector<std::string> overclaim_allowed_statuses;
  std::vector<std::string> overclaim_qualifiers_before, overclaim_qualifiers_after;
  std::vector<std::string> non_claims_roles, non_claims_headings;
  bool accept_bold_label = true;
  // propositions
  std::string id_pattern_text;
  /// Compiled with RE2 (linear time in the input, no recursion, no
  /// backtracking): the pattern comes from a configuration a pull request
  /// can change, and the text it runs on from a document.
  std::shared_ptr<const re2::RE2> id_pattern;
  /// Whole of `text` matches `propositions.id_pattern`.
  bool is_proposition_id(std::string_view text) const;
  std::vector<std::string> verdict_headers;
  /// The parameters column of a verdict table (first header cell naming one).
  std::vector<std::string> parameter_headers;
  /// Cell texts (lower case, trimmed) that mean "the default parameters".
  std::vector<std::string> parameter_defaults;
  std::vector<WordingRule> wording;
  // rule catalog, by id
  std::map<std::string, RuleInfo> rules;
  /// Files the set was read from, in order (default first).
  std::vector<std::string> sources;
  /// The `overrides:` entries and the rule sets merged from them (shared by copies).
  std::shared_ptr<detail::Overrides> overrides;

  /// The rule set for the document at repository-relative path `rel`: this
  /// set with every `overrides:` entry whose `files` globs match `rel` merged
  /// in, in order (ESLint's `overrides: [{files, rules}]`). Thread-safe; the
  /// reference lives as long as this set.
  const RuleSet& for_path(const std::string& rel) const;
  /// The merged configuration as YAML in the configuration file's form
  /// (`docs:` ...): every key with its effective value, lists as extended or
  /// replaced (`fusecert docs --print-config`). With `rel` (a
  /// repository-relative path), the set for that document, its matching
  /// `overrides:` entries merged in; without, the `overrides:` entries listed.
  std::string effective_config(const std::string& rel = {}) const;
  /// Number of `overrides:` entries.
  std::size_t override_count() const;
  /// The `overrides:` entries, in order, where they are written.
  std::vector<OverrideSite> override_sites() const;

  /// Severity of `rule`; throws std::logic_error for an id not in the catalog
  /// (every id the engine emits is required in the catalog at load time).
  Severity severity(const std::string& rule) const;
  bool enabled(const std::string& rule) const { return severity(rule) != Severity::Off; }
  /// The verdict `wording` asserts, or nullopt when no configured prefix matches.
  std::optional<AssertedVerdict> asserted_verdict(const std::string& wording) const;
};

/// The rule ids the engine can emit (each must appear under `rules:`).
const std::vector<std::string>& builtin_rule_ids();

/// Folder of the default rule set: support::rules_dir()/docaudit (the
/// installed share/fusecert/rules, or the source tree's for a build-tree binary).
std::filesystem::path default_rules_dir();

/// Loads `default_file` (the rule set itself), then merges each override file
/// in order. An override file is a repository config (`.fusecert.yaml` format):
/// a mapping whose `docs:` key holds overrides; `ir:` is certify's (read and
/// validated there, support/repo_config.h). Any other top-level key is a
/// ConfigError (a typo, never a silently ignored section).
/// Under `docs.rules`, `RULE: SEVERITY` is short for `RULE: {severity: SEVERITY}`.
/// Validates and converts. Throws ConfigError.
RuleSet load_rule_set(const std::filesystem::path& default_file,
                      const std::vector<std::filesystem::path>& overrides = {});

}  // namespace fusecert::docaudit
