#include "support/repo_config.h"

namespace fusecert::support {

namespace fs = std::filesystem;

const std::vector<std::string>& repo_config_sections() {
  static const std::vector<std::string> keys = {"docs", "ir"};
  return keys;
}

fs::path find_repo_root(const fs::path& start_at) {
  std::error_code ec;
  fs::path start = start_at.empty() ? fs::current_path() : fs::absolute(start_at, ec);
  if (ec) return fs::current_path();
  if (!fs::is_directory(start, ec)) start = start.parent_path();
  for (fs::path p = start; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec) || fs::exists(p / kRepoConfigName, ec)) return p;
    if (p == p.parent_path()) break;
  }
  return fs::current_path();
}

fs::path repo_config_of(const fs::path& root) {
  std::error_code ec;
  const fs::path f = root / kRepoConfigName;
  return fs::is_regular_file(f, ec) ? f : fs::path();
}

}  // namespace fusecert::support
