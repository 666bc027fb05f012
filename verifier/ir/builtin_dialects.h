// The dialect tables built into fusecert: rules/dialects/*.yaml, embedded
// by CMake (verifier/ir/CMakeLists.txt) into builtin_dialects.cpp.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace fusecert::ir {

/// (name, YAML text) of every built-in table, in file-name order.
const std::vector<std::pair<std::string, std::string>>& builtin_dialect_sources();

}  // namespace fusecert::ir
