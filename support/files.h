// Whole-file reads and atomic writes with errors that name the path.
#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace fusecert::support {

/// Error reading or writing a file; what() names the path and the cause.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// No size cap (read_file's default).
inline constexpr std::uintmax_t kNoSizeCap = ~std::uintmax_t{0};

/// Reads the whole file. Throws FileError if it cannot be opened or read, if
/// it is not a regular file (a FIFO would block forever, a folder reads as
/// nothing), or if it is larger than `max_bytes` (refused before it is read).
std::string read_file(const std::filesystem::path& p, std::uintmax_t max_bytes = kNoSizeCap);

/// Writes `data` to `p` atomically (temp file in the same folder, then rename),
/// creating parent folders. Throws FileError on failure; never leaves a
/// half-written file at `p`.
void write_file_atomic(const std::filesystem::path& p, const std::string& data);

}  // namespace fusecert::support
