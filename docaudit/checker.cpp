#include "docaudit/checker.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "docaudit/document.h"
#include "docaudit/summary.h"
#include "docaudit/repo.h"
#include "docaudit/rules/rules.h"
#include "docaudit/suppression.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

/// Runs fn(i) for i in [0, n) on `jobs` threads.
template <class Fn>
void parallel_for(std::size_t n, unsigned jobs, Fn fn) {
  if (n == 0) return;
  jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(n)));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

/// `p` (a path's string) ends in one of the configured extensions, read as
/// fs::path::extension reads it: from the last `.` of the file name, unless
/// that `.` opens the name.
bool has_extension(std::string_view p, const RuleSet& rules) {
  const std::string_view name = p.substr(p.rfind('/') + 1);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || name == "..") return false;
  const std::string e = lower_ascii(name.substr(dot));
  for (const auto& x : rules.extensions)
    if (e == lower_ascii(x)) return true;
  return false;
}

/// The summaries of every document the run reads: the checked ones (added
/// once their own rules have run) and those loaded on demand (indexes and
/// link targets outside the checked set, parsed once and summarized), shared
/// by all threads.
class SummaryCache {
 public:
  SummaryCache(const Repo& repo, const RuleSet& rules) : repo_(repo), rules_(rules) {}
  void add(std::unique_ptr<Summary> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    docs_[s->abs.native()] = std::move(s);
  }
  /// `abs`: the string of a normal absolute path.
  const Summary* get(std::string_view abs) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = docs_.find(abs);
    if (it == docs_.end()) {
      lock.unlock();
      std::unique_ptr<Summary> s;
      std::error_code ec;
      const fs::path path(abs);
      if (fs::is_regular_file(path, ec))
        s = std::make_unique<Summary>(summarize(load_document(path, repo_, rules_), rules_, repo_));
      lock.lock();
      it = docs_.emplace(std::string(abs), std::move(s)).first;  // keeps the first if another thread won
    }
    const Summary* s = it->second.get();
    return s && s->parsed ? s : nullptr;
  }

 private:
  const Repo& repo_;
  const RuleSet& rules_;
  std::mutex mutex_;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::unique_ptr<Summary>, Hash, std::equal_to<>> docs_;  ///< by normal path
};

}  // namespace

std::size_t CheckResult::errors() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const diag::Diagnostic& f) { return f.severity == diag::Severity::Error; }));
}
std::size_t CheckResult::warnings() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const diag::Diagnostic& f) { return f.severity == diag::Severity::Warning; }));
}

namespace {

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool is_ignored(const std::string& rel, const std::vector<std::string>* ignored) {
  if (!ignored) return false;
  for (const auto& g : *ignored) {
    if (g.empty()) continue;
    if (g.back() == '/' ? rel.compare(0, g.size(), g) == 0 : rel == g) return true;
  }
  return false;
}

/// Files below `dir` (recursively, folder symlinks not followed) for which
/// `keep(path)` holds.
template <class Keep>
void walk(const fs::path& dir, const std::string& shown, std::set<fs::path>& out, Keep keep) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw UnreadablePath(shown, "cannot list: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw UnreadablePath(shown, "cannot list: " + ec.message());
    std::error_code e2;
    const fs::file_status ls = it->symlink_status(e2);
    if (fs::is_directory(ls)) continue;  // recursed into; folder symlinks are not followed
    // Files and file symlinks (a dangling or looping symlink is kept: reading
    // it is a finding).
    const fs::path file = Repo::normal(it->path());
    if (keep(file)) out.insert(file);
  }
}

}  // namespace

