#include "docaudit/checker.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "docaudit/document.h"
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

bool has_extension(const fs::path& p, const RuleSet& rules) {
  const std::string e = lower_ascii(p.extension().string());
  for (const auto& x : rules.extensions)
    if (e == lower_ascii(x)) return true;
  return false;
}

/// Documents loaded on demand (indexes and link targets outside the checked
/// set), parsed once, shared by all threads.
class DocumentCache {
 public:
  DocumentCache(const Repo& repo, const RuleSet& rules) : repo_(repo), rules_(rules) {}
  void add(std::unique_ptr<Document> d) { docs_[d->abs] = std::move(d); }
  const Document* get(const fs::path& abs) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = docs_.find(abs);
    if (it == docs_.end()) {
      lock.unlock();
      std::unique_ptr<Document> d;
      std::error_code ec;
      if (fs::is_regular_file(abs, ec)) d = std::make_unique<Document>(load_document(abs, repo_, rules_));
      lock.lock();
      it = docs_.emplace(abs, std::move(d)).first;  // keeps the first if another thread won
    }
    const Document* d = it->second.get();
    return d && d->parsed ? d : nullptr;
  }

 private:
  const Repo& repo_;
  const RuleSet& rules_;
  std::mutex mutex_;
  std::map<fs::path, std::unique_ptr<Document>> docs_;
};

}  // namespace

std::size_t CheckResult::errors() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const Finding& f) { return f.severity == Severity::Error; }));
}
std::size_t CheckResult::warnings() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const Finding& f) { return f.severity == Severity::Warning; }));
}

std::vector<fs::path> collect_documents(const std::vector<fs::path>& paths, const RuleSet& rules, const Repo& repo) {
  std::set<fs::path> out;
  for (const auto& p : paths) {
    const fs::path abs = Repo::normal(p);
    std::error_code ec;
    const fs::file_status lst = fs::symlink_status(abs, ec);
    if (ec || !fs::exists(lst)) throw UsageError(p.string() + ": no such file or folder");
    const fs::file_status st = fs::status(abs, ec);
    if (!ec && fs::is_directory(st)) {
      fs::recursive_directory_iterator it(abs, fs::directory_options::skip_permission_denied, ec), end;
      if (ec) throw UsageError(p.string() + ": cannot list: " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) throw UsageError(p.string() + ": cannot list: " + ec.message());
        std::error_code e2;
        const fs::file_status ls = it->symlink_status(e2);
        if (fs::is_directory(ls)) continue;  // recursed into; folder symlinks are not followed
        // Files and file symlinks with a configured extension (a dangling or
        // looping symlink is kept: reading it is a finding).
        if (!has_extension(it->path(), rules)) continue;
        const fs::path file = Repo::normal(it->path());
        if (!repo.excluded(file)) out.insert(file);
      }
    } else {
      out.insert(abs);  // a file (or a symlink loop: reported as input.unreadable)
    }
  }
  return {out.begin(), out.end()};
}

CheckResult run_check(const RuleSet& rules, const CheckOptions& opt) {
  std::error_code ec;
  if (!fs::is_directory(opt.repo_root, ec)) throw UsageError(opt.repo_root.string() + ": repository root is not a folder");
  const Repo repo(opt.repo_root, rules);
  std::vector<fs::path> paths = opt.paths;
  if (paths.empty()) {
    if (!fs::is_directory(repo.audit_root(), ec))
      throw UsageError("no PATH given and the audit root `" + repo.audit_root().string() + "` does not exist");
    paths.push_back(repo.audit_root());
  }
  const std::vector<fs::path> files = collect_documents(paths, rules, repo);
  const unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());

  // 1. Load and parse every document.
  std::vector<std::unique_ptr<Document>> docs(files.size());
  parallel_for(files.size(), jobs, [&](std::size_t i) {
    docs[i] = std::make_unique<Document>(load_document(files[i], repo, rules));
  });
  DocumentCache cache(repo, rules);
  std::vector<const Document*> checked;
  for (auto& d : docs) {
    checked.push_back(d.get());
    cache.add(std::move(d));
  }

  // 2. Establish the prover's verdicts once for every proposition id named.
  std::set<std::string> ids;
  for (const Document* d : checked)
    for (const auto& row : proposition_rows(*d, rules)) ids.insert(row.id);
  std::map<std::string, OracleAnswer> verdicts;
  if (!ids.empty() && (rules.enabled("claim.proposition-verdict") || rules.enabled("claim.proposition-unknown"))) {
    if (!opt.oracle) throw UsageError("a document has a proposition verdict table, but no prover is available");
    verdicts = opt.oracle->establish(ids);
  }

  // 3. Run the rule families per document.
  const Context ctx{rules, repo, opt.today, [&](const fs::path& p) { return cache.get(p); }, &verdicts};
  std::vector<std::vector<Finding>> per_doc(checked.size());
  parallel_for(checked.size(), jobs, [&](std::size_t i) {
    const Document& d = *checked[i];
    std::vector<Finding>& out = per_doc[i];
    out = d.input_findings;
    if (!d.parsed) return;
    std::vector<Finding> found;
    Sink sink(rules, d.display, found);
    check_frontmatter(d, ctx, sink);
    check_routing(d, ctx, sink);
    check_lifecycle(d, ctx, sink);
    check_anchoring(d, ctx, sink);
    check_hygiene(d, ctx, sink);
    check_propositions(d, ctx, sink);
    std::vector<Finding> problems;
    std::vector<Suppression> sups = read_suppressions(d.outline.comments, rules, d.display, problems);
    apply_suppressions(sups, found, rules, d.display);
    out.insert(out.end(), found.begin(), found.end());
    out.insert(out.end(), problems.begin(), problems.end());
  });

  CheckResult res;
  for (auto& v : per_doc) res.findings.insert(res.findings.end(), v.begin(), v.end());
  for (const Document* d : checked) res.bytes += d->bytes;
  res.files = checked.size();

  // 4. Rule-set level: retained snapshots must still exist.
  if (rules.enabled("lifecycle.retained-missing"))
    for (const auto& kept : rules.retained)
      if (!repo.exists(repo.root() / kept.path))
        res.findings.push_back(Finding{repo.display(Repo::normal(kept.source)), kept.line, kept.col, rules.severity("lifecycle.retained-missing"),
                                       "lifecycle.retained-missing",
                                       "retained snapshot `" + kept.path + "` no longer exists; remove the entry"});
  sort_findings(res.findings);
  return res;
}

}  // namespace fusecert::docaudit
