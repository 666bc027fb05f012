// fusecert-kernels — runs the hardware evidence and the benchmark of the
// fused weight-gradient + optimizer kernels. `fusecert kernels ...` execs it.
//
//   fusecert-kernels evidence [--format json|text]
//   fusecert-kernels bench [--shapes NxHxBT,...] [--reps R] [--format json|text]
//                          [--torch FILE] [--previous FILE] [--previous-torch FILE]
//       --torch: this batch's bench/kernels/torch_baseline.py output (ratio vs PyTorch);
//       --previous / --previous-torch: the last run's bench and PyTorch documents,
//       printed beside this run's baselines (a malformed file is a usage error)
//   fusecert-kernels evidence|bench --distributed [--ranks R] [--format json]
//                                  (P3, NCCL, one process per GPU; JSON only; R in 1..16, default 2)
// Exit codes: 0 pass, 1 an evidence row failed, 2 usage error / no CUDA device.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fusecert/kernels/bench_baselines.h"
#include "fusecert/kernels/cuda_api.h"
#include "fusecert/kernels/distributed.h"
#include "fusecert/kernels/document_format.h"
#include "fusecert/kernels/evidence.h"

namespace fk = fusecert::kernels;

namespace {

int usage(const std::string& why = "") {
  if (!why.empty()) std::cerr << "fusecert-kernels: " << why << "\n";
  std::cerr << "usage: fusecert-kernels evidence [--format json|text]\n"
               "       fusecert-kernels bench [--shapes NxHxBT,...] [--reps R] "
               "[--format json|text]\n"
               "                              [--torch FILE] [--previous FILE] "
               "[--previous-torch FILE]\n"
               "       fusecert-kernels evidence|bench --distributed [--ranks R] [--format json]\n";
  return 2;
}

/// A whole-string decimal int in [lo, hi] (std::atoi took "2x" as 2, "x" as 0).
bool parse_int(const char* s, int lo, int hi, int* out) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

std::vector<fk::BenchShape> default_shapes() {
  std::vector<fk::BenchShape> v;
  for (auto [n, h] : {std::pair{4096, 4096}, std::pair{4096, 14336}, std::pair{14336, 4096}})
    for (int bt : {512, 2048, 8192}) v.push_back({n, h, bt});
  return v;
}

bool parse_shapes(const std::string& arg, std::vector<fk::BenchShape>* out) {
  std::stringstream ss(arg);
  std::string item;
  while (std::getline(ss, item, ',')) {
    fk::BenchShape b{};
    char x1 = 0, x2 = 0;
    std::stringstream is(item);
    if (!(is >> b.N >> x1 >> b.H >> x2 >> b.BT) || x1 != 'x' || x2 != 'x' || b.N <= 0 ||
        b.H <= 0 || b.BT <= 0)
      return false;
    if (b.N % 128 || b.H % 128 || b.BT % 32) return false;
    out->push_back(b);
  }
  return !out->empty();
}

std::string utc_now() {
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  std::string format = "text";
  std::vector<fk::BenchShape> shapes;
  int reps = 20, ranks = 2;
  bool distributed = false, format_given = false, ranks_given = false, reps_given = false;
  fk::BenchBaselines baselines;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--format" && i + 1 < argc) {
      format = argv[++i];
      format_given = true;
      if (format != "json" && format != "text") return usage("--format takes json or text");
    } else if (a == "--shapes" && i + 1 < argc && cmd == "bench") {
      if (!parse_shapes(argv[++i], &shapes)) {
        std::cerr << "fusecert-kernels: --shapes takes NxHxBT,... with N, H multiples of 128 "
                     "and BT a multiple of 32\n";
        return 2;
      }
    } else if ((a == "--torch" || a == "--previous" || a == "--previous-torch") && i + 1 < argc &&
               cmd == "bench") {
      const std::string file = argv[++i];
      const auto kind = a == "--previous" ? fk::BaselineKind::bench : fk::BaselineKind::torch;
      try {
        nlohmann::ordered_json doc = fk::read_baseline_document(file, kind);
        if (a == "--torch") baselines.torch = std::move(doc), baselines.torch_file = file;
        if (a == "--previous") baselines.previous = std::move(doc), baselines.previous_file = file;
        if (a == "--previous-torch")
          baselines.previous_torch = std::move(doc), baselines.previous_torch_file = file;
      } catch (const std::exception& e) {
        return usage(a + ": " + e.what());
      }
    } else if (a == "--distributed") {
      distributed = true;
    } else if (a == "--ranks" && i + 1 < argc) {
      if (!parse_int(argv[++i], 1, 16, &ranks))
        return usage("--ranks takes an integer from 1 to 16, not '" + std::string(argv[i]) + "'");
      ranks_given = true;
    } else if (a == "--reps" && i + 1 < argc && cmd == "bench") {
      if (!parse_int(argv[++i], 1, 1000000, &reps))
        return usage("--reps takes a positive integer, not '" + std::string(argv[i]) + "'");
      reps_given = true;
    } else {
      return usage("unexpected argument '" + a + "'");
    }
  }
  if (cmd != "evidence" && cmd != "bench") return usage("unknown subcommand '" + cmd + "'");
  if (ranks_given && !distributed) return usage("--ranks requires --distributed");
  if (distributed && format_given && format != "json")
    return usage("--distributed writes JSON only; drop --format or use --format json");
  const bool compared = !baselines.torch.is_null() || !baselines.previous.is_null() ||
                        !baselines.previous_torch.is_null();
  if (distributed && (reps_given || !shapes.empty() || compared))
    return usage("--shapes, --reps, --torch and --previous* do not apply to --distributed");

  if (distributed) {
#if defined(FUSECERT_KERNELS_NCCL)
    // Forks one process per GPU: nothing here may touch CUDA before that.
    int rc = 2;
    const std::string json = fk::run_distributed({ranks, cmd}, &rc);
    std::cout << json;
    if (rc == 2)
      std::cerr << "fusecert kernels " << cmd << " --distributed: setup failed (see \"error\"; "
                << ranks << (ranks == 1 ? " CUDA GPU is" : " CUDA GPUs are")
                << " needed). Nothing was measured.\n";
    return rc;
#else
    std::cerr << "fusecert kernels " << cmd << " --distributed: built without NCCL\n";
    return 2;
#endif
  }
  std::string why;
  if (!fk::cuda_device_available(&why)) {
    // In the one form (docs/diagnostics.md): an error about no file, named
    // for the subcommand, with its rule id, then a note.
    const char* const rule = "kernels.no_device";  // rules/catalog.yaml
    std::cerr << "fusecert kernels " << cmd << ": error: " << why << "; nothing was run [" << rule << "]\n"
              << "fusecert kernels " << cmd
              << ": note: the evidence and the benchmark run only on a machine with an NVIDIA GPU "
                 "(built for sm_90a, H100/H200; PTX for sm_80+) and an NVIDIA driver new enough "
                 "for the CUDA runtime it was built with; `nvidia-smi` shows both\n";
    return 2;
  }
  try {
    if (cmd == "bench") {
      if (shapes.empty()) shapes = default_shapes();
      std::string table;
      const nlohmann::ordered_json doc = fk::run_benchmark(shapes, reps, baselines, &table);
      if (format == "json") {
        std::cout << doc.dump(2) << "\n";
        std::cerr << table;  // the human-readable table, beside the JSON
      } else {
        std::cout << table;
      }
      return 0;
    }
    std::vector<fk::EvidenceRow> rows;
    rows.push_back(fk::evidence_fused_vs_host());
    rows.push_back(fk::evidence_tile_configs());
    rows.push_back(fk::evidence_no_gradient_buffer());
    rows.push_back(fk::evidence_p6_gains());
    bool all = true;
    for (const auto& r : rows) all = all && r.passed;
    if (format == "json") {
      nlohmann::ordered_json doc;
      doc["schema"] = fk::kEvidenceFormat;
      doc["kind"] = "fusecert-kernels evidence";
      doc["date"] = utc_now();
      doc["device"] = fk::device_info_json();
      doc["passed"] = all;
      doc["rows"] = nlohmann::ordered_json::array();
      for (const auto& r : rows)
        doc["rows"].push_back({{"row", r.number},
                               {"id", r.id},
                               {"proposition", r.proposition},
                               {"passed", r.passed},
                               {"details", r.details}});
      std::cout << doc.dump(2) << "\n";
    } else {
      for (const auto& r : rows)
        std::cout << "row " << r.number << " " << r.id << " (" << r.proposition
                  << "): " << (r.passed ? "PASS" : "FAIL") << " — " << r.summary << "\n";
      std::cout << (all ? "all rows pass\n" : "some rows FAIL\n");
    }
    return all ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "fusecert-kernels " << cmd << ": " << e.what() << "\n";
    return 2;
  }
}
