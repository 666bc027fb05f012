// Where fusecert's data files (rules/: propositions.yaml, docaudit/) are read
// from. One answer for every front end, so an installed binary and a build
// tree never disagree:
//   1. $FUSECERT_RULES_DIR when set and not empty;
//   2. <exe folder>/../share/fusecert/rules when that folder exists (installed
//      with `cmake --install`, from the .deb, or a copied prefix);
//   3. a binary inside the build folder it was linked in (fusecert, a test, a
//      fuzz harness): the source tree's rules/, so editing a rule needs no rebuild;
//   4. otherwise the path of 2, which does not exist: the loader's error names
//      it. A binary outside its build tree never reads a source tree that may
//      have moved on.
#pragma once
#include <filesystem>

namespace fusecert::support {

std::filesystem::path rules_dir();

/// Throws std::runtime_error when the binary's own path cannot be read.
/// The path of the running binary (/proc/self/exe, links resolved); empty if
/// it cannot be read.
std::filesystem::path self_exe();

}  // namespace fusecert::support
