// Claim anchoring: status surfaces link a generated dashboard; every named
// generated/X.md exists; relative links, their #anchors and backticked
// repository paths resolve, and nothing resolves outside the repository root.
// The links are checked from summaries (check_links: a target's anchors are
// all it needs of another document); the backticked paths from the full
// parse (check_paths: the sentence around a path says whether it is planned).
#include <algorithm>
#include <set>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

bool is_generated(const fs::path& abs, const Context& ctx) { return ctx.repo.generated(abs); }

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

/// The text a reader takes as the lead-in of a code span: the clause before
/// it in its block (back to the sentence start, at most 120 bytes), or, when
/// the span opens its block, the tail of the block before it.
std::string lead_in(const Document& doc, const CodeSpan& c) {
  const auto& prose = doc.outline.prose;
  if (c.prose < 0 || c.prose >= static_cast<long>(prose.size())) return "";
  auto clause = [](const std::string& text, std::size_t end) {
    std::size_t start = end > 120 ? end - 120 : 0;
    for (std::size_t i = end; i > start; --i)
      if ((text[i - 1] == '.' || text[i - 1] == ';') && i < end && (text[i] == ' ' || text[i] == '\n')) {
        start = i;
        break;
      }
    return text.substr(start, end - start);
  };
  std::string before = clause(prose[c.prose].text, std::min(c.offset, prose[c.prose].text.size()));
  if (trim(before).empty() && c.prose > 0 && prose[c.prose - 1].section == c.section) {
    const std::string& prev = prose[c.prose - 1].text;
    before = clause(prev, prev.size());
  }
  return before;
}

/// A code span in a plan's deliverables table: a table cell whose column
/// header (or the table's first header cell) names one of
/// anchoring.deliverable_headers ("Deliverable", "New files").
bool in_deliverables_table(const Document& doc, const CodeSpan& c, const RuleSet& r) {
  if (doc.role(r) != r.plan_role || r.deliverable_headers.empty()) return false;
  for (const auto& t : doc.outline.tables)
    for (const auto& row : t.rows) {
      if (row.empty() || row.front().pos.line != c.pos.line) continue;
      std::size_t col = 0;
      for (std::size_t k = 0; k < row.size(); ++k)
        if (row[k].pos.col <= c.pos.col) col = k;
      auto names = [&](const std::string& h) {
        for (const auto& w : r.deliverable_headers)
          if (find_term(h, w) != std::string::npos) return true;
        return false;
      };
      if ((col < t.header.size() && names(t.header[col].text)) || (!t.header.empty() && names(t.header.front().text)))
        return true;
    }
  return false;
}

/// A code span naming a folder or file of another checkout: path-shaped,
/// and its first segment is neither a folder of this repository nor `..`
/// (`shared/stinkytofu/`, `ROCm/llvm-project@amd-staging`).
bool foreign_path(const std::string& text, const Repo& repo, const RuleSet& r) {
  const std::string p = path_candidate(text);
  if (p.empty()) return false;
  const std::string first = p.substr(0, p.find('/'));
  return first != ".." && first != r.generated_dir && !repo.is_path_root(first);
}

bool any_word(const std::string& text, const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (find_term(text, w) != std::string::npos) return true;
  return false;
}

}  // namespace

void check_links(const Summary& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const Repo& repo = ctx.repo;
  const bool doc_inside = repo.inside(doc.abs);
  bool links_dashboard = false;

  for (const auto& l : doc.links) {
    LinkTarget t = split_link(l.url, r);
    if (t.external || l.url.empty()) continue;
    if (t.file.empty()) {  // same-document anchor
      if (!t.anchor.empty() && !doc.has_slug(t.anchor))
        sink.report("anchor.broken-anchor", l.pos, "no heading of this document has the anchor `#" + t.anchor + "`");
      continue;
    }
    const fs::path target = resolve_link(doc.abs, t.file, repo);
    if (!repo.inside(target)) {
      sink.report("anchor.outside-root", l.pos,
                  "link `" + l.url + "` resolves outside the repository root");
      continue;
    }
    if (!repo.resolves_inside(target)) {
      sink.report("anchor.outside-root", l.pos,
                  "link `" + l.url + "` resolves outside the repository root through a symlink");
      continue;
    }
    const bool generated = is_generated(target, ctx);
    if (!repo.exists(target)) {
      if (generated)
        sink.report("anchor.generated-missing", l.pos,
                    "generated dashboard `" + repo.display(target) + "` does not exist");
      else
        sink.report("anchor.broken-link", l.pos, "link `" + l.url + "` does not resolve: no file `" +
                                                      repo.display(target) + "`");
      continue;
    }
    if (is_markdown(target)) {
      if (generated) {
        links_dashboard = true;
      } else if (ctx.repo.is_under(target, ctx.repo.audit_root())) {
        // A dashboard recognised by its own generated marker.
        const Summary* other = target == doc.abs ? &doc : ctx.lookup(target);
        if (other && other->generated) links_dashboard = true;
      }
    }
    if (!t.anchor.empty() && is_markdown(target)) {
      const Summary* other = target == doc.abs ? &doc : ctx.lookup(target);
      if (other && other->parsed && !other->has_slug(t.anchor))
        sink.report("anchor.broken-anchor", l.pos,
                    "`" + repo.display(target) + "` has no heading with the anchor `#" + t.anchor + "`");
    }
  }

  const std::string& role = doc.role;
  if (doc.authored && doc_inside &&
      std::find(r.status_roles.begin(), r.status_roles.end(), role) != r.status_roles.end() && !links_dashboard) {
    sink.report("anchor.dashboard-link", doc.role_pos,
                "status-surface doc (" + role + ") links no generated dashboard under `" +
                    repo.display(repo.generated_root()) + "/`; its numbers must trace to one");
  }
}

