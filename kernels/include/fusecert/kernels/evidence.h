// evidence.h — the four hardware evidence rows (kernels.md) and the
// benchmark, as functions shared by `fusecert-kernels` and the GPU tests.
// All need a CUDA device (check cuda_device_available() first); failures of
// the CUDA runtime throw std::runtime_error.
#pragma once
#include <string>
#include <vector>

#include "fusecert/kernels/tiling.h"

namespace fusecert::kernels {

/// One evidence row: `passed` is the row's verdict, `json` a JSON object with
/// the measured figures, `summary` one human-readable line.
struct EvidenceRow {
  int number = 0;
  std::string id;
  std::string proposition;
  bool passed = false;
  std::string summary;
  std::string json;
};

/// Row 1: fused kernels vs the host reference with the same K order; W, m, v
/// bitwise (several seeds, shapes, AdamW + SGD-momentum, f32/bf16 W and state).
EvidenceRow evidence_fused_vs_host();
/// Row 2: every tile configuration of an engine bitwise equal (P1).
EvidenceRow evidence_tile_configs();
/// Row 3: peak step-scoped device memory, fused vs unfused (P8).
EvidenceRow evidence_no_gradient_buffer();
/// Row 4: fp32 accumulator vs bf16-rounded gradient, 20 AdamW steps vs a
/// float64 host reference, for (f32 W, f32 state), (f32, bf16), (bf16, bf16) (P6).
EvidenceRow evidence_p6_gains();

/// The device, driver and runtime, as a JSON object.
std::string device_info_json();

/// One benchmark case: W [N, H] bf16, states `state` (f32/bf16), AdamW.
struct BenchShape {
  int N, H, BT;
};
/// Runs the benchmark; returns a JSON document (see docs/kernels.md) and
/// prints a table to `table` (may be null).
std::string run_benchmark(const std::vector<BenchShape>& shapes, int reps, std::string* table);

}  // namespace fusecert::kernels
