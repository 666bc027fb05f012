// fusecert validate BEFORE.mlir [AFTER.mlir] [--k N] [--timeout-ms T] [--out DIR] [--format text|json]
//                   [--dialect FILE.yaml]...
// Translation validation of an epilogue-fusion rewrite (verifier/tv): proves
// per output element, in Z3's floating-point theory, that the fused op
// computes bitwise what the unfused producer → consumer pair computed, for K
// unrolled to --k. One file: functions @before/@after (or @src/@tgt).
// Exit (support/diag/exit_code.h): 0 equivalent, 1 not equivalent, 2 usage or
// input error, 3 inconclusive.
#include <filesystem>
#include <iostream>

#include "support/diag/render.h"
#include "support/diag/report_format.h"
#include "support/diag/sarif.h"
#include "support/files.h"
#include "tools/fusecert/commands.h"
#include "tools/fusecert/progress.h"
#include "verifier/cert/certify.h"
#include "verifier/tv/validate.h"

#ifndef FUSECERT_VERSION
#define FUSECERT_VERSION "0"
#endif

namespace fusecert::cli {

namespace {

/// Each result obligation that is not proved, as a finding at the fused
/// function: not equivalent an error, inconclusive a warning. The text report
/// prints them after its table, SARIF as its results.
struct ResultFinding {
  diag::Diagnostic diagnostic;
  diag::sarif::Run::About about;
};

std::vector<ResultFinding> result_findings(const tv::Validation& v) {
  std::vector<ResultFinding> out;
  for (const auto& pr : v.pairs)
    for (const auto& rc : pr.results) {
      if (rc.verdict == "equivalent") continue;
      const bool refuted = rc.verdict == "not equivalent";
      out.push_back({diag::make(refuted ? diag::Severity::Error : diag::Severity::Warning, pr.after_loc, rc.id,
                                "@" + pr.after_func + " " + rc.name + ": " + rc.verdict + " (" + rc.method + ")"),
                     {"@" + pr.after_func, {{"verdict", rc.verdict}, {"before", "@" + pr.before_func}}}});
    }
  return out;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  struct Opts {
    std::string before, after, out, format = "text";
    std::vector<std::string> dialects;
    int k = 4;
    unsigned timeout_ms = 10000;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Translation validation: prove the fused op of AFTER computes bitwise what the unfused "
                  "producer/consumer pair of BEFORE computed (one file: @before and @after)");
  cmd->add_option("before", o->before, "the module before the fusion (or one file with @before and @after)")->required();
  cmd->add_option("after", o->after, "the module after the fusion (functions matched by name)");
  cmd->add_option("--k", o->k, "K bound: every reduction is unrolled to min(K, this) terms, 1..4096 (default 4)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--timeout-ms", o->timeout_ms, "per result obligation; 0 = no limit (default 10000)");
  cmd->add_option("--out", o->out, "folder for the certificates (one per validated function pair)");
  cmd->add_option("--format", o->format, "report format (sarif: the diagnostics as SARIF 2.1.0 results)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  add_dialect_option(cmd, o->dialects);
  cmd->callback([o, &exit_code]() {
    if (int rc = load_dialects("fusecert validate", o->dialects)) {
      exit_code = rc;
      return;
    }
    tv::ValidateOptions opt;
    opt.k_bound = o->k;
    opt.timeout_ms = o->timeout_ms;
    tv::Validation v = [&] {
      Progress progress("fusecert validate");
      progress.step(o->after.empty() ? o->before : o->before + " -> " + o->after);
      return tv::validate_files(o->before, o->after, opt);
    }();
    int rc = tv::exit_code(v);
    std::vector<nlohmann::json> certs;
    for (size_t i = 0; i < v.pairs.size(); ++i) certs.push_back(tv::certificate(v, i, FUSECERT_VERSION));
    if (!o->out.empty()) {
      for (size_t i = 0; i < certs.size(); ++i) {
        const std::string stem = std::filesystem::path(v.after_file).stem().string();
        const std::filesystem::path file = std::filesystem::path(o->out) / (stem + ".tv." + v.pairs[i].after_func + ".cert.json");
        try {
          support::write_file_atomic(file, cert::dump(certs[i]));
        } catch (const std::exception& e) {
          rc = fail_unwritable("fusecert validate", file.string(), e);
        }
      }
    }
    if (o->format == "json") {
      nlohmann::json j = {{"schema", diag::kValidateReportFormat}, {"verdict", v.verdict}, {"certificates", certs}};
      nlohmann::json diags = nlohmann::json::array();
      // The diagnostics the text report prints, in its order: the input's,
      // then one per result not proved (TV.resultN).
      for (auto& d : v.diags) diags.push_back(diag::to_json(d));
      for (auto& f : result_findings(v)) diags.push_back(diag::to_json(f.diagnostic));
      j["diagnostics"] = diags;
      std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else if (o->format == "sarif") {
      diag::sarif::Run sarif;
      sarif.tool_version = FUSECERT_VERSION;
      sarif.components = {{"Z3", cert::z3_version()}, {"MLIR", FUSECERT_MLIR_VERSION}};
      sarif.diagnostics = v.diags;
      for (auto& f : result_findings(v)) {
        sarif.diagnostics.push_back(f.diagnostic);
        sarif.about.resize(sarif.diagnostics.size());
        sarif.about.back() = f.about;
      }
      std::cout << diag::sarif::render(sarif).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    } else {
      std::vector<diag::Diagnostic> findings;
      for (auto& f : result_findings(v)) findings.push_back(f.diagnostic);
      const diag::TextRenderer engine({}, "fusecert validate");
      std::cout << tv::render_text(v, engine) << engine.render(findings) << engine.render(tv::verdict_remark(v));
    }
    exit_code = rc;
  });
}

}  // namespace fusecert::cli
