// Claim anchoring: status surfaces link a generated dashboard; every named
// generated/X.md exists; relative links, their #anchors and backticked
// repository paths resolve, and nothing resolves outside the repository root.
#include <algorithm>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

bool is_generated(const fs::path& abs, const Context& ctx) {
  if (Repo::is_under(abs, ctx.repo.generated_root()) && abs != ctx.repo.generated_root()) return true;
  const std::string rel = ctx.repo.audit_relative(abs);
  for (const auto& d : ctx.rules.generated_dashboards)
    if (!rel.empty() && fs::path(d).lexically_normal().generic_string() == rel) return true;
  return false;
}

bool is_markdown(const fs::path& p) {
  const std::string e = lower_ascii(p.extension().string());
  return e == ".md" || e == ".markdown";
}

/// The repository path a code span names, or "" when it is not path-shaped:
/// no spaces, a '/', no glob or URL characters; `::symbol` and `:line`
/// suffixes and trailing punctuation removed.
std::string path_candidate(std::string s) {
  s = trim(s);
  if (s.empty() || s.find_first_of(" \t*?[]{}<>|$=\"'`,;()") != std::string::npos) return "";
  if (s.find("://") != std::string::npos || s.find("...") != std::string::npos || s.find('/') == std::string::npos)
    return "";
  if (auto p = s.find("::"); p != std::string::npos) s.erase(p);
  if (auto p = s.rfind(':'); p != std::string::npos) {
    const std::string tail = s.substr(p + 1);
    if (!tail.empty() && std::all_of(tail.begin(), tail.end(), [](char c) { return std::isdigit((unsigned char)c) || c == '-'; }))
      s.erase(p);
  }
  while (!s.empty() && (s.back() == '.' || s.back() == ':')) s.pop_back();
  if (s.rfind("./", 0) == 0) s.erase(0, 2);
  if (s.empty() || s == "/" || s[0] == '/') return "";
  return s;
}

}  // namespace

void check_anchoring(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const Repo& repo = ctx.repo;
  const bool doc_inside = repo.inside(doc.abs);
  bool links_dashboard = false;

  for (const auto& l : doc.outline.links) {
    LinkTarget t = split_link(l.url, r);
    if (t.external || l.url.empty()) continue;
    if (t.file.empty()) {  // same-document anchor
      if (!t.anchor.empty() && !doc.outline.has_slug(t.anchor))
        sink.report("anchor.broken-anchor", l.pos, "no heading of this document has the anchor `#" + t.anchor + "`");
      continue;
    }
    const fs::path target = resolve_link(doc, t.file, repo);
    if (!repo.inside(target)) {
      sink.report("anchor.outside-root", l.pos,
                  "link `" + l.url + "` resolves outside the repository root (" + repo.root().generic_string() + ")");
      continue;
    }
    const bool generated = is_generated(target, ctx);
    if (!Repo::exists(target)) {
      if (generated)
        sink.report("anchor.generated-missing", l.pos,
                    "generated dashboard `" + repo.display(target) + "` does not exist");
      else
        sink.report("anchor.broken-link", l.pos, "link `" + l.url + "` does not resolve: no file `" +
                                                      repo.display(target) + "`");
      continue;
    }
    if (generated && is_markdown(target)) links_dashboard = true;
    if (!t.anchor.empty() && is_markdown(target)) {
      const Document* other = target == doc.abs ? &doc : ctx.lookup(target);
      if (other && other->parsed && !other->outline.has_slug(t.anchor))
        sink.report("anchor.broken-anchor", l.pos,
                    "`" + repo.display(target) + "` has no heading with the anchor `#" + t.anchor + "`");
    }
  }

  for (const auto& c : doc.outline.code_spans) {
    const std::string p = path_candidate(c.text);
    if (p.empty()) continue;
    const std::string first = p.substr(0, p.find('/'));
    fs::path target;
    bool generated = false;
    if (first == r.generated_dir) {
      target = Repo::normal(repo.audit_root() / p);
      generated = true;
    } else if (first == "..") {
      target = Repo::normal(doc.abs.parent_path() / p);
    } else if (repo.is_path_root(first)) {
      target = Repo::normal(repo.root() / p);
    } else {
      continue;  // not a repository path (e.g. `dY/dX`, `a/b` prose)
    }
    if (!repo.inside(target)) {
      sink.report("anchor.outside-root", c.pos, "path `" + c.text + "` resolves outside the repository root");
      continue;
    }
    if (Repo::exists(target)) continue;
    if (generated)
      sink.report("anchor.generated-missing", c.pos, "generated dashboard `" + p + "` does not exist under `" +
                                                         repo.display(repo.generated_root()) + "`");
    else
      sink.report("anchor.broken-path", c.pos, "repository path `" + p + "` does not exist");
  }

  const std::string role = doc.role(r);
  if (doc.authored && doc_inside &&
      std::find(r.status_roles.begin(), r.status_roles.end(), role) != r.status_roles.end() && !links_dashboard) {
    auto v = doc.fm.get(r.role_key);
    sink.report("anchor.dashboard-link", v ? Pos{v->line, v->col} : Pos{1, 1},
                "status-surface doc (" + role + ") links no generated dashboard under `" +
                    repo.display(repo.generated_root()) + "/`; its numbers must trace to one");
  }
}

}  // namespace fusecert::docaudit
