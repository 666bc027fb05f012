// `fusecert docs`: the audit-document linter (docaudit/). Thin CLI: options,
// rule-set discovery, rendering, exit status (support/diag/exit_code.h:
// 0 clean, 1 findings, 2 usage or configuration error).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "docaudit/checker.h"
#include "docaudit/prover_verdicts.h"
#include "docaudit/render.h"
#include "docaudit/ruleset.h"
#include "docaudit/text.h"
#include "support/diag/render.h"
#include "support/files.h"
#include "support/repo_config.h"
#include "tools/fusecert/commands.h"

#ifndef FUSECERT_VERSION
#define FUSECERT_VERSION "0"
#endif

namespace fusecert::cli {
namespace {

namespace fs = std::filesystem;
namespace da = fusecert::docaudit;

struct DocsArgs {
  std::vector<std::string> paths;
  std::string repo_root, format = "text", config, today, removed_list;
  unsigned jobs = 0;
  unsigned timeout_ms = 20000;  ///< per solver query, for the verdict rows proved at run time (as prove's)
  bool reprove = false;      ///< ignore the verdicts proved at build time
  bool whole_tree = false;   ///< also check the whole audit root (the hook)
  bool today_given = false;  ///< --today was passed (an empty value is an error, not "today")
  bool print_config = false; ///< print the effective configuration instead of checking
};

/// The repository root: --repo-root, else the nearest folder above the first
/// path (or the current folder) holding `.git` or `.fusecert.yaml`, else the
/// current folder.
fs::path discover_root(const DocsArgs& a) {
  if (!a.repo_root.empty()) return a.repo_root;
  return support::find_repo_root(a.paths.empty() ? fs::path() : fs::path(a.paths.front()));
}

/// A configuration error at the file (line, column) its message starts with,
/// as docaudit's ConfigError names them (`x.yaml:3:5: unknown key …`), rule
/// input.config; about no file when the message names none that exists.
diag::Diagnostic config_error(const da::ConfigError& e) {
  const std::string what = e.what();
  static const std::regex at(R"(^(.+?)(?::([0-9]+))?(?::([0-9]+))?: (.*)$)");
  std::smatch m;
  std::error_code ec;
  if (std::regex_match(what, m, at) && fs::is_regular_file(m[1].str(), ec)) {
    diag::Diagnostic d = diag::error({m[1].str(), m[2].matched ? static_cast<unsigned>(std::stoul(m[2].str())) : 0u,
                                      m[3].matched ? static_cast<unsigned>(std::stoul(m[3].str())) : 0u},
                                     e.rule, m[4].str());
    if (e.first_line > 0)
      d.note({m[1].str(), static_cast<unsigned>(e.first_line), static_cast<unsigned>(e.first_col)},
             "the key's first occurrence");
    return d;
  }
  return diag::error({}, e.rule, "configuration: " + what);
}

int run_docs(const DocsArgs& a) {
  try {
    const fs::path root = discover_root(a);
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw da::UsageError(root.string() + ": repository root is not a folder");
    std::vector<fs::path> overrides;
    if (!a.config.empty()) {
      if (!fs::is_regular_file(a.config, ec)) {
        std::error_code ec2;
        throw da::UnreadablePath(a.config, !fs::exists(a.config, ec2) && !ec2 ? "no such file"
                                           : ec                             ? ec.message()
                                                                            : "not a regular file");
      }
      overrides.push_back(a.config);
    } else if (const fs::path cfg = support::repo_config_of(root); !cfg.empty()) {
      overrides.push_back(cfg);
    }
    const da::RuleSet rules = da::load_rule_set(da::default_rules_dir() / "default.yaml", overrides);
    if (a.print_config) {
      // ESLint's --print-config FILE: the set one document is checked with.
      if (a.paths.size() > 1) throw da::UsageError("--print-config takes at most one PATH (the document whose set to print)");
      std::string rel;
      if (!a.paths.empty()) {
        const fs::path p = fs::weakly_canonical(fs::absolute(a.paths.front()), ec);
        rel = fs::relative(p, fs::weakly_canonical(fs::absolute(root), ec), ec).generic_string();
        if (ec || rel.empty() || rel.rfind("..", 0) == 0)
          throw da::UsageError(a.paths.front() + ": not inside the repository root " + root.string());
      }
      std::cout << rules.effective_config(rel);
      std::cout.flush();
      return diag::code(diag::Exit::Clean);
    }

    da::CheckOptions opt;
    opt.repo_root = root;
    for (const auto& p : a.paths) opt.paths.emplace_back(p);
    opt.jobs = a.jobs;
    opt.with_tree = a.whole_tree;
    // A repository with a configuration file declares an audit tree: its
    // absence is then an error (as in CI's tree run), never a clean hook.
    opt.require_tree = a.whole_tree && !overrides.empty();
    if (!a.removed_list.empty()) {
      // NUL-separated (git diff -z), or one path a line.
      std::string text;
      try {
        text = support::read_file(a.removed_list);
      } catch (const std::exception& e) {
        throw da::UnreadablePath(a.removed_list, e.what());  // the --referrers-of-removed list
      }
      const char sep = text.find('\0') != std::string::npos ? '\0' : '\n';
      std::size_t at = 0;
      while (at < text.size()) {
        std::size_t end = text.find(sep, at);
        if (end == std::string::npos) end = text.size();
        if (end > at) opt.removed.emplace_back(text.substr(at, end - at));
        at = end + 1;
      }
      if (opt.removed.empty() && a.paths.empty() && !a.whole_tree) return 0;  // nothing removed, nothing named
    }
    if (!a.today_given) {
      opt.today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    } else {
      auto d = da::parse_iso_date(a.today);
      if (!d) throw da::UsageError("--today must be a real date written YYYY-MM-DD, got `" + a.today + "`");
      opt.today = std::chrono::sys_days(*d);
    }
    da::ProverVerdicts prover(!a.reprove, a.timeout_ms);
    opt.oracle = &prover;

    const da::CheckResult res = da::run_check(rules, opt);
    if (a.format == "json") {
      std::cout << da::render_json(res, FUSECERT_VERSION);
    } else if (a.format == "sarif") {
      std::cout << da::render_sarif(res, rules, FUSECERT_VERSION, fs::absolute(root));
    } else {
      std::cout << da::render_text(res, diag::TextRenderer(fs::absolute(root)));
    }
    std::cout.flush();
    return diag::code(res.findings.empty() ? diag::Exit::Clean : diag::Exit::Findings);
  } catch (const da::ConfigError& e) {
    report("fusecert docs", config_error(e));
    return diag::code(diag::Exit::InputError);
  } catch (const da::UnreadablePath& e) {
    report("fusecert docs", diag::unreadable(e.path, e.cause));
    return diag::code(diag::Exit::InputError);
  } catch (const da::UsageError& e) {
    return fail("fusecert docs", e.what());
  } catch (const std::exception& e) {
    return fail_with("fusecert docs", "input.internal", e.what());
  }
}

}  // namespace

void add_docs_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DocsArgs>();
  CLI::App* docs = app.add_subcommand("docs", "Check audit documents (Markdown + YAML frontmatter) against the rule set");
  docs->add_option("PATH", args->paths,
                   "Files, folders or globs (`docs/**/*.md`) to check (default: the audit root); excluded and git-ignored files are skipped");
  docs->add_option("--repo-root", args->repo_root, "Repository root (default: nearest folder with .git or .fusecert.yaml)");
  docs->add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json", "sarif"}));
  docs->add_option("--config", args->config, "Configuration file overriding the default rule set (.fusecert.yaml format)");
  CLI::Option* today =
      docs->add_option("--today", args->today, "Date to judge staleness against, YYYY-MM-DD (default: today, UTC)");
  docs->add_option("-j,--jobs", args->jobs, "Worker threads (default: all cores)");
  docs->add_flag("--reprove", args->reprove,
                 "Prove every proposition a verdict table names now, instead of taking the verdicts proved at build time");
  docs->add_option("--timeout-ms", args->timeout_ms,
                   "Per-query solver timeout in ms for the verdict rows proved at run time (rows with parameters; 0 = none); "
                   "a query that runs out is inconclusive");
  docs->add_flag("--whole-tree", args->whole_tree,
                 "Also check every document of the audit root, as a run with no PATH does (the pre-commit hook: the staged "
                 "files plus the unstaged documents a change can orphan or break); a missing audit root is nothing to check "
                 "unless a configuration file is in use");
  docs->add_flag("--print-config", args->print_config,
                 "Print the effective configuration (the defaults with .fusecert.yaml or --config merged, lists as replaced "
                 "or extended) as YAML and exit; with a PATH, the set that document is checked with, its overrides merged");
  docs->add_option("--referrers-of-removed", args->removed_list,
                   "File listing deleted or renamed-away paths (repository-relative; NUL- or newline-separated): "
                   "the routing and link rules also run on every live doc that refers to one, and routing.unrouted on every "
                   "other live doc of the audit root (with no PATH, only on those)");
  docs->callback([args, today, &exit_code] {
    args->today_given = today->count() > 0;
    exit_code = run_docs(*args);
  });
}

}  // namespace fusecert::cli
