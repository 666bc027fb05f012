// device_info.cpp — see device_info.h.
#include "fusecert/kernels/device_info.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace fusecert::kernels {

namespace {

bool is_version_token(const std::string& w) {
  if (w.empty() || w[0] < '0' || w[0] > '9' || w.back() == '.') return false;
  bool dot = false;
  for (char c : w) {
    if (c == '.')
      dot = true;
    else if (c < '0' || c > '9')
      return false;
  }
  return dot;
}

}  // namespace

std::string parse_nvidia_driver_version(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("NVRM version:") == std::string::npos) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;)
      if (is_version_token(w)) return w;
    return "";
  }
  return "";
}

std::string read_nvidia_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  if (!f) return "unknown";
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  const std::string v = parse_nvidia_driver_version(text);
  return v.empty() ? "unknown" : v;
}

}  // namespace fusecert::kernels
