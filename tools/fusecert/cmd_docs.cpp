// `fusecert docs`: the audit-document linter (docaudit/). Thin CLI: options,
// rule-set discovery, rendering, exit status (0 clean, 1 findings, 2 usage or
// configuration error).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "docaudit/checker.h"
#include "docaudit/prover_verdicts.h"
#include "docaudit/render.h"
#include "docaudit/ruleset.h"
#include "docaudit/text.h"
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
  std::string repo_root, format = "text", config, today;
  unsigned jobs = 0;
  bool today_given = false;  ///< --today was passed (an empty value is an error, not "today")
};

/// The repository root: --repo-root, else the nearest folder above the first
/// path (or the current folder) holding `.git` or `.fusecert.yaml`, else the
/// current folder.
fs::path discover_root(const DocsArgs& a) {
  if (!a.repo_root.empty()) return a.repo_root;
  std::error_code ec;
  fs::path start = a.paths.empty() ? fs::current_path() : fs::absolute(a.paths.front(), ec);
  if (!fs::is_directory(start, ec)) start = start.parent_path();
  for (fs::path p = start; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec) || fs::exists(p / ".fusecert.yaml", ec)) return p;
    if (p == p.parent_path()) break;
  }
  return fs::current_path();
}

int run_docs(const DocsArgs& a) {
  try {
    const fs::path root = discover_root(a);
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw da::UsageError(root.string() + ": repository root is not a folder");
    std::vector<fs::path> overrides;
    if (!a.config.empty()) {
      overrides.push_back(a.config);
    } else if (fs::is_regular_file(root / ".fusecert.yaml", ec)) {
      overrides.push_back(root / ".fusecert.yaml");
    }
    const da::RuleSet rules = da::load_rule_set(da::default_rules_dir() / "default.yaml", overrides);

    da::CheckOptions opt;
    opt.repo_root = root;
    for (const auto& p : a.paths) opt.paths.emplace_back(p);
    opt.jobs = a.jobs;
    if (!a.today_given) {
      opt.today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    } else {
      auto d = da::parse_iso_date(a.today);
      if (!d) throw da::UsageError("--today must be a real date written YYYY-MM-DD, got `" + a.today + "`");
      opt.today = std::chrono::sys_days(*d);
    }
    da::ProverVerdicts prover;
    opt.oracle = &prover;

    const da::CheckResult res = da::run_check(rules, opt);
    if (a.format == "json") {
      std::cout << da::render_json(res, FUSECERT_VERSION);
    } else if (a.format == "sarif") {
      std::cout << da::render_sarif(res, rules, FUSECERT_VERSION);
    } else {
      std::cout << da::render_text(res);
    }
    std::cout.flush();
    return res.findings.empty() ? 0 : 1;
  } catch (const da::ConfigError& e) {
    std::cerr << "fusecert docs: configuration error: " << e.what() << "\n";
  } catch (const da::UsageError& e) {
    std::cerr << "fusecert docs: error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fusecert docs: error: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace

void add_docs_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DocsArgs>();
  CLI::App* docs = app.add_subcommand("docs", "Check audit documents (Markdown + YAML frontmatter) against the rule set");
  docs->add_option("PATH", args->paths, "Files or folders to check (default: the audit root)");
  docs->add_option("--repo-root", args->repo_root, "Repository root (default: nearest folder with .git or .fusecert.yaml)");
  docs->add_option("--format", args->format, "Output format")->check(CLI::IsMember({"text", "json", "sarif"}));
  docs->add_option("--config", args->config, "Configuration file overriding the default rule set (.fusecert.yaml format)");
  CLI::Option* today =
      docs->add_option("--today", args->today, "Date to judge staleness against, YYYY-MM-DD (default: today, UTC)");
  docs->add_option("-j,--jobs", args->jobs, "Worker threads (default: all cores)");
  docs->callback([args, today, &exit_code] {
    args->today_given = today->count() > 0;
    exit_code = run_docs(*args);
  });
}

}  // namespace fusecert::cli
