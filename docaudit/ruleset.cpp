#include "docaudit/ruleset.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "docaudit/text.h"
#include "support/rules_dir.h"

namespace fusecert::docaudit {
namespace {

std::string where(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return file;
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

/// The top-level keys a configuration file may hold. Only `fusecert docs`
/// reads `.fusecert.yaml` (the hook and certify do not), so `docs` is the only
/// one; any other (a typo such as `dosc:`) is a ConfigError, never a silently
/// ignored section.
const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {"docs"};
  return keys;
}

YAML::Node load_yaml_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    throw ConfigError(p.string() + ": configuration file not found or not a regular file");
  try {
    return YAML::LoadFile(p.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(p.string() + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
}

/// Merges `over` into `base` (a mapping of the schema). Every key of `over`
/// must exist in `base` with the same node kind.
void merge(YAML::Node base, const YAML::Node& over, const std::string& file, const std::string& prefix) {
  if (!over.IsMap()) throw ConfigError(where(file, over) + ": `" + prefix + "` must be a mapping");
  for (const auto& kv : over) {
    const std::string key = kv.first.as<std::string>();
    const std::string dotted = prefix.empty() ? key : prefix + "." + key;
    if (!base[key]) throw ConfigError(where(file, kv.first) + ": unknown key `" + dotted + "`");
    YAML::Node b = base[key];
    const YAML::Node& o = kv.second;
    if (prefix == "docs.rules" && b.IsMap() && o.IsScalar()) {
      // `RULE: off` is short for `RULE: {severity: off}`.
      b["severity"] = YAML::Clone(o);
    } else if (b.IsMap()) {
      merge(b, o, file, dotted);
    } else if (b.IsSequence()) {
      if (!o.IsSequence()) throw ConfigError(where(file, o) + ": `" + dotted + "` must be a list");
      base[key] = YAML::Clone(o);
    } else {
      if (!o.IsScalar()) throw ConfigError(where(file, o) + ": `" + dotted + "` must be a scalar");
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
      "frontmatter.missing", "frontmatter.yaml", "frontmatter.last-updated", "frontmatter.audit-role",
      "frontmatter.plan-state", "frontmatter.historical-design",
      "routing.no-index", "routing.unrouted", "routing.plan-question-table", "routing.plan-catalog",
      "routing.scoped-plan-links",
      "lifecycle.closed-plan", "lifecycle.stale-snapshot", "lifecycle.retained-missing",
      "anchor.dashboard-link", "anchor.generated-missing", "anchor.broken-link", "anchor.broken-anchor",
      "anchor.broken-path", "anchor.outside-root",
      "claim.overclaim", "claim.measurement-provenance", "claim.non-claims-section",
      "claim.proposition-verdict", "claim.proposition-unknown", "claim.proposition-wording",
      "suppress.missing-reason", "suppress.unknown-rule", "suppress.unused", "suppress.malformed"};
  return ids;
}

std::filesystem::path default_rules_dir() { return support::rules_dir() / "docaudit"; }

Severity RuleSet::severity(const std::string& rule) const {
  auto it = rules.find(rule);
  if (it == rules.end()) throw std::logic_error("docaudit: rule id `" + rule + "` is not in the rule catalog");
  return it->second.severity;
}

std::optional<AssertedVerdict> RuleSet::asserted_verdict(const std::string& text) const {
  const std::string norm = normalize_words(text);
  for (const auto& w : wording)
    if (starts_with_word(norm, w.prefix)) return w.verdict;
  return std::nullopt;
}

RuleSet load_rule_set_unchecked(const std::filesystem::path& default_file,
                                const std::vector<std::filesystem::path>& overrides) {
  YAML::Node merged = YAML::Clone(load_yaml_file(default_file));
  if (!merged.IsMap()) throw ConfigError(default_file.string() + ": the rule set must be a mapping");
  RuleSet rs;
  rs.sources.push_back(default_file.string());
  std::string label = default_file.string();

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
                          "`; a configuration file holds only `docs:`");
    }
    YAML::Node docs = top["docs"];
    rs.sources.push_back(p.string());
    if (!docs) continue;
    if (docs.IsNull()) continue;
    merge(merged, docs, p.string(), "docs");
    if (docs["lifecycle"] && docs["lifecycle"]["retained"]) {
      retained_file = p.string();
      retained_node = docs["lifecycle"]["retained"];
    }
    label += " + " + p.string();
  }

  Reader r{merged, label};
  if (r.integer("version", 1, 1) != 1) throw ConfigError(label + ": unsupported version");
  rs.audit_root = r.str("tree.audit_root");
  rs.index_name = r.str("tree.index_name");
  rs.extensions = r.list("tree.extensions", false);
  rs.excluded = r.list("tree.excluded");
  rs.generated_dashboards = r.list("tree.generated_dashboards");
  rs.generated_dir = r.str("tree.generated_dir");
  rs.max_file_bytes = static_cast<std::uintmax_t>(r.integer("tree.max_file_bytes", 1, 1LL << 40));

  rs.date_key = r.str("frontmatter.date_key");
  rs.role_key = r.str("frontmatter.role_key");
  rs.roles = r.list("frontmatter.roles", false);
  rs.plan_role = r.str("frontmatter.plan_role");
  rs.plan_state_key = r.str("frontmatter.plan_state_key");
  rs.plan_states = r.list("frontmatter.plan_states", false);
  rs.historical_role = r.str("frontmatter.historical_role");
  rs.historical_key = r.str("frontmatter.historical_key");

  rs.index_role = r.str("routing.index_role");
  rs.question_table_headings = r.list("routing.question_table_headings", false);
  rs.catalog_headings = r.list("routing.catalog_headings", false);
  rs.global_order_authority = r.str("routing.global_order_authority");

  rs.closed_states = r.list("lifecycle.closed_states");
  rs.snapshot_role = r.str("lifecycle.snapshot_role");
  rs.snapshot_max_age_days = static_cast<int>(r.integer("lifecycle.snapshot_max_age_days", 0, 100000));
  rs.retained = read_retained(retained_node, retained_file);

  rs.status_roles = r.list("anchoring.status_roles");
  rs.path_roots = r.list("anchoring.path_roots");
  rs.external_schemes = r.list("anchoring.external_schemes");
  rs.path_intent_words = r.list("anchoring.path_intent_words");
  rs.unchecked_path_docs = r.list("anchoring.unchecked_path_docs");

  rs.overclaim_phrases = r.list("hygiene.overclaim_phrases");
  rs.disclaimer_marker = r.str("hygiene.disclaimer_marker");
  rs.status_key = r.str("hygiene.status_key");
  rs.overclaim_allowed_statuses = r.list("hygiene.overclaim_allowed_statuses");
  rs.overclaim_qualifiers_before = r.list("hygiene.overclaim_qualifiers_before");
  rs.overclaim_qualifiers_after = r.list("hygiene.overclaim_qualifiers_after");
  rs.measurement_terms = r.list("hygiene.measurement_terms");
  rs.provenance_terms = r.list("hygiene.provenance_terms");
  rs.non_claims_roles = r.list("hygiene.non_claims_roles");
  rs.non_claims_headings = r.list("hygiene.non_claims_headings");
  rs.accept_bold_label = r.boolean("hygiene.accept_bold_label");

  rs.id_pattern_text = r.str("propositions.id_pattern");
  try {
    rs.id_pattern = std::regex(rs.id_pattern_text, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw ConfigError(label + ": `propositions.id_pattern` is not a valid regular expression: " + e.what());
  }
  rs.verdict_headers = r.list("propositions.verdict_headers");
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

RuleSet load_rule_set(const std::filesystem::path& default_file,
                      const std::vector<std::filesystem::path>& overrides) {
  try {
    return load_rule_set_unchecked(default_file, overrides);
  } catch (const YAML::Exception& e) {
    throw ConfigError("rule set: " + std::string(e.what()));
  }
}

}  // namespace fusecert::docaudit
