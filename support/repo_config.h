// A repository's configuration file, `.fusecert.yaml`: where it is and which
// top-level sections it may hold. One answer for every subcommand that reads
// it: `docs:` (fusecert docs, docaudit/ruleset.h) and `ir:` (certify and
// check-cert: `ir.assume:`, verifier/guards/assumptions.h). Each section is
// validated by its reader; a top-level key outside this list is an error for
// both (a typo such as `dosc:` is never a silently ignored section).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace fusecert::support {

/// The configuration file's name.
inline constexpr const char* kRepoConfigName = ".fusecert.yaml";

/// The top-level sections a configuration file may hold.
const std::vector<std::string>& repo_config_sections();

/// The repository root for `start` (a file or folder; empty: the current
/// folder): the nearest folder at or above it holding `.git` or
/// `.fusecert.yaml`, else the current folder.
std::filesystem::path find_repo_root(const std::filesystem::path& start);

/// The root's `.fusecert.yaml` when it is a regular file, else empty.
std::filesystem::path repo_config_of(const std::filesystem::path& root);

}  // namespace fusecert::support
