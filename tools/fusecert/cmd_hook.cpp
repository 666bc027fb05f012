// `fusecert hook install [--repo DIR] [--force] [--fusecert PATH]`
// `fusecert hook uninstall [--repo DIR]`
// A git pre-commit hook for repositories that do not use the pre-commit
// framework: it runs `fusecert docs` on the audit tree of the index (as CI) and
// `fusecert certify` on the staged .mlir files (added, copied, modified,
// renamed or type-changed; any case of extension), as the index holds them,
// and rejects the commit on any finding. A hook fusecert did not
// write is never overwritten without --force; it is then kept beside ours as
// pre-commit.fusecert-saved and `hook uninstall` puts it back.
// Exit: 0 done, 2 refused or failed (the reason on stderr).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "support/files.h"
#include "support/diag/render.h"
#include "tools/fusecert/commands.h"

namespace fusecert::cli {

namespace {
namespace fs = std::filesystem;

constexpr const char* kMarker = "# fusecert-hook 1";
constexpr const char* kSaved = "pre-commit.fusecert-saved";
// The rule ids of the lines the hook script prints itself (docs/diagnostics.md).
constexpr const char* kRejectedRule = "hook.rejected";
constexpr const char* kFailedRule = "hook.failed";

struct HookArgs {
  std::string repo = ".", fusecert;
  bool force = false;
};

/// Runs `git -C repo args...` and returns its standard output; throws with
/// git's status when it fails.
std::string git(const std::string& repo, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", repo});
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    close(fd[1]);
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    execvp("git", argv.data());
    _exit(127);
  }
  close(fd[1]);
  std::string out;
  std::array<char, 4096> buf;
  for (ssize_t n; (n = read(fd[0], buf.data(), buf.size())) > 0;) out.append(buf.data(), n);
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw std::runtime_error(repo + ": not a git repository (git " + args[3] + " failed)");
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

/// The hooks folder git uses for `repo` (honours core.hooksPath, worktrees,
/// and `repo` being a subfolder of the work tree). `git rev-parse --git-path`
/// prints a path relative to the folder git ran in, which is `repo` (git -C),
/// not the top level: from `repo/sub` it says `../.git/hooks`. So a relative
/// answer is resolved against `repo` itself (this works with every git, also
/// those before 2.31 that lack --path-format=absolute).
fs::path hooks_dir(const std::string& repo) {
  fs::path p = git(repo, {"rev-parse", "--git-path", "hooks"});
  if (p.is_relative()) p = fs::absolute(repo) / p;
  return fs::weakly_canonical(p).lexically_normal();
}

bool is_ours(const fs::path& hook) {
  try {
    return support::read_file(hook).find(kMarker) != std::string::npos;
  } catch (const std::exception&) {
    return false;
  }
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string hook_text(const std::string& fusecert) {
  // What the commit will hold is the index, not the working copy: the hook
  // checks out the whole index into a temporary folder (links and paths
  // resolve against the tree being committed) and runs there. File names are
  // passed after `--`, so a staged `-h.mlir` is a file, never an option;
  // extensions match in any case (`UPPER.MLIR`); type changes (T) are
  // checked too. `fusecert docs` runs the audit tree of the index
  // (--whole-tree, no file arguments), which is CI's tree run on the tree
  // being committed: the hook decides the same set of files CI decides (a
  // staged Markdown file outside the audit root is checked by neither), and
  // an edit or deletion that orphans or breaks an unstaged document fails the
  // commit as it fails CI. Each tool runs once (no xargs batches: each batch
  // re-ran the tree and printed its findings again, and xargs turned a usage
  // error, exit 2, into 123); exit 1 is findings (hook.rejected), any other
  // failure is hook.failed, exit 2.
  return std::string("#!/bin/sh\n") + kMarker +
         " — written by `fusecert hook install`; `fusecert hook uninstall` removes it\n"
         "# (and restores the hook that was here before, if any). Checks the staged\n"
         "# Markdown (fusecert docs; audit root from .fusecert.yaml) and .mlir files\n"
         "# (fusecert certify), as the index holds them; any finding rejects the commit.\n"
         "fusecert_default=" + fusecert + "\n"
         "FUSECERT=\"${FUSECERT:-$fusecert_default}\"\n"
         "# Every line it prints itself is a diagnostic in the one form (docs/diagnostics.md).\n"
         "failed() { echo \"fusecert hook: error: $1; the commit was not checked [" + kFailedRule + "]\" >&2; exit 2; }\n"
         "t=$(mktemp -d \"${TMPDIR:-/tmp}/fusecert-hook.XXXXXX\") || failed 'cannot make a temporary folder'\n"
         "trap 'rm -rf \"$t\"' EXIT\n"
         "trap 'exit 2' INT TERM HUP\n"
         "names() { git diff --cached --name-only --no-renames -z \"$@\"; }\n"
         "names >\"$t/staged\" &&\n"
         "  names --diff-filter=D >\"$t/deleted\" &&\n"
         "  names --diff-filter=ACMT -- ':(icase)*.mlir' >\"$t/mlir\" || failed 'git diff --cached failed'\n"
         "# History's deletions, as CI's tree run reads them; none before the first\n"
         "# commit. A failing git log fails the hook: an empty list would pass what CI fails.\n"
         "git rev-parse --verify -q HEAD >/dev/null\n"
         "head=$?\n"
         "if [ \"$head\" -eq 0 ]; then\n"
         "  git log -z --format= --name-only --no-renames --diff-filter=D HEAD -- >>\"$t/deleted\" ||\n"
         "    failed 'git log --diff-filter=D failed'\n"
         "elif [ \"$head\" -ne 1 ]; then\n"
         "  failed 'git rev-parse HEAD failed'\n"
         "fi\n"
         "# Every commit is checked, an empty one too: a tree already red fails CI.\n"
         "# Skip-worktree entries (a sparse checkout) are in the commit, so they are\n"
         "# checked out too: the tree is the commit's, as CI's clone holds it.\n"
         "mkdir \"$t/index\" && git checkout-index -a -f --ignore-skip-worktree-bits --prefix=\"$t/index/\" ||\n"
         "  failed 'git checkout-index failed'\n"
         "cd \"$t/index\" || failed 'cannot enter the checked-out index'\n"
         "status=0\n"
         "# One run each, never split by xargs (which ran the tree once per batch and\n"
         "# printed every finding twice, and turned exit 2 into 123). FINDINGS lists\n"
         "# the exit codes that are findings about the commit: docs 1; certify 1\n"
         "# (illegal), 2 (a file that does not parse) and 3 (inconclusive). Anything\n"
         "# else means fusecert could not check the commit.\n"
         "run() {\n"
         "  findings=$1; shift\n"
         "  \"$FUSECERT\" \"$@\"\n"
         "  rc=$?\n"
         "  [ \"$rc\" -eq 0 ] && return 0\n"
         "  for c in $findings; do [ \"$rc\" -eq \"$c\" ] && { status=1; return 0; }; done\n"
         "  failed \"\\`fusecert $1\\` exited $rc (usage error, or it could not run)\"\n"
         "}\n"
         "# The deleted paths (staged, and git's history, as CI's tree run reads it):\n"
         "# a removed folder stays a path root, so a document's `src/x.py` is\n"
         "# reported broken after `git rm -r src`.\n"
         "if [ -s \"$t/deleted\" ]; then\n"
         "  run 1 docs --repo-root . --whole-tree --referrers-of-removed \"$t/deleted\"\n"
         "else\n"
         "  run 1 docs --repo-root . --whole-tree\n"
         "fi\n"
         "if [ -s \"$t/mlir\" ]; then\n"
         "  tr '\\000' '\\n' <\"$t/mlir\" >\"$t/mlir.nl\" || failed 'cannot read the staged .mlir names'\n"
         "  [ \"$(tr -cd '\\000' <\"$t/mlir\" | wc -c)\" -eq \"$(wc -l <\"$t/mlir.nl\")\" ] ||\n"
         "    failed 'a staged .mlir file name holds a newline'\n"
         "  set --\n"
         "  while IFS= read -r f; do set -- \"$@\" \"$f\"; done <\"$t/mlir.nl\"\n"
         "  run '1 2 3' certify -- \"$@\"\n"
         "fi\n"
         "if [ \"$status\" -ne 0 ]; then\n"
         "  echo \"fusecert hook: error: commit rejected: fix the findings above, or commit with --no-verify [" + kRejectedRule + "]\" >&2\n"
         "fi\n"
         "exit $status\n";
}

int install(const HookArgs& a) {
  fs::path dir = hooks_dir(a.repo), hook = dir / "pre-commit", saved = dir / kSaved;
  std::string exe = a.fusecert;
  if (exe.empty()) exe = fs::canonical("/proc/self/exe").string();
  std::error_code ec;
  if (fs::exists(hook, ec) && !is_ours(hook)) {
    if (!a.force) {
      diag::Diagnostic d = diag::error({hook.string()}, "hook.exists", "a pre-commit hook fusecert did not write is "
                                                                       "already there; not replacing it");
      d.note({}, std::string("rerun with --force to replace it (it is kept as ") + kSaved +
                     " and `fusecert hook uninstall` puts it back)");
      report("fusecert hook install", d);
      return diag::code(diag::Exit::InputError);
    }
    if (fs::exists(saved, ec)) {
      report("fusecert hook install", diag::error({saved.string()}, "hook.exists",
                                                  "already exists; move it away first so no earlier hook is lost"));
      return diag::code(diag::Exit::InputError);
    }
    fs::rename(hook, saved);
    std::cout << "kept the previous hook as " << saved.string() << "\n";
  }
  fs::create_directories(dir);
  support::write_file_atomic(hook, hook_text(shell_quote(exe)));
  fs::permissions(hook, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  std::cout << "installed " << hook.string() << " (runs " << exe << ")\n";
  return 0;
}

int uninstall(const HookArgs& a) {
  fs::path dir = hooks_dir(a.repo), hook = dir / "pre-commit", saved = dir / kSaved;
  std::error_code ec;
  if (!fs::exists(hook, ec) || !is_ours(hook)) {
    report("fusecert hook uninstall", diag::error({hook.string()}, "hook.missing", "no fusecert hook installed there"));
    return diag::code(diag::Exit::InputError);
  }
  fs::remove(hook);
  if (fs::exists(saved, ec)) {
    fs::rename(saved, hook);
    std::cout << "removed the fusecert hook; restored the previous " << hook.string() << "\n";
  } else {
    std::cout << "removed " << hook.string() << "\n";
  }
  return 0;
}

int guarded(int (*fn)(const HookArgs&), const HookArgs& a) {
  try {
    return fn(a);
  } catch (const support::FileError& e) {
    return fail_unwritable_at("fusecert hook", e, (fs::path(a.repo.empty() ? "." : a.repo) / ".git").string());
  } catch (const std::exception& e) {
    return fail("fusecert hook", e.what());
  }
}
}  // namespace

void add_hook_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<HookArgs>();
  CLI::App* hook = app.add_subcommand("hook", "install or remove the git pre-commit hook (docs + certify on staged files)");
  hook->require_subcommand(1);
  CLI::App* in = hook->add_subcommand("install", "write the pre-commit hook into the repository's hooks folder (as git reports it: core.hooksPath and worktrees honoured)");
  in->add_option("--repo", a->repo, "a folder of the repository (default: the current folder; any subfolder names the same repository)");
  in->add_flag("--force", a->force, "replace a hook fusecert did not write (kept for `uninstall`)");
  in->add_option("--fusecert", a->fusecert, "the fusecert the hook runs (default: this binary's absolute path)");
  in->callback([a, &exit_code] { exit_code = guarded(install, *a); });
  CLI::App* un = hook->add_subcommand("uninstall", "remove the fusecert hook and restore the previous one");
  un->add_option("--repo", a->repo, "a folder of the repository (default: the current folder; any subfolder names the same repository)");
  un->callback([a, &exit_code] { exit_code = guarded(uninstall, *a); });
}

}  // namespace fusecert::cli
