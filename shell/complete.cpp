// Tab completion: what the word under the cursor can be, from the command
// table's per-position kinds (commands, proposition ids, parameter names,
// obligation ids, .mlir paths, candidate numbers, settings).
#include <algorithm>
#include <filesystem>
#include <set>

#include "shell/session.h"

namespace fusecert::shell {

namespace fs = std::filesystem;

namespace {
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> w;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) w.emplace_back(s.substr(b, i - b));
  }
  return w;
}

/// Paths below the folder part of `prefix`: folders end in '/', files are
/// offered when they end in .mlir (or when no .mlir is there at all).
std::vector<std::string> path_candidates(const std::string& prefix) {
  std::vector<std::string> out;
  std::string dir_part = prefix.substr(0, prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/') + 1);
  fs::path dir = dir_part.empty() ? fs::path(".") : fs::path(dir_part);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || (name[0] == '.' && prefix.substr(dir_part.size()).rfind(".", 0) != 0)) continue;
    std::error_code e2;
    if (it->is_directory(e2)) out.push_back(dir_part + name + "/");
    else if (it->path().extension() == ".mlir") out.push_back(dir_part + name);
  }
  return out;
}
}  // namespace

std::vector<std::string> Session::complete(std::string_view before_cursor) const {
  std::vector<std::string> w = words_of(before_cursor);
  bool fresh = before_cursor.empty() || before_cursor.back() == ' ' || before_cursor.back() == '\t';
  std::string cur = fresh || w.empty() ? "" : w.back();
  size_t index = fresh ? w.size() : w.size() - 1;

  std::vector<std::string> pool;
  if (index == 0) {
    for (const auto& c : commands()) pool.push_back(c.name);
    pool.push_back("exit");
  } else {
    const CommandInfo* info = nullptr;
    for (const auto& c : commands())
      if (c.name == w[0]) info = &c;
    if (!info || info->completes.empty()) return {};
    // One kind per argument position: past the command's arity nothing is
    // offered (`why 1 ` completes nothing), except that name=value
    // parameters repeat.
    if (index > info->completes.size() && info->completes.back() != "param") return {};
    const std::string& kind = info->completes[std::min(index - 1, info->completes.size() - 1)];
    if (kind == "prop") {
      pool = verifier::known_ids(reg_);
    } else if (kind == "param") {
      std::set<std::string> given;
      for (size_t i = 2; i < w.size(); ++i) given.insert(w[i].substr(0, w[i].find('=')));
      if (const auto* s = [&]() -> const verifier::PropositionSpec* {
            try {
              return &spec(w[1]);
            } catch (const std::invalid_argument&) {
              return nullptr;
            }
          }())
        for (const auto& [k, p] : s->params)
          if (!given.count(k) || k == cur.substr(0, cur.find('='))) pool.push_back(k + "=");
    } else if (kind == "obligation") {
      std::set<std::string> ids;
      for (const auto* proofs : {&last_, &latest_})
        for (const auto& [key, r] : *proofs)
          for (const auto& ob : r.obligations) ids.insert(ob.id);
      pool.assign(ids.begin(), ids.end());
      if (pool.empty())  // nothing proven yet: offer the proposition prefixes
        for (const auto& id : verifier::known_ids(reg_)) pool.push_back(id + ".");
    } else if (kind == "file") {
      pool = path_candidates(cur);
    } else if (kind == "candidate") {
      for (size_t k = 1; k <= cands_.size(); ++k) pool.push_back(std::to_string(k));
    } else if (kind == "command") {
      for (const auto& c : commands()) pool.push_back(c.name);
    } else if (kind == "setting") {
      pool = {"timeout", "witnesses"};
    } else if (kind == "setting_value") {
      if (w[1] == "witnesses") pool = {"off", "on"};
    }
  }
  std::vector<std::string> out;
  for (auto& p : pool)
    if (p.compare(0, cur.size(), cur) == 0) out.push_back(p);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fusecert::shell
