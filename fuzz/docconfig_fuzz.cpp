// docconfig_fuzz: libFuzzer harness for the docaudit config loader — a
// repository's `.fusecert.yaml` (key `docs:`) merged over the default rule
// set by load_rule_set. Every malformed, ill-typed or unknown key must be a
// ConfigError (exit 2), never a crash, a hang or another exception type.
// A loaded set is then used once (severity lookups, wording, globs) so that
// accepted-but-odd values (regexes, globs, thresholds) are exercised too.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "docaudit/repo.h"
#include "docaudit/ruleset.h"

namespace da = fusecert::docaudit;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    char tmpl[] = "/tmp/docconfig_fuzz.XXXXXX";
    return fs::path(mkdtemp(tmpl));
  }();
  static const fs::path def = da::default_rules_dir() / "default.yaml";
  const fs::path cfg = dir / ".fusecert.yaml";
  {
    std::ofstream f(cfg, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    da::RuleSet rs = da::load_rule_set(def, {cfg});
    for (const auto& id : da::builtin_rule_ids()) (void)rs.enabled(id);
    (void)rs.asserted_verdict("holds for all inputs");
    (void)rs.is_proposition_id("P2a");
    for (const auto& g : rs.excluded) (void)da::glob_match(g, "docs/audit/archive/x.md");
    da::Repo repo(dir, rs);
    (void)repo.authored(da::Repo::normal(dir / rs.audit_root / "a.md").native());
  } catch (const da::ConfigError&) {
    // the documented outcome for a bad config
  }
  return 0;
}