std::vector<fs::path> collect_documents(const std::vector<fs::path>& paths, const RuleSet& rules, const Repo& repo,
                                        const std::vector<std::string>* ignored, std::set<fs::path>* skipped) {
  std::set<fs::path> out;
  auto skip = [&](const fs::path& file) {  // excluded or generated by its path
    if (!repo.excluded(file.native()) && !repo.generated(file.native())) return false;
    if (skipped) skipped->insert(file);
    return true;
  };
  auto dropped = [&](const fs::path& file) {
    return (repo.inside(file.native()) && is_ignored(repo.display(file.native()), ignored)) || skip(file);
  };
  for (const auto& p : paths) {
    const fs::path abs = Repo::normal(p);
    std::error_code ec;
    const fs::file_status lst = fs::symlink_status(abs, ec);
    if (ec || !fs::exists(lst)) {
      if (!has_glob(p.generic_string())) throw UnreadablePath(p.string(), "no such file or folder");
      // A glob: walk from its last folder without glob characters.
      fs::path base;
      for (const auto& seg : abs) {
        if (has_glob(seg.string())) break;
        base /= seg;
      }
      const std::string pattern = abs.lexically_relative(base).generic_string();
      std::set<fs::path> matched;
      if (fs::is_directory(base, ec))
        walk(base, p.string(), matched, [&](const fs::path& f) {
          return glob_match(pattern, f.lexically_relative(base).generic_string()) && !dropped(f);
        });
      if (matched.empty()) throw UsageError(p.string() + ": no file matches this glob");
      out.insert(matched.begin(), matched.end());
      continue;
    }
    const fs::file_status st = fs::status(abs, ec);
    if (!ec && fs::is_directory(st)) {
      walk(abs, p.string(), out, [&](const fs::path& f) { return has_extension(f.native(), rules) && !dropped(f); });
    } else if (!skip(abs)) {
      out.insert(abs);  // a file (or a symlink loop: reported as input.unreadable)
    }
  }
  return {out.begin(), out.end()};
}

namespace {
/// `git -C root ARGS...`: its exit status (127 when git cannot be started)
/// and its standard output in `text` (standard error discarded).
int git_output(const fs::path& root, std::vector<std::string> args, std::string& text) {
  int fd[2];
  if (pipe(fd) != 0) throw UsageError("pipe failed while asking git");
  const std::string r = root.string();
  args.insert(args.begin(), {"git", "-C", r});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "git", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {  // git is not installed
    close(fd[0]);
    return 127;
  }
  char buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a < text.size()) {
    std::size_t b = text.find('\0', a);
    if (b == std::string::npos) b = text.size();
    if (b > a) out.push_back(text.substr(a, b - a));
    a = b + 1;
  }
  return out;
}
}  // namespace

std::vector<std::string> git_ignored(const fs::path& root) {
  std::error_code ec;
  if (!fs::exists(root / ".git", ec)) return {};
  std::string text;
  const int st = git_output(root, {"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"}, text);
  // 127: git is not installed; 128: `.git` is there but is no repository
  // (a bare marker folder). Either way there are no git ignore rules.
  if (st == 127 || st == 128) return {};
  if (st != 0)
    throw UsageError(root.string() + ": `git ls-files` failed (exit " + std::to_string(st) +
                     "), so .gitignore cannot be honoured");
  return split_nul(text);
}

