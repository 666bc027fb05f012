#include "docaudit/repo.h"

#include <fnmatch.h>

#include <algorithm>
#include <mutex>

namespace fusecert::docaudit {
namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    std::size_t b = s.find('/', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

bool match_segments(const std::vector<std::string>& pat, std::size_t i, const std::vector<std::string>& path,
                    std::size_t j) {
  while (i < pat.size()) {
    if (pat[i] == "**") {
      for (std::size_t k = j; k <= path.size(); ++k)
        if (match_segments(pat, i + 1, path, k)) return true;
      return false;
    }
    if (j >= path.size() || fnmatch(pat[i].c_str(), path[j].c_str(), FNM_PERIOD) != 0) return false;
    ++i;
    ++j;
  }
  return j == path.size();
}

/// The lexically normal form of an absolute POSIX path, as
/// fs::path::lexically_normal gives it (separator runs and `.` dropped, `..`
/// removes the name before it and is dropped at the root), without a
/// trailing separator. Strings, not fs::path components: a run normalizes
/// every link and code span it reads.
std::string normal_absolute(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == '/') ++i;
    std::size_t j = s.find('/', i);
    if (j == std::string_view::npos) j = s.size();
    const std::string_view seg = s.substr(i, j - i);
    i = j;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (const std::size_t k = out.rfind('/'); k != std::string::npos) out.resize(k);
      continue;
    }
    out += '/';
    out += seg;
  }
  if (out.empty()) out = "/";
  return out;
}

bool absolute(std::string_view s) { return !s.empty() && s.front() == '/'; }

}  // namespace

bool glob_match(const std::string& pattern, const std::string& path) {
  return match_segments(split(pattern), 0, split(path), 0);
}

Repo::Repo(const fs::path& root, const RuleSet& rules, const std::vector<fs::path>& removed) : rules_(rules) {
  root_ = normal(root);
  std::error_code rec;
  real_root_ = fs::weakly_canonical(root_, rec);
  real_root_ = rec ? root_ : normal(real_root_);
  audit_root_ = normal(root_ / rules.audit_root);
  if (!inside(audit_root_.native()) || !resolves_inside(audit_root_.native())) {
    std::string from;
    for (std::size_t i = 1; i < rules.sources.size(); ++i) from += (from.empty() ? " (set in " : ", ") + rules.sources[i];
    if (!from.empty()) from += ")";
    throw ConfigError("`tree.audit_root` `" + rules.audit_root + "`" + from + " resolves to `" +
                      audit_root_.generic_string() + "`, outside the repository root `" + root_.generic_string() +
                      "`");
  }
  generated_root_ = normal(audit_root_ / rules.generated_dir);
  for (const auto& d : rules.generated_dashboards) {
    std::string n = fs::path(d).lexically_normal().generic_string();
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    dashboards_.push_back(n);
  }
  std::error_code ec;
  for (fs::directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2)) top_dirs_.push_back(it->path().filename().string());
  }
  for (const auto& r : rules.path_roots) top_dirs_.push_back(r);
  // A deleted folder is still a folder of the repository a document may name:
  // a deletion must not turn the paths into it into "not a path".
  for (const auto& r : removed) {
    const std::string rel = display(normal(r.is_absolute() ? r : root_ / r).native());
    const std::size_t slash = rel.find('/');
    if (rel != "." && inside(normal(root_ / rel).native()) && slash != std::string::npos && slash > 0)
      top_dirs_.push_back(rel.substr(0, slash));
  }
  std::sort(top_dirs_.begin(), top_dirs_.end());
  top_dirs_.erase(std::unique(top_dirs_.begin(), top_dirs_.end()), top_dirs_.end());
}

fs::path Repo::normal(const fs::path& p) {
  if (absolute(p.native())) return fs::path(normal_absolute(p.native()));
  std::error_code ec;
  fs::path a = p.is_absolute() ? p : fs::absolute(p, ec);
  if (ec) a = p;
  a = a.lexically_normal();
  // Drop a trailing separator so "dir/" and "dir" compare equal.
  std::string s = a.generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return fs::path(s);
}