void check_paths(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const Repo& repo = ctx.repo;
  bool checked = true;
  if (const std::string rel = repo.audit_relative(doc.abs); !rel.empty())
    for (const auto& g : r.unchecked_path_docs)
      if (glob_match(g, rel)) checked = false;

  // Paths that do not resolve. A path the text introduces as planned or gone
  // ("New `x/`", "**Deleted:** `y`", "move ... toward `tests/compiler/`") is
  // not claimed to exist — nor is any other mention of that path in the doc,
  // nor a path below it; nor is a path in a plan's deliverables table. Every
  // other unresolved path is reported.
  struct Missing {
    const CodeSpan* span;
    std::string path;
    bool generated;
  };
  std::vector<Missing> missing;
  std::set<std::string> intended_paths;
  // A document that pins another repository at a ref (`ROCm/llvm-project@amd-staging`)
  // was written against that repository: its unresolved paths are that
  // repository's, not claims about this one.
  bool pins_repository = false;
  for (const auto& c : doc.outline.code_spans) {
    const std::string t = trim(c.text);
    const std::size_t at = t.find('@'), slash = t.find('/');
    if (at != std::string::npos && slash != std::string::npos && slash < at && at + 1 < t.size() &&
        foreign_path(t.substr(0, at), repo, r))
      pins_repository = true;
  }
  for (const auto& c : doc.outline.code_spans) {
    if (!checked) break;
    const std::string p = path_candidate(c.text);
    if (p.empty()) continue;
    const std::string first = p.substr(0, p.find('/'));
    // A path may be written from the doc's folder, the repository root, or
    // (generated/...) the audit root; it resolves when any reading exists.
    const bool generated = first == r.generated_dir;
    if (first != ".." && !generated && !repo.is_path_root(first)) continue;  // not a repository path (`dY/dX`)
    std::vector<fs::path> readings;
    if (generated) readings.push_back(Repo::join(repo.audit_root(), p));
    readings.push_back(Repo::sibling(doc.abs, p));
    if (first != "..") readings.push_back(Repo::join(repo.root(), p));
    if (!repo.inside(readings.front())) {
      sink.report("anchor.outside-root", c.pos, "path `" + c.text + "` resolves outside the repository root");
      continue;
    }
    // The reading a reader lands on: the first that exists, else (when none
    // does) any whose real path leaves the root. Either way a symlink out of
    // the repository (`src/etclink/passwd` with `src/etclink -> /etc`) is
    // reported, never taken as a resolving path.
    const fs::path* landed = nullptr;
    for (const auto& t : readings)
      if (repo.inside(t) && repo.exists(t)) {
        landed = &t;
        break;
      }
    bool escapes = false;
    if (landed) {
      escapes = !repo.resolves_inside(*landed);
    } else {
      for (const auto& t : readings) escapes = escapes || (repo.inside(t) && !repo.resolves_inside(t));
    }
    if (escapes) {
      sink.report("anchor.outside-root", c.pos,
                  "path `" + c.text + "` resolves outside the repository root through a symlink");
      continue;
    }
    bool in_context = false;
    if (!landed && c.prose >= 0) {
      // "> [`docs/reference/isa/rdna/`](...) ... Regenerate with
      // `tools/build_archive.py`": a path read from a folder its block names
      // before it.
      for (const auto& o : doc.outline.code_spans) {
        if (o.prose != c.prose || o.offset >= c.offset) continue;
        const std::string base = path_candidate(o.text);
        if (base.empty()) continue;
        for (const fs::path& dir : {Repo::sibling(doc.abs, base), Repo::join(repo.root(), base)}) {
          std::error_code ec;
          if (repo.inside(dir) && fs::is_directory(dir, ec) && repo.exists(Repo::join(dir, p)) &&
              repo.resolves_inside(Repo::join(dir, p)))
            in_context = true;
        }
        if (in_context) break;
      }
    }
    if (landed || in_context) continue;
    if (pins_repository) continue;
    if (any_word(lead_in(doc, c), r.path_intent_words)) {
      intended_paths.insert(p);
      continue;
    }
    missing.push_back(Missing{&c, p, generated});
  }
  // A path under a planned one (`src/planned/lower.cc` after "New
  // `src/planned/`") is planned too.
  auto under_intended = [&](const std::string& p) {
    for (const auto& i : intended_paths) {
      std::string dir = i;
      while (!dir.empty() && dir.back() == '/') dir.pop_back();
      if (p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/')) return true;
    }
    return false;
  };
  for (const auto& m : missing) {
    if (under_intended(m.path) || in_deliverables_table(doc, *m.span, r)) continue;
    if (m.generated)
      sink.report("anchor.generated-missing", m.span->pos,
                  "generated dashboard `" + m.path + "` does not exist under `" + repo.display(repo.generated_root()) + "`");
    else
      sink.report("anchor.broken-path", m.span->pos, "repository path `" + m.path + "` does not exist");
  }
}

}  // namespace fusecert::docaudit
