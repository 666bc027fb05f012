// fusecert check-cert CERT... [--ir FILE] [--solver z3|cvc5|PATH]
// Re-verifies certificates on their own: schema, digest, the verdict rule,
// every SMT query re-run by the chosen solver, and with --ir the input's
// SHA-256 and a re-derivation of every obligation. Exit: 0 all valid,
// 1 any invalid, 2 usage errors (unreadable certificate or IR file).
#include <iostream>

#include "support/files.h"
#include "tools/fusecert/commands.h"
#include "verifier/cert/certify.h"

namespace fusecert::cli {

void add_check_cert_command(CLI::App& app, int& exit_code) {
  struct Opts {
    std::vector<std::string> certs;
    std::string ir, solver = "z3", format = "text";
    unsigned timeout_ms = 60000;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand("check-cert", "Re-verify legality certificates independently of certify");
  cmd->add_option("certs", o->certs, "certificate files")->required();
  cmd->add_option("--ir", o->ir, "the .mlir input the certificates were written for (checks its hash and re-derives every obligation)");
  cmd->add_option("--solver", o->solver, "z3 (library), cvc5 (binary on PATH) or the path of an SMT-LIB2 solver binary");
  cmd->add_option("--format", o->format, "report format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--timeout-ms", o->timeout_ms, "per SMT query (default 60000)");
  cmd->callback([o, &exit_code]() {
    std::optional<std::pair<std::string, std::string>> ir;
    if (!o->ir.empty()) {
      try {
        ir = std::make_pair(support::read_file(o->ir), o->ir);
      } catch (const std::exception& e) {
        std::cerr << "fusecert: error: " << e.what() << "\n";
        exit_code = 2;
        return;
      }
    }
    cert::Solver solver{o->solver};
    int rc = 0;
    nlohmann::json all = nlohmann::json::array();
    for (auto& path : o->certs) {
      std::string text;
      try {
        text = support::read_file(path);
      } catch (const std::exception& e) {
        std::cerr << "fusecert: error: " << e.what() << "\n";
        rc = 2;
        continue;
      }
      cert::CheckOutcome c = cert::check_certificate(text, ir, solver, o->timeout_ms);
      if (!c.valid && rc == 0) rc = 1;
      if (o->format == "json") {
        all.push_back({{"certificate", path}, {"valid", c.valid}, {"problems", c.problems}, {"checked", c.checked}});
      } else {
        std::string what;
        for (auto& s : c.checked) what += (what.empty() ? "" : ", ") + s;
        std::cout << path << ": " << (c.valid ? "valid" : "invalid") << (what.empty() ? "" : " (" + what + ")") << "\n";
        for (auto& p : c.problems) std::cout << path << ": error: " << p << "\n";
      }
    }
    if (o->format == "json") std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    exit_code = rc;
  });
}

}  // namespace fusecert::cli
