#include "support/confined_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace fusecert::support {
namespace {

std::vector<std::string> parts(const std::string& rel) {
  require_confined(rel);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t e = rel.find('/', pos);
    out.push_back(rel.substr(pos, e == std::string::npos ? std::string::npos : e - pos));
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  return out;
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string where(const std::filesystem::path& root, const std::vector<std::string>& p, size_t upto) {
  std::string s = root.string();
  for (size_t i = 0; i <= upto && i < p.size(); ++i) s += "/" + p[i];
  return s;
}

/// The folder holding the last component of `p`, opened without following a
/// link; `create` makes missing folders.
Fd open_parent(const std::filesystem::path& root, const std::vector<std::string>& p, bool create) {
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) throw FileError(root.string() + ": cannot create folder: " + ec.message());
  }
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) throw FileError(root.string() + ": cannot open folder: " + std::strerror(errno));
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    if (create && ::mkdirat(dir.fd, p[i].c_str(), 0777) != 0 && errno != EEXIST)
      throw FileError(where(root, p, i) + ": cannot create folder: " + std::strerror(errno));
    Fd next(::openat(dir.fd, p[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.fd < 0) {
      const int err = errno;
      struct stat st {};
      const bool link = ::fstatat(dir.fd, p[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      throw FileError(where(root, p, i) + (link ? ": is a symbolic link; not followed"
                                                : err == ENOTDIR ? ": is not a folder"
                                                                 : std::string(": cannot open folder: ") + std::strerror(err)));
    }
    dir = std::move(next);
  }
  return dir;
}

/// What the last component is, without following a link: 0 absent, else st_mode.
mode_t mode_of(int dir, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  return st.st_mode;
}

void require_regular_or_absent(int dir, const std::string& path, const std::string& name) {
  const mode_t m = mode_of(dir, name);
  if (m == 0 || S_ISREG(m)) return;
  throw FileError(path + (S_ISLNK(m) ? ": is a symbolic link; not followed" : ": is not a regular file"));
}

}  // namespace

void require_confined(const std::string& rel) {
  if (rel.empty()) throw FileError("an empty path");
  if (rel.find('\0') != std::string::npos) throw FileError("a path with a NUL byte");
  if (rel[0] == '/') throw FileError(rel + ": an absolute path; only paths below the folder are allowed");
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t e = rel.find('/', pos);
    const std::string c = rel.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
    if (c.empty() || c == "." || c == "..")
      throw FileError(rel + ": a path with " + (c.empty() ? "an empty" : "a '" + c + "'") +
                      " component; only plain paths below the folder are allowed");
    if (e == std::string::npos) break;
    pos = e + 1;
  }
}

void write_file_confined(const std::filesystem::path& root, const std::string& rel, const std::string& data) {
  const auto p = parts(rel);
  Fd dir = open_parent(root, p, true);
  const std::string name = p.back(), path = (root / rel).string();
  require_regular_or_absent(dir.fd, path, name);
  const std::string tmp = name + ".tmp." + std::to_string(::getpid());
  ::unlinkat(dir.fd, tmp.c_str(), 0);  // a leftover of a killed run of this pid
  Fd f(::openat(dir.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (f.fd < 0) throw FileError(path + ".tmp: cannot open for writing: " + std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(f.fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::unlinkat(dir.fd, tmp.c_str(), 0);
      throw FileError(path + ": write failed: " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(f.fd) != 0) {
    f.fd = -1;
    const int err = errno;
    ::unlinkat(dir.fd, tmp.c_str(), 0);
    throw FileError(path + ": write failed: " + std::strerror(err));
  }
  f.fd = -1;
  if (::renameat(dir.fd, tmp.c_str(), dir.fd, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir.fd, tmp.c_str(), 0);
    throw FileError(path + ": cannot rename into place: " + std::strerror(err));
  }
}

std::string read_file_confined(const std::filesystem::path& root, const std::string& rel, std::uintmax_t max_bytes) {
  const auto p = parts(rel);
  Fd dir = open_parent(root, p, false);
  const std::string path = (root / rel).string();
  const mode_t m = mode_of(dir.fd, p.back());
  if (m == 0) throw FileError(path + ": no such file");
  if (!S_ISREG(m)) throw FileError(path + (S_ISLNK(m) ? ": is a symbolic link; not followed" : ": is not a regular file"));
  Fd f(::openat(dir.fd, p.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (f.fd < 0) throw FileError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw FileError(path + ": is not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw FileError(path + ": is " + std::to_string(st.st_size) + " bytes; at most " + std::to_string(max_bytes) +
                    " are read");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) throw FileError(path + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      throw FileError(path + ": grew past " + std::to_string(max_bytes) + " bytes while read");
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

bool regular_file_confined(const std::filesystem::path& root, const std::string& rel) {
  try {
    const auto p = parts(rel);
    Fd dir = open_parent(root, p, false);
    return S_ISREG(mode_of(dir.fd, p.back()));
  } catch (const FileError&) {
    return false;
  }
}

void remove_file_confined(const std::filesystem::path& root, const std::string& rel) {
  const auto p = parts(rel);
  Fd dir = open_parent(root, p, false);
  const std::string path = (root / rel).string();
  const mode_t m = mode_of(dir.fd, p.back());
  if (m == 0) return;
  if (!S_ISREG(m)) throw FileError(path + (S_ISLNK(m) ? ": is a symbolic link; not removed" : ": is not a regular file"));
  if (::unlinkat(dir.fd, p.back().c_str(), 0) != 0) throw FileError(path + ": cannot remove: " + std::strerror(errno));
}

}  // namespace fusecert::support
