// fusecert check-cert CERT... [--ir FILE] [--solver z3|cvc5|PATH]
// Re-verifies certificates on their own: schema, digest, the obligation
// table (ids, how, expected, decides, a complete set for a legal verdict),
// the verdict rule, the query whitelist and hashes, every unsat answer's
// premise check (non-vacuity); with --ir the input's SHA-256 and a
// re-derivation of every obligation, compared before any solver runs, and
// only the regenerated queries (and their premises) solved (valid). Without
// --ir the certificate's whitelisted queries and their premises are re-run
// and it is at most "consistent" (not verified). Exit (support/diag/exit_code.h,
// the worst over the certificates, 2 > 1 > 3 > 4 > 0): 0 all valid, 1 any
// invalid, 2 a certificate or IR file that cannot be read (a certificate of
// another format version included) or a solver that cannot be run, 3 a certificate unverified (a query the solver could not
// decide), 4 consistent or stale (not verified).
#include <iostream>

#include "support/diag/render.h"
#include "support/diag/report_format.h"
#include "support/diag/sarif.h"
#include "support/files.h"
#include "support/sha256.h"
#include "tools/fusecert/commands.h"
#include "tools/fusecert/progress.h"
#include "tools/fusecert/version.h"
#include "verifier/cert/certify.h"
#include "verifier/tv/validate.h"

