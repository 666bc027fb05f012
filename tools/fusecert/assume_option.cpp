// --assume KEY=VALUE (certify, check-cert; repeatable): the facts the IR
// cannot show (verifier/guards/assumptions.h: routing, grad_clip_scope,
// unrouted). An unknown key or value is a usage error (exit 2) before any
// module is read; an attribute in the IR stating the fact takes precedence.
#include "tools/fusecert/commands.h"
#include "verifier/guards/assumptions.h"

namespace fusecert::cli {

void add_assume_option(CLI::App* cmd, std::vector<std::string>& kvs) {
  cmd->add_option("--assume", kvs,
                  "a fact the IR cannot show, KEY=VALUE; repeatable: routing=dense|conditional, "
                  "grad_clip_scope=none|layer|global (a clip outside the module), unrouted=dense_zero_grad|skip (the "
                  "reference semantics of an unrouted step). An attribute in the IR stating it takes precedence; "
                  "every assumption used is listed in the report and the certificate")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

int load_assumptions(const std::string& tool, const std::vector<std::string>& kvs) {
  guards::clear_assumptions();
  for (const auto& kv : kvs)
    if (std::string err = guards::add_assumption(kv); !err.empty()) return fail(tool, err);
  return 0;
}

}  // namespace fusecert::cli
