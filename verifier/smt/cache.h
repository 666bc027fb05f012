// Process-wide cache of solver results keyed by the SHA-256 of the query text
// and the timeout, so identical obligations (across propositions, candidates,
// shell commands) are solved once. Thread-safe.
#pragma once
#include <optional>
#include <string>

#include "verifier/smt/query.h"

namespace fusecert::smt {

/// Looks `key` up; nullopt when absent.
std::optional<CheckResult> cache_lookup(const std::string& key);
/// Stores a definite result under `key` (Timeout/Error/Unknown are not stored).
void cache_store(const std::string& key, const CheckResult& r);
/// Drops every entry (tests, shell `reset`).
void cache_clear();
/// Entries and hits so far.
struct CacheStats { std::size_t entries = 0, hits = 0, misses = 0; };
CacheStats cache_stats();

}  // namespace fusecert::smt
