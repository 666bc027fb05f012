// fusecert check-cert CERT... [--ir FILE] [--solver z3|cvc5|PATH]
// Re-verifies certificates on their own: schema, digest, the obligation
// table (ids, how, expected, decides, a complete set for a legal verdict),
// the verdict rule, every SMT query re-run by the chosen solver, and with
// --ir the input's SHA-256 and a re-derivation of every obligation (the only
// way structural obligations are re-checked). Exit: 0 all valid, 1 any
// invalid, 2 a certificate or IR file that cannot be read, a solver that
// cannot be run, or a certificate unverified because the solver could not
// decide a query (timeout, unknown, crash). 2 takes precedence over 1.
#include <iostream>

#include "support/files.h"
#include "tools/fusecert/commands.h"
#include "tools/fusecert/progress.h"
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
    if (auto why = cert::solver_unavailable(solver)) {
      std::cerr << "fusecert: error: " << *why << ": cannot re-run the SMT queries (a tool error, not an invalid "
                   "certificate)\n";
      exit_code = 2;
      return;
    }
    int rc = 0;
    nlohmann::json all = nlohmann::json::array();
    Progress progress("fusecert check-cert");
    size_t index = 0;
    for (auto& path : o->certs) {
      progress.step(path, ++index, o->certs.size());
      std::string text;
      try {
        text = support::read_file(path);
      } catch (const std::exception& e) {
        std::cerr << "fusecert: error: " << e.what() << "\n";
        rc = 2;
        continue;
      }
      cert::CheckOutcome c = cert::check_certificate(text, ir, solver, o->timeout_ms);
      const std::string status = c.status();
      if (status == "unverified") rc = 2;
      else if (status == "invalid" && rc == 0) rc = 1;
      std::string scope;
      if (status == "valid" && c.structural_unchecked)
        scope = "SMT only; " + std::to_string(c.structural_unchecked) +
                " structural obligations not re-derived: pass --ir";
      if (o->format == "json") {
        all.push_back({{"certificate", path},
                       {"valid", c.valid && c.undecided.empty()},
                       {"status", status},
                       {"structural_not_rederived", c.structural_unchecked},
                       {"problems", c.problems},
                       {"undecided", c.undecided},
                       {"checked", c.checked}});
      } else {
        std::string what;
        for (auto& s : c.checked) what += (what.empty() ? "" : ", ") + s;
        std::cout << path << ": " << status << (scope.empty() ? "" : " (" + scope + ")")
                  << (what.empty() ? "" : " (" + what + ")") << "\n";
        for (auto& p : c.problems) std::cout << path << ": error: " << p << "\n";
        for (auto& p : c.undecided) std::cout << path << ": error: " << p << "\n";
      }
    }
    if (o->format == "json") std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    exit_code = rc;
  });
}

}  // namespace fusecert::cli