std::vector<fs::path> git_deleted(const fs::path& root) {
  std::error_code ec;
  if (!fs::exists(root / ".git", ec)) return {};
  // Any failure below is an error (exit 2), never "nothing was deleted": an
  // empty answer would let `git rm -r src` turn a document's `src/x.py` into
  // "not a path", and the run (CI's, or the pre-commit framework's) pass a
  // tree whose path is broken. Failing the run is what fails closed.
  auto failed = [&](const std::string& what, int st) {
    return UsageError(root.string() + ": `git " + what + "` failed (" +
                      (st == 127 ? std::string("git cannot be run") : "exit " + std::to_string(st)) +
                      "), so the paths this repository deleted cannot be read; they keep their folders path roots "
                      "(anchor.broken-path), so the run cannot be checked without them");
  };
  std::string top;
  const int st = git_output(root, {"rev-parse", "--show-toplevel"}, top);
  if (st == 127) throw failed("rev-parse", st);
  // 128: `.git` is there but is no repository (a bare marker folder). A
  // top level elsewhere: git found an enclosing repository, not this one's.
  if (st == 128) return {};
  if (st != 0) throw failed("rev-parse --show-toplevel", st);
  while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
  if (!fs::equivalent(fs::path(top), root, ec)) return {};
  auto paths = [](const std::string& text, std::vector<fs::path>& out) {
    for (auto& p : split_nul(text)) {
      while (!p.empty() && p.front() == '\n') p.erase(0, 1);
      if (!p.empty()) out.emplace_back(p);
    }
  };
  std::vector<fs::path> out;
  std::string text;
  // No HEAD (a fresh repository, nothing committed): no history deleted
  // anything. `--verify -q` exits 1 exactly then.
  const int head = git_output(root, {"rev-parse", "--verify", "-q", "HEAD"}, text);
  if (head != 0 && head != 1) throw failed("rev-parse --verify HEAD", head);
  if (head == 0) {
    text.clear();
    // Committed deletions: what CI's checkout sees.
    if (const int rc = git_output(root, {"log", "-z", "--format=", "--name-only", "--no-renames", "--diff-filter=D", "HEAD", "--"}, text);
        rc != 0)
      throw failed("log --diff-filter=D", rc);
    paths(text, out);
  }
  // Staged deletions: what the commit being made deletes. The pre-commit
  // framework runs `fusecert docs --whole-tree` in the work tree before the
  // commit exists, so history does not hold them yet (issue #18 acceptance
  // F2); in CI's clean checkout there are none.
  text.clear();
  if (const int rc = git_output(root, {"diff", "--cached", "-z", "--name-only", "--no-renames", "--diff-filter=D", "--"}, text);
      rc != 0)
    throw failed("diff --cached --diff-filter=D", rc);
  paths(text, out);
  return out;
}

namespace {

/// Live docs reachable from the root index: links of live docs, and the
/// files (or folders, whose index) they name in backticks from their own
/// folder, followed breadth-first. Loads (through the cache) every doc it
/// reaches. Linear in the links and code spans of the docs it reaches: links
/// were resolved when their documents were summarized (in parallel), a code
/// span is resolved as a string (no fs::path is built for it), each is looked
/// up in a hash set, and each distinct target is judged (and stat'ed) once.
std::unordered_set<std::string> reachable(const RuleSet& base, const Repo& repo, SummaryCache& cache) {
  std::unordered_set<std::string> seen;
  const std::string root = Repo::join(repo.audit_root(), base.root_index);
  const Summary* start = cache.get(root);
  if (!start) return seen;
  std::vector<const Summary*> queue{start};
  seen.insert(root);
  // Every target is judged once: whether it is a live doc does not change
  // during the walk, and thousands of documents link the same few targets.
  std::unordered_set<std::string> judged{root}, named;
  auto visit = [&](const std::string& target) {
    if (judged.count(target)) return;
    const std::string& t = *judged.insert(target).first;
    if (!repo.authored(t) || !has_extension(t, base)) return;
    const Summary* d = cache.get(t);
    if (!d || d->generated) return;
    seen.insert(t);
    queue.push_back(d);
  };
  while (!queue.empty()) {
    const Summary* d = queue.back();
    queue.pop_back();
    for (const auto& l : d->links)
      if (!l.target.empty()) visit(l.target);
    // Names in backticks: a file or folder (its index) from the doc's folder.
    for (const auto& c : d->code_spans) {
      const std::string& s = c.text;
      if (s.empty() || s.find_first_of(" \t*?<>|") != std::string::npos || s.find("://") != std::string::npos) continue;
      std::string target = Repo::sibling(d->abs, s);
      if (named.count(target)) continue;
      const std::string& t = *named.insert(std::move(target)).first;
      std::error_code ec;
      if (fs::is_directory(fs::path(t), ec)) {
        const fs::path idx = folder_index(t, base.for_path(repo.display(t + "/x.md")), repo);
        if (!idx.empty()) visit(idx.native());
      } else {
        visit(t);
      }
    }
  }
  return seen;
}

/// Does `doc` link `target`, or name it in backticks (as a path from its
/// folder, the repository root or the audit root, or by file name in an index)?
bool refers_to(const Summary& doc, const fs::path& target, const RuleSet& rules, const Repo& repo) {
  const std::string& want = target.native();
  for (const auto& l : doc.links)
    if (l.target == want) return true;
  const std::string fname = target.filename().string();
  const bool index = is_index(doc.abs, rules);
  for (const auto& c : doc.code_spans) {
    const std::string& s = c.text;
    if (s.empty()) continue;
    if (index && s == fname && target.parent_path() == doc.abs.parent_path()) return true;
    if (s.find('/') == std::string::npos) continue;
    if (Repo::sibling(doc.abs, s) == want || Repo::join(repo.root(), s) == want ||
        Repo::join(repo.audit_root(), s) == want)
      return true;
  }
  return false;
}

bool routing_or_link_rule(const std::string& id) {
  return id.rfind("routing.", 0) == 0 || id.rfind("anchor.", 0) == 0;
}

}  // namespace

