// docs_fuzz: libFuzzer harness for `fusecert docs` on one Markdown document.
// Drives the whole per-file path: input checks (binary, UTF-8, size), YAML
// frontmatter (yaml-cpp), the cmark-gfm outline, every rule visitor,
// suppression directives, and the text/JSON/SARIF renderers.
//
// The input is written as docs/audit/fuzz.md of a scratch repository next to a
// fixed index (docs/audit/README.md) that routes it, so routing, anchoring and
// lifecycle rules see a real tree. Verdict tables are answered by a
// deterministic stand-in oracle (the prover is not under test here).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "docaudit/checker.h"
#include "docaudit/render.h"
#include "docaudit/ruleset.h"

namespace da = fusecert::docaudit;
namespace fs = std::filesystem;

namespace {

/// Answers questions by a fixed function of the id: unknown, holds, refuted,
/// conditional; parameters refused when there are more than two.
class FixedOracle : public da::VerdictOracle {
 public:
  std::map<da::Question, da::OracleAnswer> establish(const std::set<da::Question>& questions) override {
    std::map<da::Question, da::OracleAnswer> out;
    for (const auto& q : questions) {
      da::OracleAnswer a;
      a.known = q.id.size() % 4 != 0;
      a.verdict = static_cast<da::ProvedVerdict>(q.id.size() % 4);
      a.detail = "fuzz oracle";
      if (q.params.size() > 2) a.param_error = "fuzz oracle: too many parameters";
      out[q] = a;
    }
    return out;
  }
};

struct Fixture {
  fs::path root;
  da::RuleSet rules;
  FixedOracle oracle;
  Fixture() {
    char tmpl[] = "/tmp/docs_fuzz.XXXXXX";
    root = mkdtemp(tmpl);
    fs::create_directories(root / "docs/audit");
    std::ofstream(root / "docs/audit/README.md")
        << "---\nlast_updated: 2026-01-01\naudit_role: index\n---\n# Index\n\n"
           "| Question | Doc |\n|---|---|\n| fuzz? | [fuzz](fuzz.md) |\n";
    rules = da::load_rule_set(da::default_rules_dir() / "default.yaml");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fx;
  {
    std::ofstream f(fx.root / "docs/audit/fuzz.md", std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  da::CheckOptions opt;
  opt.repo_root = fx.root;
  opt.today = std::chrono::sys_days{std::chrono::year{2026} / 6 / 1};
  opt.jobs = 1;
  opt.oracle = &fx.oracle;
  // Bad input must come back as findings; an exception here is a finding too
  // (libFuzzer reports the uncaught exception as a crash).
  da::CheckResult r = da::run_check(fx.rules, opt);
  (void)da::render_text(r);
  (void)da::render_json(r, "fuzz");
  (void)da::render_sarif(r, fx.rules, "fuzz", std::filesystem::current_path());
  return 0;
}
