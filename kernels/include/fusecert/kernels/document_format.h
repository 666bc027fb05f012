// The format name and version of every JSON document the kernels runner
// writes, under "schema" as every fusecert report carries it
// (docs/diagnostics.md "Format versions"; docs/schemas/kernels-*.schema.json
// require the exact value when present). /1: the form the runner wrote
// before it carried a version, unchanged; the documents of earlier batches
// under docs/kernels/ lack the key and are of that same form.
#pragma once

namespace fusecert::kernels {

inline constexpr const char* kEvidenceFormat = "fusecert-kernels-evidence/1";
inline constexpr const char* kBenchFormat = "fusecert-kernels-bench/1";
inline constexpr const char* kDistributedFormat = "fusecert-kernels-distributed/1";

}  // namespace fusecert::kernels
