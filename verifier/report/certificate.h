// Writes proposition certificates (`fusecert prove --certify DIR`).
#pragma once
#include <filesystem>
#include <vector>

#include "verifier/report/report.h"

namespace fusecert::verifier::report {

/// Writes DIR/<id>.cert.json for each result (atomic writes, byte-identical
/// on re-run). Returns the paths. Throws support::FileError on I/O failure.
std::vector<std::filesystem::path> write_certificates(const std::vector<PropositionResult>& rs, const Registry& reg,
                                                      const std::filesystem::path& dir);

}  // namespace fusecert::verifier::report
