#include "support/diag/sarif.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <tuple>

#include "support/rules_dir.h"
#include "support/sha256.h"

#ifndef FUSECERT_DOCS_URL
#error "FUSECERT_DOCS_URL must be defined by the build"
#endif

namespace fusecert::diag::sarif {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

unsigned utf16_column(const std::string& line, unsigned byte_col) {
  if (byte_col <= 1) return byte_col;
  const size_t end = std::min<size_t>(byte_col - 1, line.size());
  unsigned units = 0;
  for (size_t i = 0; i < end;) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= line.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(line[i + k]) >> 6) == 0x2;
    if (!ok) {  // a stray byte: one unit, as a decoder's U+FFFD would be
      ++units;
      ++i;
      continue;
    }
    units += len == 4 ? 2 : 1;
    i += len;
  }
  // A column past the end of the line (the newline) keeps its distance.
  return units + 1 + static_cast<unsigned>(byte_col - 1 - end);
}

std::string uri_encode(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

/// The partialFingerprints key; its suffix is the scheme's version (v1 hashed
/// the message and no line, so two findings on two lines could collide).
constexpr const char* kFingerprint = "fusecert/v2";

const char* level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note:
    case Severity::Remark: return "note";
  }
  return "error";
}

/// Lines of the files results point into, read once; a file that cannot be
/// read gives no lines (its columns are left out).
class Sources {
 public:
  explicit Sources(fs::path base) : base_(std::move(base)) {}
  const std::string* line(const std::string& file, unsigned n) {
    auto it = cache_.find(file);
    if (it == cache_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(fs::path(file).is_absolute() ? fs::path(file) : base_ / file, std::ios::binary);
      for (std::string l; in && std::getline(in, l);) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        lines.push_back(std::move(l));
      }
      it = cache_.emplace(file, std::move(lines)).first;
    }
    if (n == 0 || n > it->second.size()) return nullptr;
    return &it->second[n - 1];
  }

 private:
  fs::path base_;
  std::map<std::string, std::vector<std::string>> cache_;
};

/// A line's text with every whitespace character removed, as GitHub's
/// primaryLocationLineHash reads it: re-indenting or re-spacing a line keeps
/// its fingerprint.
std::string without_whitespace(const std::string& line) {
  std::string out;
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\v' && c != '\f') out += c;
  return out;
}

struct Uri {
  std::string uri;
  bool in_root = false;
};

Uri artifact_uri(const std::string& file, const fs::path& base, const fs::path& root) {
  std::error_code ec;
  fs::path p = fs::path(file);
  fs::path abs = fs::weakly_canonical(p.is_absolute() ? p : base / p, ec);
  if (ec) abs = (p.is_absolute() ? p : fs::absolute(base, ec) / p).lexically_normal();
  const fs::path rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != ".." && !rel.is_absolute()) return {uri_encode(rel.generic_string()), true};
  return {"file://" + uri_encode(abs.generic_string()), false};
}

json location(const Location& l, const fs::path& base, const fs::path& root, Sources& src) {
  // A diagnostic about no file (a usage or configuration error, a note
  // about no place) has no physical location: the result omits `locations`
  // and a related location keeps only its message (SARIF 2.1.0 §3.28), never
  // an artifactLocation that names the folder.
  if (l.file.empty()) return json::object();
  json region = json::object();
  if (l.line > 0) {
    region["startLine"] = l.line;
    // Column 1 is column 1 in any unit; another needs the line's text.
    if (l.col == 1) region["startColumn"] = 1;
    else if (l.col > 1)
      if (const std::string* text = src.line(l.file, l.line)) region["startColumn"] = utf16_column(*text, l.col);
  }
  const Uri u = artifact_uri(l.file, base, root);
  json art = {{"uri", u.uri}};
  if (u.in_root) art["uriBaseId"] = "%SRCROOT%";
  json phys = {{"artifactLocation", art}};
  if (!region.empty()) phys["region"] = region;
  return {{"physicalLocation", phys}};
}

}  // namespace

const std::vector<Rule>& catalog() {
  static const std::vector<Rule> rules = [] {
    const fs::path file = support::rules_dir() / "catalog.yaml";
    std::vector<Rule> out;
    YAML::Node root;
    try {
      root = YAML::LoadFile(file.string());
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(file.string() + ": error: " + e.what());
    }
    const YAML::Node rules = root["rules"];
    if (!rules || !rules.IsMap()) throw std::runtime_error(file.string() + ": error: no `rules:` mapping");
    for (const auto& kv : rules) {
      Rule r;
      r.id = kv.first.as<std::string>();
      const auto get = [&](const char* key) {
        const YAML::Node v = kv.second[key];
        if (!v || !v.IsScalar() || v.as<std::string>().empty())
          throw std::runtime_error(file.string() + ": error: rule " + r.id + " has no `" + key + "`");
        return v.as<std::string>();
      };
      r.short_description = get("short");
      r.full_description = get("full");
      r.help = get("help");
      r.doc = get("doc");
      out.push_back(std::move(r));
    }
    return out;
  }();
  return rules;
}

const Rule* find_rule(const std::string& reported, std::string* instance) {
  const Rule* best = nullptr;
  for (const auto& r : catalog()) {
    if (reported.size() < r.id.size() || reported.compare(0, r.id.size(), r.id) != 0) continue;
    const bool exact = reported.size() == r.id.size();
    const char next = exact ? '\0' : reported[r.id.size()];
    if (!exact && next != '.' && !(next >= '0' && next <= '9')) continue;
    if (!best || r.id.size() > best->id.size()) best = &r;
  }
  if (best && instance) {
    std::string rest = reported.substr(best->id.size());
    if (!rest.empty() && rest[0] == '.') rest.erase(0, 1);
    *instance = rest;
  }
  return best;
}

