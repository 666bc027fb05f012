// bench_baselines.h — the documents a benchmark run is compared with: this
// batch's PyTorch baseline (bench/kernels/torch_baseline.py) and the previous
// run's benchmark and PyTorch documents, so that a change made for the fused
// kernel cannot move either baseline unnoticed (issue #20). They are read
// from files, so they are checked before use and refused when malformed.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace fusecert::kernels {

/// Which baseline a document holds.
enum class BaselineKind {
  bench,  ///< `fusecert-kernels bench --format json`: cases[].unfused_us
  torch,  ///< torch_baseline.py: cases[].mm_plus_adamw_fused_us
};

/// "" when `doc` is a document of `kind` the comparison can use: an object
/// whose "cases" is an array of objects, each with integer N, H, BT > 0, a
/// "state" of "bf16" or "f32" and the kind's time as a positive number, no
/// (N, H, BT, state) twice; otherwise what is wrong, naming the case.
std::string check_baseline_document(const nlohmann::ordered_json& doc, BaselineKind kind);

/// The kind's time in µs for case (N, H, BT, state) of a checked document;
/// nullopt when it has no such case.
std::optional<double> baseline_us(const nlohmann::ordered_json& doc, BaselineKind kind, int N,
                                  int H, int BT, const std::string& state);

/// Reads, parses and checks the document at `path`; throws
/// std::runtime_error naming the file and what is wrong.
nlohmann::ordered_json read_baseline_document(const std::string& path, BaselineKind kind);

}  // namespace fusecert::kernels