std::string Repo::join(const fs::path& dir, std::string_view rel) {
  if (absolute(rel)) return normal_absolute(rel);
  if (!absolute(dir.native())) return normal(dir / fs::path(rel)).native();
  std::string s = dir.native();
  s += '/';
  s += rel;
  return normal_absolute(s);
}

std::string Repo::sibling(const fs::path& file, std::string_view rel) {
  const std::string& f = file.native();
  const std::size_t slash = f.rfind('/');
  if (absolute(rel) || !absolute(f) || slash == std::string::npos) return join(file.parent_path(), rel);
  std::string s(f, 0, slash);
  s += '/';
  s += rel;
  return normal_absolute(s);
}

bool Repo::is_under(std::string_view abs, std::string_view dir) {
  if (dir == "/") return absolute(abs);
  return abs.size() >= dir.size() && abs.compare(0, dir.size(), dir) == 0 &&
         (abs.size() == dir.size() || abs[dir.size()] == '/');
}

bool Repo::inside(std::string_view abs) const { return is_under(abs, root_.native()); }

std::string Repo::display(std::string_view abs) const {
  if (!inside(abs)) return std::string(abs);
  const std::string& r = root_.native();
  if (abs.size() == r.size()) return ".";
  return std::string(abs.substr(r == "/" ? 1 : r.size() + 1));
}

std::string Repo::audit_relative(std::string_view abs) const {
  const std::string& a = audit_root_.native();
  if (!is_under(abs, a)) return "";
  if (abs.size() == a.size()) return ".";
  return std::string(abs.substr(a == "/" ? 1 : a.size() + 1));
}

bool Repo::excluded(std::string_view abs) const {
  const std::string rel = audit_relative(abs);
  if (rel.empty()) return false;
  for (const auto& g : rules_.excluded)
    if (glob_match(g, rel)) return true;
  return std::find(dashboards_.begin(), dashboards_.end(), rel) != dashboards_.end();
}

bool Repo::generated(std::string_view abs) const {
  if (is_under(abs, generated_root_.native()) && abs != generated_root_.native()) return true;
  const std::string rel = audit_relative(abs);
  if (rel.empty()) return false;
  return std::find(dashboards_.begin(), dashboards_.end(), rel) != dashboards_.end();
}

bool Repo::authored(std::string_view abs) const {
  return is_under(abs, audit_root_.native()) && abs != audit_root_.native() && !excluded(abs);
}

bool Repo::exists(std::string_view abs) const {
  {
    std::shared_lock<std::shared_mutex> lock(exists_mutex_);
    if (auto it = exists_cache_.find(abs); it != exists_cache_.end()) return it->second;
  }
  std::error_code ec;
  fs::file_status st = fs::status(fs::path(abs), ec);
  const bool found = !ec && (fs::is_regular_file(st) || fs::is_directory(st));
  std::unique_lock<std::shared_mutex> lock(exists_mutex_);
  exists_cache_.emplace(std::string(abs), found);
  return found;
}

bool Repo::resolves_inside(std::string_view abs) const {
  {
    std::shared_lock<std::shared_mutex> lock(real_mutex_);
    if (auto it = real_inside_cache_.find(abs); it != real_inside_cache_.end()) return it->second;
  }
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::path(abs), ec);
  // An error (a symlink loop, a permission) leaves nothing to follow: the
  // lexical answer stands.
  const bool in = ec ? is_under(abs, root_.native()) : is_under(normal(real).native(), real_root_.native());
  std::unique_lock<std::shared_mutex> lock(real_mutex_);
  real_inside_cache_.emplace(std::string(abs), in);
  return in;
}

bool Repo::is_path_root(const std::string& name) const {
  return std::binary_search(top_dirs_.begin(), top_dirs_.end(), name);
}

}  // namespace fusecert::docaudit
