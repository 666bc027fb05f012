#include "support/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fusecert::support {

std::string read_file(const std::filesystem::path& p, std::uintmax_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says
  // what was opened (no window between a check and the open).
  const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw FileError(p.string() + ": cannot open: " + std::strerror(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw FileError(p.string() + ": cannot stat: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw FileError(p.string() + ": is a folder, not a regular file");
  if (!S_ISREG(st.st_mode)) throw FileError(p.string() + ": not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw FileError(p.string() + ": is " + std::to_string(st.st_size) + " bytes; at most " +
                    std::to_string(max_bytes) + " are read");
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw FileError(p.string() + ": read error: " + std::strerror(errno));
    }
    if (n == 0) break;
    // The file may grow while it is read: the cap holds for what is read.
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      throw FileError(p.string() + ": grew past " + std::to_string(max_bytes) + " bytes while read");
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

void write_file_atomic(const std::filesystem::path& p, const std::string& data) {
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (ec) throw FileError(p.parent_path().string() + ": cannot create folder: " + ec.message());
  std::filesystem::path tmp = p;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw FileError(tmp.string() + ": cannot open for writing: " + std::strerror(errno));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      throw FileError(tmp.string() + ": write failed");
    }
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw FileError(p.string() + ": cannot rename into place: " + ec.message());
  }
}

}  // namespace fusecert::support