std::string docs_url() { return FUSECERT_DOCS_URL; }

json render(const Run& run) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(run.base, ec), ec);
  const fs::path root = run.srcroot.empty() ? base : fs::weakly_canonical(fs::absolute(run.srcroot, ec), ec);

  struct Item {
    const Diagnostic* d;
    std::string rule, instance;
    const Rule* entry;
    json props;
  };
  std::vector<Item> items;
  for (size_t i = 0; i < run.diagnostics.size(); ++i) {
    const Diagnostic& d = run.diagnostics[i];
    if (d.severity == Severity::Remark) continue;  // verdict lines, not findings
    const Run::About about = i < run.about.size() ? run.about[i] : Run::About{};
    Item it{&d, d.rule, "", nullptr, about.properties};
    std::string suffix;
    it.entry = find_rule(d.rule, &suffix);
    if (it.entry) it.rule = it.entry->id;
    it.instance = about.instance.empty() ? suffix : suffix.empty() ? about.instance : about.instance + "/" + suffix;
    if (it.rule.empty()) it.rule = "fusecert";
    items.push_back(std::move(it));
  }
  // rules[]: the rules the results name, sorted by id (stable indices).
  std::map<std::string, const Rule*> named;
  for (const auto& it : items) named.emplace(it.rule, it.entry);
  std::map<std::string, int> index;
  json rules = json::array();
  for (const auto& [id, entry] : named) {
    index[id] = static_cast<int>(rules.size());
    if (entry) {
      const std::string uri = docs_url() + "/" + entry->doc;
      rules.push_back({{"id", id},
                       {"shortDescription", {{"text", entry->short_description}}},
                       {"fullDescription", {{"text", entry->full_description}}},
                       {"help", {{"text", entry->help}, {"markdown", entry->help + "\n\n[Documentation](" + uri + ")"}}},
                       {"helpUri", uri}});
      if (auto lv = run.default_levels.find(id); lv != run.default_levels.end())
        rules.back()["defaultConfiguration"] = {{"level", lv->second}};
    } else {
      rules.push_back({{"id", id},
                       {"shortDescription", {{"text", "fusecert rule " + id}}},
                       {"properties", {{"uncatalogued", true}}}});
    }
  }

  Sources src(base);
  // Locations first: the fingerprints need every result's file and line.
  struct Placed {
    json loc;
    std::string uri, line_hash;
    unsigned line = 0, col = 0;
  };
  std::vector<Placed> placed;
  placed.reserve(items.size());
  for (const auto& it : items) {
    const Location& l = it.d->loc;
    Placed p{location(l, base, root, src), "", "", l.line, l.col};
    if (!p.loc.empty()) p.uri = p.loc["physicalLocation"]["artifactLocation"]["uri"].get<std::string>();
    const std::string* text = l.line > 0 ? src.line(l.file, l.line) : nullptr;
    p.line_hash = support::sha256_hex(it.rule + '\0' + p.uri + '\0' + it.instance + '\0' +
                                      (text ? without_whitespace(*text) : std::string()));
    placed.push_back(std::move(p));
  }
  // The occurrence index: results with the same hash (same rule, file and
  // instance on lines of the same content) are numbered in file order.
  std::vector<unsigned> occurrence(items.size(), 0);
  {
    std::map<std::string, std::vector<size_t>> same;
    for (size_t i = 0; i < placed.size(); ++i) same[placed[i].line_hash].push_back(i);
    for (auto& [hash, idx] : same) {
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return std::tie(placed[a].line, placed[a].col) < std::tie(placed[b].line, placed[b].col);
      });
      for (size_t k = 0; k < idx.size(); ++k) occurrence[idx[k]] = static_cast<unsigned>(k);
    }
  }
  json results = json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const Diagnostic& d = *it.d;
    json res = {{"ruleId", it.rule},
                {"ruleIndex", index.at(it.rule)},
                {"level", level(d.severity)},
                {"message", {{"text", d.message}}}};
    if (!placed[i].loc.empty()) res["locations"] = json::array({placed[i].loc});
    json related = json::array();
    int id = 0;
    for (const auto& n : d.notes) {
      json rl = location(n.loc, base, root, src);
      rl["id"] = id++;
      rl["message"] = {{"text", n.message}};
      related.push_back(rl);
    }
    if (!related.empty()) res["relatedLocations"] = related;
    res["partialFingerprints"] = {{kFingerprint, placed[i].line_hash + ":" + std::to_string(occurrence[i])}};
    json props = it.props;
    if (!it.instance.empty()) props["instance"] = it.instance;
    if (d.rule != it.rule) props["reported_rule"] = d.rule;
    if (!props.empty()) res["properties"] = props;
    results.push_back(res);
  }

  json driver = {{"name", "fusecert"}, {"version", run.tool_version}, {"semanticVersion", run.tool_version},
                 {"informationUri", docs_url() + "/README.md"}, {"rules", rules}};
  json tool = {{"driver", driver}};
  if (!run.components.empty()) {
    json ext = json::array();
    for (const auto& c : run.components) ext.push_back({{"name", c.name}, {"version", c.version}});
    tool["extensions"] = ext;
  }
  json out_run = {
      {"tool", tool},
      {"originalUriBaseIds",
       {{"%SRCROOT%", {{"description", {{"text", run.srcroot_description}}}}}}},
      {"columnKind", "utf16CodeUnits"},
      {"results", results}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({out_run})}};
}

}  // namespace fusecert::diag::sarif
