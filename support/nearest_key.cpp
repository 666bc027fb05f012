#include "support/nearest_key.h"

#include <algorithm>
#include <cctype>

namespace fusecert::support {
namespace {

std::string squash(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '.' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t edits(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_key(const std::string& key, const std::vector<std::string>& known) {
  std::string best;
  size_t best_d = 3;
  for (const auto& k : known) {
    if (squash(k) == squash(key)) return k;
    size_t d = edits(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  return best;
}

}  // namespace fusecert::support
