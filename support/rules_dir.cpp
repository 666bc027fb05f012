#include "support/rules_dir.h"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

#ifndef FUSECERT_SOURCE_RULES_DIR
#error "FUSECERT_SOURCE_RULES_DIR must be defined by the build"
#endif
#ifndef FUSECERT_BUILD_DIR
#error "FUSECERT_BUILD_DIR must be defined by the build"
#endif

namespace fusecert::support {
namespace fs = std::filesystem;

fs::path self_exe() {
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

fs::path rules_dir() {
  if (const char* env = std::getenv("FUSECERT_RULES_DIR"); env && *env) return env;
  const fs::path exe = self_exe();
  if (exe.empty())
    throw std::runtime_error("cannot read /proc/self/exe to find the rules beside the binary: set FUSECERT_RULES_DIR");
  const fs::path installed = (exe.parent_path().parent_path() / "share" / "fusecert" / "rules").lexically_normal();
  std::error_code ec;
  if (fs::is_directory(installed, ec)) return installed;
  // A binary of the build tree (fusecert itself, a test, a fuzz harness).
  const fs::path build = fs::weakly_canonical(FUSECERT_BUILD_DIR, ec);
  if (!ec) {
    const fs::path rel = exe.lexically_relative(build);
    if (!rel.empty() && *rel.begin() != "..") return fs::path(FUSECERT_SOURCE_RULES_DIR);
  }
  return installed;  // missing: the loader names this path
}

}  // namespace fusecert::support