CheckResult run_check(const RuleSet& rules, const CheckOptions& opt) {
  std::error_code ec;
  if (!fs::is_directory(opt.repo_root, ec)) throw UsageError(opt.repo_root.string() + ": repository root is not a folder");
  // The folders a change deletes stay path roots: those the caller names
  // (--referrers-of-removed, the hook's staged deletions) and those git's
  // history deleted (CI's checkout), so `git rm -r src` cannot turn a
  // document's `src/x.py` into "not a path".
  std::vector<fs::path> removed_roots = opt.removed;
  for (auto& p : git_deleted(opt.repo_root)) removed_roots.push_back(std::move(p));
  const Repo repo(opt.repo_root, rules, removed_roots);
  std::vector<fs::path> paths = opt.paths;
  const bool tree_exists = fs::is_directory(repo.audit_root(), ec);
  if ((paths.empty() && opt.removed.empty() && !opt.with_tree) || (opt.with_tree && opt.require_tree)) {
    if (!tree_exists && opt.with_tree)
      throw UsageError("--whole-tree: the audit root `" + repo.audit_root().string() +
                       "` does not exist (a configuration file is in use, so the repository declares one)");
    if (!tree_exists)
      throw UsageError("no PATH given and the audit root `" + repo.audit_root().string() + "` does not exist");
  }
  if ((paths.empty() && opt.removed.empty()) || opt.with_tree) {
    if (tree_exists) paths.push_back(repo.audit_root());
  }
  const std::vector<std::string> ignored = opt.respect_gitignore ? git_ignored(repo.root()) : std::vector<std::string>{};
  std::set<fs::path> skipped;
  std::vector<fs::path> files = collect_documents(paths, rules, repo, &ignored, &skipped);
  const unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  auto rules_of = [&](const fs::path& abs) -> const RuleSet& {
    return repo.inside(abs.native()) ? rules.for_path(repo.display(abs.native())) : rules;
  };

  SummaryCache cache(repo, rules);

  // Referrers of removed paths: every live doc of the audit root that links
  // or names one gets the routing and link rules. The docs a removed doc
  // linked may have lost their only route, and what it linked can no longer
  // be read: every other live doc of the audit root gets routing.unrouted.
  std::set<fs::path> referrers, reroute;
  if (!opt.removed.empty() && fs::is_directory(repo.audit_root(), ec)) {
    std::vector<fs::path> removed;
    for (const auto& r : opt.removed) removed.push_back(Repo::normal(r.is_absolute() ? r : repo.root() / r));
    const std::vector<fs::path> tree = collect_documents({repo.audit_root()}, rules, repo, &ignored);
    std::vector<char> refers(tree.size(), 0);
    parallel_for(tree.size(), jobs, [&](std::size_t i) {
      const Summary* d = cache.get(tree[i].native());
      if (!d || !d->authored) return;
      for (const auto& r : removed)
        if (refers_to(*d, r, rules_of(tree[i]), repo)) refers[i] = 1;
    });
    for (std::size_t i = 0; i < tree.size(); ++i) {
      if (std::binary_search(files.begin(), files.end(), tree[i])) continue;
      (refers[i] ? referrers : reroute).insert(tree[i]);
    }
  }

  // 1. Load and parse every document, run its own rules on its full parse
  // and read its suppressions, then keep only its summary: the full parse
  // (prose, tables, comments) of one document at a time per thread is alive.
  // A referrer gets only its path rules here (its link rules run in step 4).
  struct Pending {
    std::vector<diag::Diagnostic> input, found, problems;
    std::vector<Suppression> sups;
    bool referrer = false;
    bool reroute = false;  ///< only routing.unrouted (a doc a removed doc may have routed)
  };
  std::vector<fs::path> order = files;
  order.insert(order.end(), referrers.begin(), referrers.end());
  order.insert(order.end(), reroute.begin(), reroute.end());
  const std::size_t first_reroute = files.size() + referrers.size();
  std::vector<Pending> pending(order.size());
  std::vector<std::unique_ptr<Summary>> summaries(order.size());
  parallel_for(order.size(), jobs, [&](std::size_t i) {
    const RuleSet& rs = rules_of(order[i]);
    Pending& p = pending[i];
    p.referrer = i >= files.size();
    p.reroute = i >= first_reroute;
    const Document d = load_document(order[i], repo, rs);
    summaries[i] = std::make_unique<Summary>(summarize(d, rs, repo));
    if (!p.referrer) p.input = d.input_findings;
    if (!d.parsed || d.generated) return;
    const Context ctx{rs, repo, opt.today, nullptr, nullptr, nullptr};
    Sink sink(rs, d.display, p.found);
    if (!p.referrer) {
      check_frontmatter(d, ctx, sink);
      check_lifecycle(d, ctx, sink);
    }
    if (!p.reroute) check_paths(d, ctx, sink);
    if (!p.referrer) check_hygiene(d, ctx, sink);
    p.sups = read_suppressions(d.outline.comments, rs, d.display, p.problems);
  });
  std::vector<const Summary*> checked;
  std::vector<Pending*> checked_pending;
  for (std::size_t i = 0; i < order.size(); ++i) {
    // A referrer that no longer parses is not checked.
    if (pending[i].referrer && !summaries[i]->parsed) continue;
    checked.push_back(summaries[i].get());
    checked_pending.push_back(&pending[i]);
    cache.add(std::move(summaries[i]));
  }

  // 2. Establish the prover's answers once for every question (a
  // proposition id at the parameters its row states) any row asks.
  std::set<Question> questions;
  for (std::size_t i = 0; i < checked.size(); ++i) {
    if (checked_pending[i]->referrer) continue;
    const Summary* d = checked[i];
    const RuleSet& rs = rules_of(d->abs);
    if (!rs.enabled("claim.proposition-verdict") && !rs.enabled("claim.proposition-unknown") &&
        !rs.enabled("claim.proposition-parameters"))
      continue;
    for (const auto& row : d->propositions)
      if (row.params_error.empty()) questions.insert(Question{row.id, row.params});
  }
  std::map<Question, OracleAnswer> verdicts;
  if (!questions.empty()) {
    if (!opt.oracle) throw UsageError("a document has a proposition verdict table, but no prover is available");
    verdicts = opt.oracle->establish(questions);
  }

  // 3. What the root index reaches through live docs (routing.unrouted).
  const std::unordered_set<std::string> routed = reachable(rules, repo, cache);

  // 4. Run the cross-document rules per document on the summaries, each
  // with its own rule set, then its suppressions over all its findings.
  std::vector<std::vector<diag::Diagnostic>> per_doc(checked.size());
  parallel_for(checked.size(), jobs, [&](std::size_t i) {
    const Summary& d = *checked[i];
    Pending& p = *checked_pending[i];
    const RuleSet& rs = rules_of(d.abs);
    const Context ctx{rs, repo, opt.today, [&](std::string_view path) { return cache.get(path); }, &verdicts, &routed};
    std::vector<diag::Diagnostic>& out = per_doc[i];
    const bool referrer = p.referrer;
    out = std::move(p.input);
    if (!d.parsed || d.generated) return;
    std::vector<diag::Diagnostic> found = std::move(p.found);
    Sink sink(rs, d.display, found);
    check_routing(d, ctx, sink);
    if (!p.reroute) check_links(d, ctx, sink);
    if (!referrer) check_propositions(d, ctx, sink);
    std::vector<diag::Diagnostic>& problems = p.problems;
    std::vector<Suppression>& sups = p.sups;
    if (referrer) {
      const bool reroute_only = p.reroute;
      found.erase(std::remove_if(found.begin(), found.end(),
                                 [reroute_only](const diag::Diagnostic& f) {
                                   return reroute_only ? f.rule != "routing.unrouted" : !routing_or_link_rule(f.rule);
                                 }),
                  found.end());
      apply_suppressions(sups, found, rs, d.display);
      // A referrer's other directives are not this run's business.
      found.erase(std::remove_if(found.begin(), found.end(), [](const diag::Diagnostic& f) { return f.rule == "suppress.unused"; }),
                  found.end());
      out.insert(out.end(), found.begin(), found.end());
      return;
    }
    apply_suppressions(sups, found, rs, d.display);
    out.insert(out.end(), found.begin(), found.end());
    out.insert(out.end(), problems.begin(), problems.end());
  });

  CheckResult res;
  for (auto& v : per_doc) res.findings.insert(res.findings.end(), v.begin(), v.end());
  // A file generated by its marker was read only to find that out: it is
  // skipped, as one generated by its path is.
  res.skipped = skipped.size();
  for (const Summary* d : checked) {
    res.bytes += d->bytes;
    ++(d->generated ? res.skipped : res.files);
  }

  // 5. Rule-set level: retained snapshots must still exist.
  if (rules.enabled("lifecycle.retained-missing"))
    for (const auto& kept : rules.retained)
      if (!repo.exists(Repo::join(repo.root(), kept.path)))
        res.findings.push_back(finding(repo.display(Repo::normal(kept.source).native()), kept.line, kept.col, rules.severity("lifecycle.retained-missing"),
                                       "lifecycle.retained-missing",
                                       "retained snapshot `" + kept.path + "` no longer exists; remove the entry"));
  // 6. An `overrides:` entry whose globs match no document of this run nor
  // of the audit root changes nothing: a misspelt or moved folder, silently
  // lost unless reported. The tree is the audit root's whatever the PATHs,
  // so the hook (files) and CI (the tree) agree.
  if (rules.enabled("config.override-unmatched") && rules.override_count() > 0) {
    std::set<fs::path> docs(files.begin(), files.end());
    if (tree_exists)
      for (const auto& f : collect_documents({repo.audit_root()}, rules, repo, &ignored)) docs.insert(f);
    std::vector<std::string> rels;
    for (const auto& f : docs)
      if (repo.inside(f.native())) rels.push_back(repo.display(f.native()));
    for (const auto& site : rules.override_sites()) {
      auto matches = [&](const std::string& g) {
        return std::any_of(rels.begin(), rels.end(), [&](const std::string& rel) { return glob_match(g, rel); });
      };
      if (std::any_of(site.globs.begin(), site.globs.end(), [&](const OverrideSite::Glob& g) { return matches(g.glob); }))
        continue;
      const std::string file = repo.display(Repo::normal(site.file).native());
      diag::Diagnostic f = finding(file, site.line, site.col, rules.severity("config.override-unmatched"),
                                   "config.override-unmatched",
                                   "`" + site.shown + "` matches no document of this run or of the audit root `" +
                                       repo.display(repo.audit_root().native()) + "`, so it changes nothing");
      for (const auto& g : site.globs)
        f.note({file, static_cast<unsigned>(g.line), static_cast<unsigned>(g.col)}, "`" + g.glob + "` matches no document");
      res.findings.push_back(std::move(f));
    }
  }
  sort_findings(res.findings);
  return res;
}

}  // namespace fusecert::docaudit
