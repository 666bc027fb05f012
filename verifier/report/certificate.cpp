// Proposition certificates are rendered by render_certificate() (json.cpp);
// this file writes them: one deterministic file per proposition.
#include "verifier/report/certificate.h"

#include "support/files.h"

namespace fusecert::verifier::report {

std::vector<std::filesystem::path> write_certificates(const std::vector<PropositionResult>& rs, const Registry& reg,
                                                      const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> written;
  for (const auto& r : rs) {
    auto path = dir / (r.id + ".cert.json");
    support::write_file_atomic(path, render_certificate(r, reg).dump(2) + "\n");
    written.push_back(path);
  }
  return written;
}

}  // namespace fusecert::verifier::report
