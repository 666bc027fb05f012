// Whole-file reads and atomic writes with errors that name the path.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>

namespace fusecert::support {

/// Error reading or writing a file; what() names the path and the cause.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads the whole file. Throws FileError if it cannot be opened or read.
std::string read_file(const std::filesystem::path& p);

/// Writes `data` to `p` atomically (temp file in the same folder, then rename),
/// creating parent folders. Throws FileError on failure; never leaves a
/// half-written file at `p`.
void write_file_atomic(const std::filesystem::path& p, const std::string& data);

}  // namespace fusecert::support
