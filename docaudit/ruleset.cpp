#include "docaudit/ruleset.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <map>
#include <set>
#include <tuple>

#include "docaudit/repo.h"
#include "docaudit/text.h"
#include "support/nearest_key.h"
#include "support/repo_config.h"
#include "support/rules_dir.h"

namespace fusecert::docaudit {
namespace {

std::string where(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return file;
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

/// The top-level keys a configuration file may hold: one list for every
/// reader (support/repo_config.h: `docs:` is this loader's, `ir:` certify's,
/// which validates it); any other (a typo such as `dosc:`) is a ConfigError,
/// never a silently ignored section.
const std::vector<std::string>& top_level_keys() { return support::repo_config_sections(); }

/// A key that occurs twice in one mapping, at any depth, is a ConfigError at
/// its second occurrence (yaml-cpp keeps one of the two values silently; which
/// one a reader meant cannot be known). The first in file order is reported.
/// An explicit stack (no recursion on depth); an alias bomb stops the walk
/// after kMaxNodes nodes (a configuration has hundreds).
void reject_duplicate_keys(const YAML::Node& root, const std::string& file) {
  constexpr std::size_t kMaxNodes = 200000;
  struct Item {
    YAML::Node node;
    std::string path;
  };
  struct Dup {
    YAML::Mark at, first;
    std::string path;
  };
  std::vector<Item> stack{{root, ""}};
  std::vector<Dup> dups;
  std::size_t visited = 0;
  while (!stack.empty() && ++visited <= kMaxNodes) {
    Item it = std::move(stack.back());
    stack.pop_back();
    if (it.node.IsMap()) {
      std::map<std::string, YAML::Mark> first;
      for (const auto& kv : it.node) {
        const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const std::string path = it.path.empty() ? k : it.path + "." + k;
        if (kv.first.IsScalar()) {
          auto [f, fresh] = first.emplace(k, kv.first.Mark());
          if (!fresh) dups.push_back({kv.first.Mark(), f->second, path});
        }
        stack.push_back({kv.second, path});
      }
    } else if (it.node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& e : it.node) stack.push_back({e, it.path + "[" + std::to_string(i++) + "]"});
    }
  }
  if (dups.empty()) return;
  const Dup& d = *std::min_element(dups.begin(), dups.end(), [](const Dup& a, const Dup& b) {
    return std::tie(a.at.line, a.at.column) < std::tie(b.at.line, b.at.column);
  });
  throw ConfigError(file + ":" + std::to_string(d.at.line + 1) + ":" + std::to_string(d.at.column + 1) +
                        ": duplicate key `" + d.path + "` (first at line " + std::to_string(d.first.line + 1) +
                        "); YAML keeps only one of the two values, so which one is meant is unknown",
                    "input.config.duplicate-key", d.first.line + 1, d.first.column + 1);
}

YAML::Node load_yaml_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    throw ConfigError(p.string() + ": configuration file not found or not a regular file");
  YAML::Node n;
  try {
    n = YAML::LoadFile(p.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(p.string() + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  reject_duplicate_keys(n, p.string());
  return n;
}

bool is_severity(const std::string& s) { return s == "error" || s == "warning" || s == "off"; }

/// `KEY: {add: [...]}` for a list-valued KEY: the list so far (the default,
/// as earlier files and overrides left it) with the entries appended that it
/// does not hold yet. `KEY: [...]` replaces the list instead (merge). Any
/// other key of the mapping is a ConfigError, as is an `add` that is no list.
YAML::Node extended(const YAML::Node& list, const YAML::Node& over, const std::string& file, const std::string& named) {
  for (const auto& kv : over) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (k != "add") {
      const std::string near = support::nearest_key(k, {"add"});
      throw ConfigError(where(file, kv.first) + ": unknown key `" + named + "." + k + "`" +
                        (near.empty() ? "" : "; did you mean `add`?") +
                        " (a list is replaced by `" + named + ": [...]` or extended by `" + named + ": {add: [...]}`)");
    }
    if (!kv.second.IsSequence())
      throw ConfigError(where(file, kv.second) + ": `" + named + ".add` must be a list of the entries to add");
  }
  if (!over["add"]) throw ConfigError(where(file, over) + ": `" + named + "` must be a list or {add: [...]}");
  YAML::Node out = YAML::Clone(list);
  for (const auto& e : over["add"]) {
    bool held = false;
    if (e.IsScalar())
      for (const auto& x : out) held = held || (x.IsScalar() && x.Scalar() == e.Scalar());
    if (!held) out.push_back(YAML::Clone(e));
  }
  return out;
}

/// Merges `over` into `base` (a mapping of the schema). Every key of `over`
/// must exist in `base` with the same node kind. `shown` is the prefix as the
/// user wrote it (`docs.overrides[0]` for an override entry; default
/// `prefix`), for the messages; every message carries file:line:col.
void merge(YAML::Node base, const YAML::Node& over, const std::string& file, const std::string& prefix,
           std::string shown = {}) {
  if (shown.empty()) shown = prefix;
  if (!over.IsMap()) throw ConfigError(where(file, over) + ": `" + shown + "` must be a mapping");
  for (const auto& kv : over) {
    const std::string key = kv.first.as<std::string>();
    const std::string dotted = prefix.empty() ? key : prefix + "." + key;
    const std::string named = shown.empty() ? key : shown + "." + key;
    if (!base[key]) {
      std::vector<std::string> known;
      for (const auto& b : base)
        if (b.first.IsScalar()) known.push_back(b.first.Scalar());
      const std::string near = support::nearest_key(key, known);
      throw ConfigError(where(file, kv.first) + ": unknown key `" + named + "`" +
                        (near.empty() ? "" : "; did you mean `" + near + "`?"));
    }
    // A severity is checked here, where the value's position is known (the
    // merged rule set has none).
    const bool severity_value = (prefix == "docs.rules" && kv.second.IsScalar()) ||
                                (prefix.rfind("docs.rules.", 0) == 0 && key == "severity");
    if (severity_value && (!kv.second.IsScalar() || !is_severity(kv.second.Scalar())))
      throw ConfigError(where(file, kv.second) + ": `" + named + "`: a severity must be error, warning or off, got `" +
                        (kv.second.IsScalar() ? kv.second.Scalar() : std::string("a ") + (kv.second.IsMap() ? "mapping" : "list")) + "`");
    YAML::Node b = base[key];
    const YAML::Node& o = kv.second;
    if (dotted == "docs.frontmatter.allowed_values") {
      // An open mapping (frontmatter key -> allowed values): replaced whole.
      if (!o.IsMap()) throw ConfigError(where(file, o) + ": `" + named + "` must be a mapping of key to a list of values");
      base[key] = YAML::Clone(o);
    } else if (prefix == "docs.rules" && b.IsMap() && o.IsScalar()) {
      // `RULE: off` is short for `RULE: {severity: off}`.
      b["severity"] = YAML::Clone(o);
    } else if (b.IsMap()) {
      merge(b, o, file, dotted, named);
    } else if (b.IsSequence()) {
      if (o.IsMap()) {
        base[key] = extended(b, o, file, named);
        continue;
      }
      if (!o.IsSequence())
        throw ConfigError(where(file, o) + ": `" + named + "` must be a list (it replaces the default) or {add: [...]} (it extends it)");
      base[key] = YAML::Clone(o);
    } else {
      if (!o.IsScalar()) throw ConfigError(where(file, o) + ": `" + named + "` must be a scalar");
      base[key] = YAML::Clone(o);
    }
  }
}

/// Typed access to the merged rule set with errors naming the key.
struct Reader {
  YAML::Node root;
  std::string label;

  YAML::Node at(const std::string& dotted) const {
    YAML::Node n;
    n.reset(root);
    std::size_t start = 0;
    while (true) {
      std::size_t dot = dotted.find('.', start);
      std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!n.IsMap() || !n[part]) throw ConfigError(label + ": missing key `" + dotted + "`");
      n.reset(n[part]);
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return n;
  }
  std::string str(const std::string& k) const {
    YAML::Node n = at(k);
    if (!n.IsScalar()) throw ConfigError(label + ": `" + k + "` must be a string");
    return n.Scalar();
  }
  long long integer(const std::string& k, long long lo, long long hi) const {
    const std::string s = str(k);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi)
      throw ConfigError(label + ": `" + k + "` must be an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "], got `" + s + "`");
    return v;
  }
  bool boolean(const std::string& k) const {
    const std::string s = str(k);
    if (s == "true") return true;
    if (s == "false") return false;
    throw ConfigError(label + ": `" + k + "` must be true or false, got `" + s + "`");
  }
  std::vector<std::string> list(const std::string& k, bool allow_empty = true) const {
    YAML::Node n = at(k);
    if (!n.IsSequence()) throw ConfigError(label + ": `" + k + "` must be a list");
    std::vector<std::string> out;
    for (const auto& e : n) {
      if (!e.IsScalar() || e.Scalar().empty())
        throw ConfigError(label + ": every entry of `" + k + "` must be a non-empty string");
      out.push_back(e.Scalar());
    }
    if (!allow_empty && out.empty()) throw ConfigError(label + ": `" + k + "` must not be empty");
    return out;
  }
};

Severity parse_severity(const std::string& s, const std::string& label, const std::string& id) {
  if (s == "error") return Severity::Error;
  if (s == "warning") return Severity::Warning;
  if (s == "off") return Severity::Off;
  throw ConfigError(label + ": rules." + id + ".severity must be error, warning or off, got `" + s + "`");
}

std::optional<AssertedVerdict> parse_asserted(const std::string& s) {
  if (s == "holds") return AssertedVerdict::Holds;
  if (s == "refuted") return AssertedVerdict::Refuted;
  if (s == "conditional") return AssertedVerdict::Conditional;
  return std::nullopt;
}

std::vector<RetainedSnapshot> read_retained(const YAML::Node& list, const std::string& file) {
  std::vector<RetainedSnapshot> out;
  if (!list.IsSequence()) throw ConfigError(where(file, list) + ": `lifecycle.retained` must be a list");
  for (const auto& e : list) {
    if (!e.IsMap()) throw ConfigError(where(file, e) + ": a retained entry must be a mapping {path, reason}");
    for (const auto& kv : e) {
      const std::string k = kv.first.as<std::string>();
      if (k != "path" && k != "reason")
        throw ConfigError(where(file, kv.first) + ": unknown key `" + k + "` in a retained entry");
    }
    RetainedSnapshot r;
    r.source = file;
    r.line = e.Mark().is_null() ? 0 : e.Mark().line + 1;
    r.col = e.Mark().is_null() ? 1 : e.Mark().column + 1;
    if (!e["path"] || !e["path"].IsScalar() || e["path"].Scalar().empty())
      throw ConfigError(where(file, e) + ": a retained entry needs `path`");
    r.path = e["path"].Scalar();
    if (!e["reason"] || !e["reason"].IsScalar() || trim(e["reason"].Scalar()).empty())
      throw ConfigError(where(file, e) + ": retained snapshot `" + r.path + "` needs a non-empty `reason`");
    r.reason = e["reason"].Scalar();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

RuleSet load_rule_set_unchecked(const std::filesystem::path& default_file,
                                const std::vector<std::filesystem::path>& overrides);

std::string to_string(AssertedVerdict v) {
  switch (v) {
    case AssertedVerdict::Holds: return "holds";
    case AssertedVerdict::Refuted: return "refuted";
    case AssertedVerdict::Conditional: return "conditional";
  }
  return "holds";
}

const std::vector<std::string>& builtin_rule_ids() {
  static const std::vector<std::string> ids = {
      "input.unreadable", "input.empty", "input.binary", "input.utf8", "input.too-large",
      "frontmatter.missing", "frontmatter.yaml", "frontmatter.duplicate-key", "frontmatter.required-key",
      "frontmatter.allowed-value", "frontmatter.last-updated", "frontmatter.audit-role",
      "frontmatter.plan-state", "frontmatter.historical-design",
      "routing.no-index", "routing.unrouted", "routing.plan-question-table", "routing.plan-catalog",
      "routing.scoped-plan-links",
      "lifecycle.closed-plan", "lifecycle.stale-snapshot", "lifecycle.retained-missing",
      "config.override-unmatched",
      "anchor.dashboard-link", "anchor.generated-missing", "anchor.broken-link", "anchor.broken-anchor",
      "anchor.broken-path", "anchor.outside-root",
      "claim.overclaim", "claim.measurement-provenance", "claim.non-claims-section",
      "claim.proposition-verdict", "claim.proposition-unknown", "claim.proposition-wording",
      "claim.proposition-parameters",
      "suppress.missing-reason", "suppress.unknown-rule", "suppress.unused", "suppress.malformed"};
  return ids;
}

std::filesystem::path default_rules_dir() { return support::rules_dir() / "docaudit"; }

Severity RuleSet::severity(const std::string& rule) const {
  auto it = rules.find(rule);
  if (it == rules.end()) throw std::logic_error("docaudit: rule id `" + rule + "` is not in the rule catalog");
  return it->second.severity;
}

bool RuleSet::is_proposition_id(std::string_view text) const {
  return id_pattern && re2::RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *id_pattern);
}

std::optional<AssertedVerdict> RuleSet::asserted_verdict(const std::string& text) const {
  const std::string norm = normalize_words(text);
  for (const auto& w : wording)
    if (starts_with_word(norm, w.prefix)) return w.verdict;
  return std::nullopt;
}

namespace detail {
/// The `overrides:` entries of the configuration and the rule sets built
/// from them, per combination of matching entries (built on first use).
struct Overrides {
  YAML::Node base;  ///< the merged rule set without overrides
  std::string label, retained_file;
  YAML::Node retained_node;
  struct Entry {
    std::vector<std::string> files;  ///< globs, repository-relative
    YAML::Node body;                 ///< the entry without `files`, a `docs:`-level mapping
    std::string file;                ///< the configuration file it came from
    std::string shown;               ///< `docs.overrides[N]`, as messages name it
    OverrideSite site;               ///< where it and its globs are written
  };
  std::vector<Entry> entries;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<RuleSet>> cache;  ///< key: the matching entries' indices
};
}  // namespace detail

namespace {

RuleSet from_yaml(const YAML::Node& merged, const std::string& label, const YAML::Node& retained_node,
                  const std::string& retained_file);

/// Reads `docs.overrides` of one file: a list of {files: [glob...], <section>: ...}.
void read_overrides(const YAML::Node& list, const std::string& file, std::vector<detail::Overrides::Entry>& out) {
  if (!list.IsSequence()) throw ConfigError(where(file, list) + ": `docs.overrides` must be a list of {files, ...}");
  std::size_t n = 0;
  for (const auto& e : list) {
    const std::string shown = "docs.overrides[" + std::to_string(n++) + "]";
    if (!e.IsMap()) throw ConfigError(where(file, e) + ": an `overrides` entry must be a mapping {files: [...], rules: {...}, ...}");
    detail::Overrides::Entry entry;
    entry.file = file;
    entry.shown = shown;
    auto at = [](const YAML::Node& n) { return std::pair<int, int>(n.Mark().line + 1, n.Mark().column + 1); };
    std::tie(entry.site.line, entry.site.col) = at(e);
    entry.site.file = file;
    entry.site.shown = shown;
    YAML::Node files = e["files"];
    if (!files) throw ConfigError(where(file, e) + ": an `overrides` entry needs `files` (globs of the documents it applies to)");
    auto add_glob = [&](const YAML::Node& g) {
      entry.files.push_back(g.Scalar());
      const auto [line, col] = at(g);
      entry.site.globs.push_back({g.Scalar(), line, col});
    };
    if (files.IsScalar()) {
      add_glob(files);
    } else if (files.IsSequence()) {
      for (const auto& g : files) {
        if (!g.IsScalar() || g.Scalar().empty())
          throw ConfigError(where(file, g) + ": every entry of `" + shown + ".files` must be a non-empty glob");
        add_glob(g);
      }
    } else {
      throw ConfigError(where(file, files) + ": `" + shown + ".files` must be a glob or a list of globs");
    }
    if (entry.files.empty()) throw ConfigError(where(file, files) + ": `" + shown + ".files` is empty");
    YAML::Node body(YAML::NodeType::Map);
    for (const auto& kv : e) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      if (k == "files") continue;
      if (k == "version" || k == "tree" || k == "overrides")
        throw ConfigError(where(file, kv.first) + ": `" + k + "` applies to the whole run and cannot be set per path in `overrides`");
      if (k == "lifecycle" && kv.second.IsMap() && kv.second["retained"])
        throw ConfigError(where(file, kv.first) + ": `lifecycle.retained` applies to the whole run and cannot be set per path in `overrides`");
      body[kv.first] = kv.second;  // the key node itself: its position is kept for the messages
    }
    entry.body = body;
    out.push_back(std::move(entry));
  }
}

}  // namespace

RuleSet load_rule_set_unchecked(const std::filesystem::path& default_file,
                                const std::vector<std::filesystem::path>& overrides) {
  YAML::Node merged = YAML::Clone(load_yaml_file(default_file));
  if (!merged.IsMap()) throw ConfigError(default_file.string() + ": the rule set must be a mapping");
  std::vector<std::string> sources{default_file.string()};
  std::string label = default_file.string();
  auto state = std::make_shared<detail::Overrides>();
  if (merged["overrides"]) {
    read_overrides(merged["overrides"], default_file.string(), state->entries);
    merged.remove("overrides");
  }

  // lifecycle.retained is read from the last file that sets it, keeping its marks.
  std::string retained_file = default_file.string();
  YAML::Node retained_node = merged["lifecycle"] ? YAML::Clone(merged["lifecycle"]["retained"]) : YAML::Node();

  for (const auto& p : overrides) {
    YAML::Node top = load_yaml_file(p);
    if (top.IsNull()) continue;  // an empty config file overrides nothing
    if (!top.IsMap()) throw ConfigError(p.string() + ": a configuration file must be a mapping");
    for (const auto& kv : top) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      const auto& known = top_level_keys();
      if (std::find(known.begin(), known.end(), key) == known.end())
        throw ConfigError(where(p.string(), kv.first) + ": unknown top-level key `" + key +
                          "`; a configuration file holds only `docs:` and `ir:`");
    }
    YAML::Node docs = top["docs"];
    sources.push_back(p.string());
    if (!docs) continue;
    if (docs.IsNull()) continue;
    if (docs.IsMap() && docs["overrides"]) {
      read_overrides(docs["overrides"], p.string(), state->entries);
      YAML::Node rest(YAML::NodeType::Map);
      for (const auto& kv : docs)
        if (!(kv.first.IsScalar() && kv.first.Scalar() == "overrides")) rest[kv.first] = kv.second;
      docs = rest;
    }
    merge(merged, docs, p.string(), "docs");
    if (docs["lifecycle"] && docs["lifecycle"]["retained"]) {
      retained_file = p.string();
      retained_node = docs["lifecycle"]["retained"];
    }
    label += " + " + p.string();
  }

