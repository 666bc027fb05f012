// evidence.h — the four hardware evidence rows (kernels.md) and the
// benchmark, as functions shared by `fusecert-kernels` and the GPU tests.
// All need a CUDA device (check cuda_device_available() first); failures of
// the CUDA runtime throw std::runtime_error.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "fusecert/kernels/tiling.h"

namespace fusecert::kernels {

/// One evidence row: `passed` is the row's verdict, `details` a JSON object
/// with the measured figures, `summary` one human-readable line.
struct EvidenceRow {
  int number = 0;
  std::string id;
  std::string proposition;
  bool passed = false;
  std::string summary;
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
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
nlohmann::ordered_json device_info_json();

/// One benchmark case: W [N, H] bf16, states `state` (f32/bf16), AdamW.
struct BenchShape {
  int N, H, BT;
};
/// The baselines a benchmark is compared with, besides the unfused step it
/// measures itself (bench_baselines.h): PyTorch's times from this batch
/// (`torch`, written by bench/kernels/torch_baseline.py just before) and the
/// previous run's (`previous`: a bench document; `previous_torch`: a
/// torch_baseline document). Each is null when not given.
struct BenchBaselines {
  nlohmann::ordered_json torch, previous, previous_torch;
  std::string torch_file, previous_file, previous_torch_file;
};

/// Runs the benchmark; returns the JSON document (see docs/kernels.md) and
/// prints a table to `table` (may be null).
nlohmann::ordered_json run_benchmark(const std::vector<BenchShape>& shapes, int reps,
                                     const BenchBaselines& baselines, std::string* table);

}  // namespace fusecert::kernels
