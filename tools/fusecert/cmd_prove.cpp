// `fusecert prove [ID...] [--format text|json|sarif] [--timeout-ms N] [--param k=v]...
//                 [--smt-dump DIR] [--certify DIR] [--no-witness] [--bench] [-v]`
// Exit (support/diag/exit_code.h): 0 every verdict equals its expected
// verdict, every obligation got its expected answer (unsat ones with
// satisfiable premises), every counterexample is confirmed by its C++ replay
// and every witness figure is in range; 1 one differs; 2 usage or input error
// (rules file included); 3 a verdict is inconclusive (timeout, unknown,
// vacuous, no case of the verdict rule) and none differs.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include <yaml-cpp/yaml.h>

#include "support/diag/sarif.h"
#include "support/files.h"
#include "tools/fusecert/commands.h"
#include "tools/fusecert/progress.h"
#include "verifier/prover.h"
#include "verifier/report/certificate.h"
#include "verifier/report/report.h"
#include "verifier/smt/cache.h"

namespace fusecert::cli {

namespace {
struct ProveArgs {
  std::vector<std::string> ids, params;
  std::string format = "text", smt_dump, certify;
  unsigned timeout_ms = 20000;
  bool no_witness = false, bench = false, verbose = false;
};

/// One diagnostic per proposition whose result is not the expected one: an
/// error `prove.differs` (exit 1) or a warning `prove.inconclusive` (exit 3),
/// at the proposition's entry in the rules file (its `id:` line, from
/// yaml-cpp's marks), with what SARIF says the result is about. A
/// proposition as expected gets none, as a clean file gets no finding.
struct NotAsExpected {
  diag::Diagnostic diagnostic;
  diag::sarif::Run::About about;
};

std::vector<NotAsExpected> not_as_expected(const std::vector<verifier::PropositionResult>& rs,
                                           const verifier::Registry& reg) {
  using namespace fusecert::verifier;
  std::map<std::string, diag::Location> where;
  try {
    const YAML::Node root = YAML::LoadFile(reg.path.string());
    for (const auto& n : root["propositions"])
      if (n["id"] && n["id"].IsScalar())
        where[n["id"].as<std::string>()] = {reg.path.string(), static_cast<unsigned>(n["id"].Mark().line + 1),
                                            static_cast<unsigned>(n["id"].Mark().column + 1)};
  } catch (const YAML::Exception&) {
    // load_registry() parsed this file a moment ago: a result then names the file only.
  }
  std::vector<NotAsExpected> out;
  for (const auto& r : rs) {
    if (r.verdict != Verdict::Inconclusive && r.matches_expected()) continue;
    std::string why;
    auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
    for (const auto& o : r.obligations)
      if (!o.as_expected())
        add((o.scope.evidence() ? "obligation " : "sanity check ") + o.id + " answered " + o.answer +
            (o.answer == "unsat" && !o.premises.empty() && o.premises != "sat"
                 ? " with premises " + o.premises + " (vacuous)"
                 : "") +
            ", expected " + o.expected);
    if (r.counterexample && !r.counterexample->replay_confirms)
      add("the C++ replay does not confirm the counterexample of " + r.counterexample->obligation);
    if (r.witness)
      for (const auto& f : r.witness->figures)
        if (f.range_applies && !f.in_range()) add("witness figure " + f.name + " is out of its range");
    const bool inconclusive = r.verdict == Verdict::Inconclusive;
    const auto at = where.count(r.id) ? where[r.id] : diag::Location{reg.path.string()};
    std::string msg = r.id + ": " + to_string(r.verdict) + ", expected " + to_string(r.expected) +
                      (why.empty() ? "" : " (" + why + ")");
    nlohmann::ordered_json props = {{"verdict", to_string(r.verdict)}, {"expected", to_string(r.expected)}};
    if (r.params_overridden) {
      nlohmann::ordered_json p = nlohmann::ordered_json::object();
      for (const auto& [k, v] : r.params) p[k] = v;
      props["parameters"] = p;  // effective, with the overrides
      props["parameters_overridden"] = true;
    }
    out.push_back({inconclusive ? diag::warning(at, "prove.inconclusive", msg) : diag::error(at, "prove.differs", msg),
                   {r.id, props}});
  }
  return out;
}

/// `prove --format sarif`: one result per not_as_expected diagnostic,
/// through the one emitter (support/diag/sarif.h).
nlohmann::ordered_json render_sarif(const std::vector<verifier::PropositionResult>& rs,
                                    const verifier::Registry& reg) {
  using namespace fusecert::verifier;
  diag::sarif::Run run;
  run.tool_version = report::tool_version();
  run.components = {{"Z3", report::z3_version()}};
  for (auto& n : not_as_expected(rs, reg)) {
    run.diagnostics.push_back(n.diagnostic);
    run.about.push_back(n.about);
  }
  return diag::sarif::render(run);
}

int run_prove(const ProveArgs& a) {
  using namespace fusecert::verifier;
  Registry reg;
  try {
    reg = load_registry();
  } catch (const SpecError& e) {
    return fail_located_text("fusecert prove", (rules_dir() / "propositions.yaml").string(), "input.config", e.what());
  }
  ProveOptions opt;
  opt.timeout_ms = a.timeout_ms;
  opt.witnesses = !a.no_witness;
  for (const auto& p : a.params) {
    try {
      auto [name, prm] = parse_param_assignment(p);
      if (opt.overrides.count(name))
        throw std::invalid_argument("parameter '" + name + "' is given twice (" + opt.overrides[name].text + " and " +
                                    prm.text + ")");
      opt.overrides[name] = prm;
    } catch (const std::invalid_argument& e) {
      return fail("fusecert prove", e.what());
    }
  }
  for (const auto& id : a.ids)
    if (!reg.find(id)) {
      std::string known;
      for (const auto& k : known_ids(reg)) known += " " + k;
      return fail("fusecert prove", "unknown proposition id '" + id + "'; known:" + known);
    }
  // The output follows the rules file's order, once per id, whatever order
  // (or repetition) the ids were given in: `prove P9 P2` and `prove P2 P9 P2`
  // print the same bytes (issue #7, determinism).
  std::vector<std::string> ids;
  for (const auto& spec : reg.propositions)  // every given id is in it (checked above)
    if (std::find(a.ids.begin(), a.ids.end(), spec.id) != a.ids.end()) ids.push_back(spec.id);
  if (auto bad = unknown_params(reg, ids, opt.overrides); !bad.empty()) {
    return fail("fusecert prove", "parameter '" + bad[0] +
                                      "' is not a parameter of the selected propositions (see rules/propositions.yaml)");
  }
  std::vector<PropositionResult> rs;
  try {
    // One proposition at a time (the same results as one call), so the
    // progress line can name the one being proved.
    const std::vector<std::string> sel = ids.empty() ? known_ids(reg) : ids;
    Progress progress("fusecert prove");
    for (size_t i = 0; i < sel.size(); ++i) {
      progress.step(sel[i], i + 1, sel.size());
      for (auto& r : prove(reg, {sel[i]}, opt)) rs.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    return fail_with("fusecert prove", "input.internal", e.what());
  }
  try {
    if (!a.smt_dump.empty())
      for (const auto& r : rs)
        for (const auto& o : r.obligations) support::write_file_atomic(std::filesystem::path(a.smt_dump) / (o.id + ".smt2"), o.query());
    if (!a.certify.empty()) report::write_certificates(rs, reg, a.certify);
  } catch (const support::FileError& e) {
    return fail_unwritable_at("fusecert prove", e, !a.certify.empty() ? a.certify : a.smt_dump);
  }
  if (a.format == "json") {
    std::cout << report::render_json(rs, reg).dump(2) << "\n";
  } else if (a.format == "sarif") {
    std::cout << render_sarif(rs, reg).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    std::cout << report::render_text(rs, a.verbose);
    // Why the exit status is 1: one error per proposition whose result
    // differs from the expected one, about no file (the report above names
    // the proposition; SARIF puts it at its `id:` in the rules file).
    for (auto& n : not_as_expected(rs, reg))
      if (n.diagnostic.is_error()) {
        n.diagnostic.loc = {};
        report("fusecert prove", n.diagnostic);
      }
  }
  if (a.bench) {
    // One remark per proposition and one for the run, in the one form
    // (docs/prover.md "The text report"): every line on stderr is a diagnostic.
    const auto ms = [](double t) {
      char b[32];
      std::snprintf(b, sizeof b, "%.0f ms", t);
      return std::string(b);
    };
    double tot = 0, stot = 0;
    for (const auto& r : rs) {
      double s = 0;
      for (const auto& o : r.obligations) s += o.time_ms;
      report("fusecert prove", diag::remark({}, "prove.bench", r.id + ": " + ms(r.time_ms) + ", solver " + ms(s)));
      tot += r.time_ms;
      stot += s;
    }
    auto st = smt::cache_stats();
    report("fusecert prove", diag::remark({}, "prove.bench", "total " + ms(tot) + ", solver " + ms(stot) +
                                                                 ", cache hits " + std::to_string(st.hits)));
  }
  // 1 any definite verdict, answer, replay or figure that differs from the
  // expected one, else 3 any inconclusive verdict, else 0 (the table's order).
  diag::Exit rc = diag::Exit::Clean;
  for (const auto& r : rs) {
    if (r.verdict == Verdict::Inconclusive) rc = diag::worse(rc, diag::Exit::Inconclusive);
    else if (!r.matches_expected()) rc = diag::worse(rc, diag::Exit::Findings);
  }
  return diag::code(rc);
}
}  // namespace

void add_prove_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProveArgs>();
  CLI::App* sub = app.add_subcommand("prove", "prove the propositions of rules/propositions.yaml (P1, P2, P2a–P2c, P3–P9) with Z3");
  sub->add_option("ids", args->ids, "proposition ids (default: all)");
  sub->add_option("--format", args->format,
                  "text, json or sarif (sarif: a result per proposition not as expected, at its entry in the rules file)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  sub->add_option("--timeout-ms", args->timeout_ms, "per-query solver timeout in ms (0 = none)");
  sub->add_option("--param", args->params, "override a parameter, name=value (repeatable)");
  sub->add_option("--smt-dump", args->smt_dump, "write every obligation's SMT-LIB2 to DIR/<id>.smt2");
  sub->add_option("--certify", args->certify, "write one certificate per proposition to DIR");
  sub->add_flag("--no-witness", args->no_witness, "skip the numeric witness protocols");
  sub->add_flag("--bench", args->bench, "report per-proposition and solver times on stderr");
  sub->add_flag("-v,--verbose", args->verbose, "print every query's SMT-LIB2");
  sub->callback([args, &exit_code] { exit_code = run_prove(*args); });
}

}  // namespace fusecert::cli
