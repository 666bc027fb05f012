#include "support/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fusecert::support {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw FileError(p.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw FileError(p.string() + ": read error");
  return ss.str();
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
