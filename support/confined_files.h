// File access confined below a folder, for paths that come from input (a
// certify index's certificate paths, candidate names): a relative path of
// plain components only — no `..`, no `.`, no absolute path — opened one
// component at a time with O_NOFOLLOW, so no symbolic link below the folder
// is ever followed (a link planted as a shard's certs/ folder, or as a
// certificate, is refused rather than read or written through). The folder
// itself is the caller's (a command-line argument) and may be anything.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

#include "support/files.h"

namespace fusecert::support {

/// Throws FileError unless `rel` is a relative path of plain components
/// (non-empty, not `.` or `..`, no NUL).
void require_confined(const std::string& rel);

/// Writes `data` to root/rel atomically (a new file beside it, renamed into
/// place), creating the folders below `root`. Refuses (FileError) a path
/// that is not confined, a symbolic link or non-folder among its folders, and
/// a target that exists but is not a regular file; a write error (a full
/// disk) is a FileError too.
void write_file_confined(const std::filesystem::path& root, const std::string& rel, const std::string& data);

/// Reads root/rel with the same confinement; a regular file of at most
/// `max_bytes` only.
std::string read_file_confined(const std::filesystem::path& root, const std::string& rel,
                               std::uintmax_t max_bytes = kNoSizeCap);

/// Whether root/rel is a regular file, reached without following a link.
bool regular_file_confined(const std::filesystem::path& root, const std::string& rel);

/// Removes the regular file root/rel (confined; never a link's target).
void remove_file_confined(const std::filesystem::path& root, const std::string& rel);

}  // namespace fusecert::support
