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

Repo::Repo(const fs::path& root, const RuleSet& rules) : rules_(rules) {
  root_ = normal(root);
  std::error_code rec;
  real_root_ = fs::weakly_canonical(root_, rec);
  real_root_ = rec ? root_ : normal(real_root_);
  audit_root_ = normal(root_ / rules.audit_root);
  if (!inside(audit_root_) || !resolves_inside(audit_root_)) {
    std::string from;
    for (std::size_t i = 1; i < rules.sources.size(); ++i) from += (from.empty() ? " (set in " : ", ") + rules.sources[i];
    if (!from.empty()) from += ")";
    throw ConfigError("`tree.audit_root` `" + rules.audit_root + "`" + from + " resolves to `" +
                      audit_root_.generic_string() + "`, outside the repository root `" + root_.generic_string() +
                      "`");
  }
  generated_root_ = (audit_root_ / rules.generated_dir).lexically_normal();
  std::error_code ec;
  for (fs::directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2)) top_dirs_.push_back(it->path().filename().string());
  }
  for (const auto& r : rules.path_roots) top_dirs_.push_back(r);
  std::sort(top_dirs_.begin(), top_dirs_.end());
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

fs::path Repo::join(const fs::path& dir, std::string_view rel) {
  if (absolute(rel)) return fs::path(normal_absolute(rel));
  if (!absolute(dir.native())) return normal(dir / fs::path(rel));
  std::string s = dir.native();
  s += '/';
  s += rel;
  return fs::path(normal_absolute(s));
}

fs::path Repo::sibling(const fs::path& file, std::string_view rel) {
  const std::string& f = file.native();
  const std::size_t slash = f.rfind('/');
  if (absolute(rel) || !absolute(f) || slash == std::string::npos) return join(file.parent_path(), rel);
  std::string s = f.substr(0, slash);
  s += '/';
  s += rel;
  return fs::path(normal_absolute(s));
}

bool Repo::is_under(const fs::path& abs, const fs::path& dir) {
  auto a = abs.begin(), d = dir.begin();
  for (; d != dir.end(); ++d, ++a) {
    if (d->empty()) continue;
    if (a == abs.end() || *a != *d) return false;
  }
  return true;
}

bool Repo::inside(const fs::path& abs) const { return is_under(abs, root_); }

std::string Repo::display(const fs::path& abs) const {
  if (!inside(abs)) return abs.generic_string();
  fs::path rel = abs.lexically_relative(root_);
  std::string s = rel.generic_string();
  return s.empty() ? "." : s;
}

std::string Repo::audit_relative(const fs::path& abs) const {
  if (!is_under(abs, audit_root_)) return "";
  return abs.lexically_relative(audit_root_).generic_string();
}

bool Repo::excluded(const fs::path& abs) const {
  const std::string rel = audit_relative(abs);
  if (rel.empty()) return false;
  for (const auto& g : rules_.excluded)
    if (glob_match(g, rel)) return true;
  for (const auto& d : rules_.generated_dashboards)
    if (fs::path(d).lexically_normal().generic_string() == rel) return true;
  return false;
}

bool Repo::generated(const fs::path& abs) const {
  if (is_under(abs, generated_root_) && abs != generated_root_) return true;
  const std::string rel = audit_relative(abs);
  if (rel.empty()) return false;
  for (const auto& d : rules_.generated_dashboards)
    if (fs::path(d).lexically_normal().generic_string() == rel) return true;
  return false;
}

bool Repo::authored(const fs::path& abs) const {
  return is_under(abs, audit_root_) && abs != audit_root_ && !excluded(abs);
}

bool Repo::exists(const fs::path& abs) const {
  const std::string& key = abs.native();
  {
    std::shared_lock<std::shared_mutex> lock(exists_mutex_);
    if (auto it = exists_cache_.find(key); it != exists_cache_.end()) return it->second;
  }
  std::error_code ec;
  fs::file_status st = fs::status(abs, ec);
  const bool found = !ec && (fs::is_regular_file(st) || fs::is_directory(st));
  std::unique_lock<std::shared_mutex> lock(exists_mutex_);
  exists_cache_.emplace(key, found);
  return found;
}

bool Repo::resolves_inside(const fs::path& abs) const {
  const std::string& key = abs.native();
  {
    std::shared_lock<std::shared_mutex> lock(real_mutex_);
    if (auto it = real_inside_cache_.find(key); it != real_inside_cache_.end()) return it->second;
  }
  std::error_code ec;
  fs::path real = fs::weakly_canonical(abs, ec);
  // An error (a symlink loop, a permission) leaves nothing to follow: the
  // lexical answer stands.
  const bool in = ec ? is_under(abs, root_) : is_under(normal(real), real_root_);
  std::unique_lock<std::shared_mutex> lock(real_mutex_);
  real_inside_cache_.emplace(key, in);
  return in;
}

bool Repo::is_path_root(const std::string& name) const {
  return std::binary_search(top_dirs_.begin(), top_dirs_.end(), name);
}

}  // namespace fusecert::docaudit
