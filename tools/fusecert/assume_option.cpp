// --assume KEY=VALUE (certify, check-cert; repeatable) and `ir.assume:` in
// the repository's .fusecert.yaml: the facts the IR cannot show
// (verifier/guards/assumptions.h: routing, grad_clip_scope, unrouted,
// buffer_args). An unknown key or value is a usage error (exit 2) before
// any module is read, in the file at its line and column; the command line
// beats the file, and an attribute in the IR stating the fact beats both.
#include <filesystem>

#include "support/repo_config.h"
#include "tools/fusecert/commands.h"
#include "verifier/guards/assumptions.h"

namespace fusecert::cli {

void add_assume_option(CLI::App* cmd, std::vector<std::string>& kvs) {
  cmd->add_option("--assume", kvs,
                  "a fact the IR cannot show, KEY=VALUE; repeatable: routing=dense|conditional, "
                  "grad_clip_scope=none|layer|global (a clip outside the module), unrouted=dense_zero_grad|skip (the "
                  "reference semantics of an unrouted step), buffer_args=distinct (no two memref arguments of a bufferized "
                  "function share an element). Also read from `ir.assume:` in the repository's "
                  ".fusecert.yaml; --assume beats the file, an attribute in the IR stating the fact beats both; "
                  "every assumption used is listed in the report and the certificate")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

int load_assumptions(const std::string& tool, const std::vector<std::string>& kvs, const std::string& start) {
  guards::clear_assumptions();
  for (const auto& kv : kvs)
    if (std::string err = guards::add_assumption(kv); !err.empty()) return fail(tool, err);
  // The repository's configuration (the nearest folder at or above the first
  // input holding .git or .fusecert.yaml, as `fusecert docs` finds it).
  namespace fs = std::filesystem;
  fs::path cfg = support::repo_config_of(support::find_repo_root(start));
  if (cfg.empty()) return 0;
  std::error_code ec;
  if (fs::path rel = fs::proximate(cfg, ec); !ec && !rel.empty()) cfg = rel;
  const guards::ConfigProblem p = guards::load_assumption_file(cfg.string());
  if (p.message.empty()) return 0;
  guards::clear_assumptions();
  return fail_located(tool, {p.file, p.line, p.col}, "input.config", p.message);
}

}  // namespace fusecert::cli