  RuleSet rs = from_yaml(merged, label, retained_node, retained_file);
  rs.sources = sources;
  state->base = merged;
  state->label = label;
  state->retained_node = retained_node;
  state->retained_file = retained_file;
  // Every entry must be valid on its own: an unknown key or a bad value in
  // an override is a ConfigError now, not when the first matching file comes.
  for (const auto& e : state->entries) {
    YAML::Node m = YAML::Clone(merged);
    merge(m, e.body, e.file, "docs", e.shown);
    (void)from_yaml(m, label + " (overrides for " + e.files.front() + ")", retained_node, retained_file);
  }
  rs.overrides = std::move(state);
  return rs;
}

const RuleSet& RuleSet::for_path(const std::string& rel) const {
  if (!overrides || overrides->entries.empty()) return *this;
  std::string key;
  for (std::size_t i = 0; i < overrides->entries.size(); ++i)
    for (const auto& g : overrides->entries[i].files)
      if (glob_match(g, rel)) {
        key += std::to_string(i) + ",";
        break;
      }
  if (key.empty()) return *this;
  std::lock_guard<std::mutex> lock(overrides->mutex);
  auto& slot = overrides->cache[key];
  if (!slot) {
    YAML::Node m = YAML::Clone(overrides->base);
    std::size_t at = 0;
    while (at < key.size()) {
      const std::size_t comma = key.find(',', at);
      const auto& e = overrides->entries[std::stoul(key.substr(at, comma - at))];
      merge(m, e.body, e.file, "docs", e.shown);
      at = comma + 1;
    }
    auto built = std::make_unique<RuleSet>(from_yaml(m, overrides->label, overrides->retained_node, overrides->retained_file));
    built->sources = sources;
    slot = std::move(built);
  }
  return *slot;
}

std::string RuleSet::effective_config(const std::string& rel) const {
  YAML::Node docs = overrides ? YAML::Clone(overrides->base) : YAML::Node(YAML::NodeType::Map);
  std::string applied;
  if (overrides) {
    if (overrides->retained_node) docs["lifecycle"]["retained"] = YAML::Clone(overrides->retained_node);
    for (const auto& e : overrides->entries) {
      bool match = rel.empty();
      for (const auto& g : e.files) match = match || glob_match(g, rel);
      if (!match) continue;
      if (rel.empty()) {
        YAML::Node entry(YAML::NodeType::Map);
        YAML::Node files(YAML::NodeType::Sequence);
        for (const auto& g : e.files) files.push_back(g);
        entry["files"] = files;
        for (const auto& kv : e.body) entry[kv.first.Scalar()] = YAML::Clone(kv.second);
        docs["overrides"].push_back(entry);
      } else {
        merge(docs, e.body, e.file, "docs", e.shown);
        applied += (applied.empty() ? "" : ", ") + e.shown + " (" + e.files.front() + (e.files.size() > 1 ? ", ..." : "") + ")";
      }
    }
  }
  YAML::Node top(YAML::NodeType::Map);
  top["docs"] = docs;
  YAML::Emitter em;
  em << top;
  std::string head = "# The effective configuration of `fusecert docs`: ";
  for (std::size_t i = 0; i < sources.size(); ++i) head += (i ? " + " : "") + sources[i];
  if (!rel.empty()) head += "\n# for " + rel + (applied.empty() ? ", which no override matches" : ", with " + applied);
  return head + "\n" + em.c_str() + "\n";
}

std::size_t RuleSet::override_count() const { return overrides ? overrides->entries.size() : 0; }

std::vector<OverrideSite> RuleSet::override_sites() const {
  std::vector<OverrideSite> out;
  if (overrides)
    for (const auto& e : overrides->entries) out.push_back(e.site);
  return out;
}

namespace {

RuleSet from_yaml(const YAML::Node& merged, const std::string& label, const YAML::Node& retained_node,
                  const std::string& retained_file) {
  RuleSet rs;
  Reader r{merged, label};
  if (r.integer("version", 1, 1) != 1) throw ConfigError(label + ": unsupported version");
  rs.audit_root = r.str("tree.audit_root");
  rs.extensions = r.list("tree.extensions", false);
  rs.excluded = r.list("tree.excluded");
  rs.generated_dashboards = r.list("tree.generated_dashboards");
  rs.generated_markers = r.list("tree.generated_markers");
  rs.generated_dir = r.str("tree.generated_dir");
  rs.max_file_bytes = static_cast<std::uintmax_t>(r.integer("tree.max_file_bytes", 1, 1LL << 40));
  rs.max_block_brackets = static_cast<std::uintmax_t>(r.integer("tree.max_block_brackets", 1, 1LL << 40));

  rs.date_key = r.str("frontmatter.date_key");
  rs.role_key = r.str("frontmatter.role_key");
  rs.roles = r.list("frontmatter.roles", false);
  rs.plan_role = r.str("frontmatter.plan_role");
  rs.plan_state_key = r.str("frontmatter.plan_state_key");
  rs.plan_states = r.list("frontmatter.plan_states", false);
  rs.historical_role = r.str("frontmatter.historical_role");
  rs.historical_key = r.str("frontmatter.historical_key");
  rs.required_keys = r.list("frontmatter.required_keys");
  {
    YAML::Node av = r.at("frontmatter.allowed_values");
    if (!av.IsMap() && !av.IsNull())
      throw ConfigError(label + ": `frontmatter.allowed_values` must be a mapping of key to a list of values");
    if (av.IsMap())
      for (const auto& kv : av) {
        const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "";
        if (k.empty() || !kv.second.IsSequence() || kv.second.size() == 0)
          throw ConfigError(label + ": `frontmatter.allowed_values." + k + "` must be a non-empty list of values");
        std::vector<std::string> vals;
        for (const auto& v : kv.second) {
          if (!v.IsScalar()) throw ConfigError(label + ": `frontmatter.allowed_values." + k + "` holds a value that is not a scalar");
          vals.push_back(v.Scalar());
        }
        rs.allowed_values[k] = std::move(vals);
      }
  }

  rs.index_role = r.str("routing.index_role");
  rs.question_table_headings = r.list("routing.question_table_headings", false);
  rs.catalog_headings = r.list("routing.catalog_headings", false);
  rs.global_order_authority = r.str("routing.global_order_authority");
  rs.index_names = r.list("routing.index_names", false);
  rs.root_index = r.str("routing.root_index");
  rs.require_index = r.boolean("routing.require_index");
  rs.require_routing_sections = r.boolean("routing.require_routing_sections");

  rs.closed_states = r.list("lifecycle.closed_states");
  rs.snapshot_role = r.str("lifecycle.snapshot_role");
  rs.snapshot_max_age_days = static_cast<int>(r.integer("lifecycle.snapshot_max_age_days", 0, 100000));
  rs.retained = read_retained(retained_node, retained_file);

  rs.status_roles = r.list("anchoring.status_roles");
  rs.path_roots = r.list("anchoring.path_roots");
  rs.external_schemes = r.list("anchoring.external_schemes");
  rs.path_intent_markers = r.list("anchoring.path_intent_markers");
  rs.path_intent_verbs = r.list("anchoring.path_intent_verbs");
  rs.path_intent_modals = r.list("anchoring.path_intent_modals");
  rs.path_weak_markers = r.list("anchoring.path_weak_markers");
  rs.path_plan_predicates = r.list("anchoring.path_plan_predicates");
  rs.path_gone_predicates = r.list("anchoring.path_gone_predicates");
  rs.path_presence_phrases = r.list("anchoring.path_presence_phrases");
  rs.unchecked_path_docs = r.list("anchoring.unchecked_path_docs");
  rs.deliverable_headers = r.list("anchoring.deliverable_headers");
  rs.other_repositories = r.list("anchoring.other_repositories");

  rs.overclaim_phrases = r.list("hygiene.overclaim_phrases");
  rs.disclaimer_marker = r.str("hygiene.disclaimer_marker");
  rs.status_key = r.str("hygiene.status_key");
  rs.overclaim_allowed_statuses = r.list("hygiene.overclaim_allowed_statuses");
  rs.overclaim_qualifiers_before = r.list("hygiene.overclaim_qualifiers_before");
  rs.overclaim_qualifiers_after = r.list("hygiene.overclaim_qualifiers_after");
  rs.measurement_terms = r.list("hygiene.measurement_terms");
  rs.provenance_terms = r.list("hygiene.provenance_terms");
  rs.measurement_units = r.list("hygiene.measurement_units");
  rs.time_units = r.list("hygiene.time_units");
  rs.hardware_names = r.list("hygiene.hardware_names");
  rs.hardware_lines = r.list("hygiene.hardware_lines");
  rs.provenance_scope_quantifiers = r.list("hygiene.provenance_scope_quantifiers");
  rs.provenance_contrast_terms = r.list("hygiene.provenance_contrast_terms");
  rs.provenance_scope_nouns = r.list("hygiene.provenance_scope_nouns");
  rs.provenance_scope_places = r.list("hygiene.provenance_scope_places");
  rs.provenance_scope_verbs = r.list("hygiene.provenance_scope_verbs");
  rs.provenance_scope_negations = r.list("hygiene.provenance_scope_negations");
  rs.non_claims_roles = r.list("hygiene.non_claims_roles");
  rs.non_claims_headings = r.list("hygiene.non_claims_headings");
  rs.accept_bold_label = r.boolean("hygiene.accept_bold_label");

  rs.id_pattern_text = r.str("propositions.id_pattern");
  {
    re2::RE2::Options o;
    o.set_log_errors(false);
    o.set_max_mem(8 << 20);  // a pattern whose automaton needs more is refused, not run
    auto re = std::make_shared<const re2::RE2>(rs.id_pattern_text, o);
    if (!re->ok())
      throw ConfigError(label + ": `propositions.id_pattern` is not a valid RE2 regular expression: " + re->error());
    rs.id_pattern = std::move(re);
  }
  rs.verdict_headers = r.list("propositions.verdict_headers");
  rs.parameter_headers = r.list("propositions.parameter_headers");
  rs.parameter_defaults = r.list("propositions.parameter_defaults", false);
  {
    YAML::Node w = r.at("propositions.wording");
    if (!w.IsSequence()) throw ConfigError(label + ": `propositions.wording` must be a list");
    for (const auto& e : w) {
      if (!e.IsMap() || !e["prefix"] || !e["verdict"] || e.size() != 2)
        throw ConfigError(label + ": each `propositions.wording` entry is {prefix, verdict}");
      auto v = parse_asserted(e["verdict"].as<std::string>());
      if (!v)
        throw ConfigError(label + ": wording verdict must be holds, refuted or conditional, got `" +
                          e["verdict"].as<std::string>() + "`");
      const std::string prefix = normalize_words(e["prefix"].as<std::string>());
      if (prefix.empty()) throw ConfigError(label + ": a `propositions.wording` prefix is empty");
      rs.wording.push_back({prefix, *v});
    }
  }

  YAML::Node rules = r.at("rules");
  if (!rules.IsMap()) throw ConfigError(label + ": `rules` must be a mapping");
  for (const auto& kv : rules) {
    RuleInfo info;
    info.id = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (!v.IsMap() || !v["severity"] || !v["summary"])
      throw ConfigError(label + ": rules." + info.id + " needs `severity` and `summary`");
    for (const auto& field : v) {
      const std::string f = field.first.as<std::string>();
      if (f != "severity" && f != "summary")
        throw ConfigError(label + ": unknown key `rules." + info.id + "." + f + "`");
    }
    info.severity = parse_severity(v["severity"].as<std::string>(), label, info.id);
    info.summary = v["summary"].as<std::string>();
    rs.rules[info.id] = info;
  }
  for (const auto& id : builtin_rule_ids())
    if (!rs.rules.count(id)) throw ConfigError(label + ": the rule catalog lacks `rules." + id + "`");
  for (const auto& [id, info] : rs.rules) {
    if (std::find(builtin_rule_ids().begin(), builtin_rule_ids().end(), id) == builtin_rule_ids().end())
      throw ConfigError(label + ": `rules." + id + "` is not a rule docaudit implements");
  }
  return rs;
}

}  // namespace

RuleSet load_rule_set(const std::filesystem::path& default_file,
                      const std::vector<std::filesystem::path>& overrides) {
  try {
    return load_rule_set_unchecked(default_file, overrides);
  } catch (const YAML::Exception& e) {
    throw ConfigError("rule set: " + std::string(e.what()));
  }
}

}  // namespace fusecert::docaudit
