#include "verifier/smt/cache.h"

#include <mutex>
#include <unordered_map>

namespace fusecert::smt {
namespace {
std::mutex mu;
std::unordered_map<std::string, CheckResult>& table() {
  static std::unordered_map<std::string, CheckResult> t;
  return t;
}
CacheStats stats;
}  // namespace

std::optional<CheckResult> cache_lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = table().find(key);
  if (it == table().end()) {
    ++stats.misses;
    return std::nullopt;
  }
  ++stats.hits;
  CheckResult r = it->second;
  r.cached = true;
  return r;
}

void cache_store(const std::string& key, const CheckResult& r) {
  if (!is_definite(r.answer)) return;
  std::lock_guard<std::mutex> lock(mu);
  table()[key] = r;
}

void cache_clear() {
  std::lock_guard<std::mutex> lock(mu);
  table().clear();
  stats = {};
}

CacheStats cache_stats() {
  std::lock_guard<std::mutex> lock(mu);
  CacheStats s = stats;
  s.entries = table().size();
  return s;
}

}  // namespace fusecert::smt