namespace fusecert::cli {

void add_check_cert_command(CLI::App& app, int& exit_code) {
  struct Opts {
    std::vector<std::string> certs, dialects, assumes;
    std::string ir, ir_before, solver = "z3", format = "text";
    unsigned timeout_ms = 60000;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand("check-cert", "Re-verify legality certificates independently of certify");
  cmd->add_option("certs", o->certs, "certificate files")->required();
  cmd->add_option("--ir", o->ir, "the .mlir input the certificates were written for (checks its hash and re-derives every obligation)");
  cmd->add_option("--ir-before", o->ir_before,
                  "for a two-file translation-validation certificate: the BEFORE module (--ir is the AFTER module)");
  cmd->add_option("--solver", o->solver, "z3 (library), cvc5 (binary on PATH) or the path of an SMT-LIB2 solver binary");
  cmd->add_option("--format", o->format, "report format (sarif: the problems as SARIF 2.1.0 results)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd->add_option("--timeout-ms", o->timeout_ms, "per SMT query (default 60000)");
  add_dialect_option(cmd, o->dialects);
  add_assume_option(cmd, o->assumes);
  cmd->callback([o, &exit_code]() {
    if (int rc = load_assumptions("fusecert check-cert", o->assumes,
                                  !o->ir.empty() ? o->ir : o->certs.empty() ? "" : o->certs.front())) {
      exit_code = rc;
      return;
    }
    if (int rc = load_dialects("fusecert check-cert", o->dialects)) {
      exit_code = rc;
      return;
    }
    std::optional<std::pair<std::string, std::string>> ir;
    if (!o->ir.empty()) {
      try {
        ir = std::make_pair(support::read_file(o->ir), o->ir);
      } catch (const std::exception& e) {
        exit_code = fail_unreadable("fusecert check-cert", o->ir, e);
        return;
      }
    }
    cert::Solver solver{o->solver};
    if (auto why = cert::solver_unavailable(solver)) {
      exit_code = fail_with("fusecert check-cert", "solver.unavailable",
                            *why + ": cannot re-run the SMT queries (a tool error, not an invalid certificate)");
      return;
    }
    // Translation-validation certificates are re-derived by validate's path.
    std::optional<std::string> before_text;
    if (!o->ir_before.empty()) {
      if (o->ir.empty()) {
        exit_code = fail("fusecert check-cert", "--ir-before needs --ir (the AFTER module)");
        return;
      }
      try {
        before_text = support::read_file(o->ir_before);
      } catch (const std::exception& e) {
        exit_code = fail_unreadable("fusecert check-cert", o->ir_before, e);
        return;
      }
    }
    const unsigned timeout = o->timeout_ms;
    cert::Regenerate regenerate = [timeout, before_text](const nlohmann::json& c, const std::string& input,
                                                         std::string& why) -> std::optional<nlohmann::json> {
      if (!c.contains("validation") || !c["validation"].is_object()) {
        why = "it has no validation section";
        return std::nullopt;
      }
      const nlohmann::json* v = &c["validation"];
      auto file_of = [&](const char* side) {
        const auto it = v->find(side);
        return it != v->end() && it->is_object() && it->contains("file") && (*it)["file"].is_string()
                   ? (*it)["file"].get<std::string>()
                   : std::string("?");
      };
      const bool two_files = file_of("before") != file_of("after");
      if (two_files && !before_text)
        throw cert::MissingInput("it validates two files (" + file_of("before") + ", " + file_of("after") +
                                 "): pass the BEFORE module with --ir-before to re-derive it");
      try {
        const std::string before = v->at("before").at("file"), after = v->at("after").at("file");
        if (two_files && support::sha256_hex(*before_text) != v->at("before").at("sha256").get<std::string>()) {
          why = "the --ir-before file's SHA-256 is not validation.before.sha256: it is not the module this "
                "certificate was written for";
          return std::nullopt;
        }
        tv::ValidateOptions opt;
        opt.k_bound = v->at("k_bound").get<int>();
        opt.timeout_ms = timeout;
        tv::Validation again = two_files ? tv::validate_texts(*before_text, before, input, after, opt)
                                         : tv::validate_texts(input, after, std::nullopt, after, opt);
        for (size_t i = 0; i < again.pairs.size(); ++i)
          if (again.pairs[i].after_func == v->at("after").at("function").get<std::string>())
            return tv::certificate(again, i, c.at("tool").at("version").get<std::string>());
        why = "the input has no function pair ending in @" + v->at("after").at("function").get<std::string>();
      } catch (const std::exception& e) {
        why = std::string("its validation section is malformed (") + e.what() + ")";
      }
      return std::nullopt;
    };
    const diag::TextRenderer engine;
    diag::Exit rc = diag::Exit::Clean;
    nlohmann::json all = nlohmann::json::array();
    diag::sarif::Run sarif;
    sarif.tool_version = FUSECERT_VERSION;
    sarif.components = {{"Z3", cert::z3_version()}};
    if (o->solver != "z3") sarif.components.push_back({o->solver, o->solver == "cvc5" ? cvc5_version() : ""});
    Progress progress("fusecert check-cert");
    size_t index = 0;
    for (auto& path : o->certs) {
      progress.step(path, ++index, o->certs.size());
      std::string text;
      try {
        text = support::read_file(path, cert::kMaxCertificateBytes);
      } catch (const std::exception& e) {
        rc = diag::worse(rc, static_cast<diag::Exit>(fail_unreadable("fusecert check-cert", path, e)));
        continue;
      }
      cert::CheckOutcome c = cert::check_certificate(text, ir, solver, o->timeout_ms, regenerate);
      const std::string status = c.status();
      rc = diag::worse(rc, c.exit());
      std::string scope;
      if (status == "consistent" && !c.missing_input.empty())
        scope = "not verified: " + c.missing_input;
      else if (status == "consistent")
        scope = "not verified: no obligation was re-derived" +
                (c.structural_unchecked ? "; " + std::to_string(c.structural_unchecked) +
                                              " structural obligations are the certificate's word"
                                        : std::string()) +
                "; pass --ir with the input";
      else if (status == "stale")
        scope = c.stale;
      else if (status == "unreadable")
        scope = "another format version: nothing checked";
      if (o->format == "json") {
        all.push_back({{"certificate", path},
                       {"valid", status == "valid"},
                       {"status", status},
                       {"structural_not_rederived", c.structural_unchecked},
                       {"stale", c.stale},
                       {"unreadable", c.unreadable},
                       {"problems", c.problems},
                       {"undecided", c.undecided},
                       {"checked", c.checked}});
        continue;
      }
      // The verdict line (a remark), then one error per problem and per
      // undecided query, through the diagnostic engine (text) or the SARIF
      // emitter.
      std::string what;
      for (auto& s : c.checked) what += (what.empty() ? "" : ", ") + s;
      std::vector<diag::Diagnostic> ds;
      ds.push_back(diag::remark({path}, "verdict",
                                status + (scope.empty() ? "" : " (" + scope + ")") + (what.empty() ? "" : " (" + what + ")")));
      if (!c.unreadable.empty()) ds.push_back(diag::error({path}, "cert.version", c.unreadable));
      // Not re-derived because this run's --dialect tables are not the
      // certificate's (exit 4, like any missing input; a table of another
      // SHA-256 is a problem: invalid).
      if (!c.dialects.empty()) ds.push_back(diag::error({path}, "cert.dialect", c.dialects));
      for (auto& p : c.problems) ds.push_back(diag::error({path}, "cert.invalid", p));
      for (auto& p : c.undecided) ds.push_back(diag::error({path}, "cert.undecided", p));
      if (o->format == "sarif") {
        // SARIF drops the verdict line (a remark): a certificate that is not
        // verified (consistent or stale, exit 4) with no problem would leave
        // no result, and code scanning would show nothing. It gets a warning.
        if (c.exit() == diag::Exit::NotVerified)
          ds.push_back(diag::warning({path}, "cert.not_verified", "the certificate is " + status + " but not verified" +
                                                                      (scope.empty() ? "" : ": " + scope)));
        // One result per diagnostic; the certificate is what the result is about.
        for (auto& d : ds) {
          sarif.diagnostics.push_back(d);
          sarif.about.push_back({"", {{"certificate_status", status}}});
        }
      } else {
        std::cout << engine.render(ds);
      }
    }
    if (o->format == "json")
      std::cout << nlohmann::json{{"schema", diag::kCheckCertReportFormat}, {"certificates", all}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (o->format == "sarif")
      std::cout << diag::sarif::render(sarif).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    exit_code = diag::code(rc);
  });
}

}  // namespace fusecert::cli
