// bench.cpp — `fusecert-kernels bench`: fused kernel vs the unfused baseline
// (cuBLAS GEMM + the elementwise optimizer kernel) in one process, CUDA-event
// medians after warm-up with L2 flushed before every timed run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>

#include "cuda_util.h"
#include "fusecert/kernels/bench_baselines.h"
#include "fusecert/kernels/cuda_api.h"
#include "fusecert/kernels/document_format.h"
#include "fusecert/kernels/evidence.h"
#include "fusecert/kernels/host_reference.h"

namespace fusecert::kernels {
namespace {

using util::DevBuf;
using util::Json;

/// A time or ratio for the table: "-" when not measured.
std::string cell(const std::optional<double>& x, const char* fmt) {
  if (!x) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, *x);
  return b;
}
Json num_or_null(const std::optional<double>& x) { return x ? Json(*x) : Json(nullptr); }

class Timer {
 public:
  Timer() : flush_(std::size_t(512) << 20) {
    FK_CHECK(cudaEventCreate(&a_));
    FK_CHECK(cudaEventCreate(&b_));
  }
  ~Timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  /// Median milliseconds of fn() over `reps` runs after `warm` runs; the L2
  /// (60 MB on an H200) is flushed by a 512 MiB memset before each run.
  double median_ms(const std::function<void()>& fn, int reps, int warm = 3) {
    for (int i = 0; i < warm; ++i) fn();
    FK_CHECK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      FK_CHECK(cudaMemsetAsync(flush_.get(), i & 0xff, flush_.bytes(), 0));
      FK_CHECK(cudaEventRecord(a_, 0));
      fn();
      FK_CHECK(cudaEventRecord(b_, 0));
      FK_CHECK(cudaEventSynchronize(b_));
      float ms = 0;
      FK_CHECK(cudaEventElapsedTime(&ms, a_, b_));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

 private:
  DevBuf flush_;
  cudaEvent_t a_, b_;
};

}  // namespace

Json run_benchmark(const std::vector<BenchShape>& shapes, int reps, const BenchBaselines& base,
                   std::string* table) {
  Timer timer;
  CublasWgrad blas;
  auto ok = [](const std::string& e) {
    if (!e.empty()) throw std::runtime_error("cuBLAS: " + e);
  };

  // Ceilings, measured in this run: device copy (bytes read + written) and a
  // large bf16 GEMM through cuBLAS on random data.
  double copy_tbps = 0, gemm_tflops = 0;
  {
    const std::size_t bytes = std::size_t(2) << 30;
    DevBuf a(bytes), b(bytes);
    FK_CHECK(cudaMemset(a.get(), 1, bytes));
    const double ms = timer.median_ms(
        [&] { FK_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, 0)); },
        10);
    copy_tbps = 2.0 * bytes / (ms * 1e-3) / 1e12;
    const int S = 8192;
    DevBuf A(std::size_t(S) * S * 2), B(std::size_t(S) * S * 2), C(std::size_t(S) * S * 2);
    FK_CHECK(fill_random_device(A.get(), DType::bf16, std::size_t(S) * S, 91, 1.0f, false, 0));
    FK_CHECK(fill_random_device(B.get(), DType::bf16, std::size_t(S) * S, 92, 1.0f, false, 0));
    const double gms = timer.median_ms(
        [&] { ok(blas.gemm_bf16(S, S, S, A.as<bf16>(), B.as<bf16>(), C.as<bf16>(), 0)); }, 10);
    gemm_tflops = 2.0 * S * S * S / (gms * 1e-3) / 1e12;
  }

  StepParams p;
  p.opt = Optimizer::adamw;
  p.step = 10;
  p = make_step_params(p);
  Json cases = Json::array();
  char line[768];
  if (table) {
    std::snprintf(line, sizeof line, "ceilings: copy %.2f TB/s, cuBLAS bf16 GEMM %.0f TFLOP/s\n",
                  copy_tbps, gemm_tflops);
    *table += line;
    *table +=
        "  N      H      BT   state | fused us (cfg)               | unfused us (gemm+opt) prev  | "
        "torch us  prev   | x unfused x torch | TFLOP/s GB/s | bound us frac\n";
  }
  for (const BenchShape& sh : shapes)
    for (DType st : {DType::bf16, DType::f32}) {
      const Shape s{sh.BT, sh.N, sh.H};
      const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
      const std::size_t sb = dtype_bytes(st);
      DevBuf dy(std::size_t(2) * s.BT * s.N), x(std::size_t(2) * s.BT * s.H);
      DevBuf w(n * 2), m(n * sb), v(n * sb), g(n * 2);
      FK_CHECK(fill_random_device(dy.get(), DType::bf16, std::size_t(s.BT) * s.N, 1, 1.0f, false, 0));
      FK_CHECK(fill_random_device(x.get(), DType::bf16, std::size_t(s.BT) * s.H, 2, 1.0f, false, 0));
      FK_CHECK(fill_random_device(w.get(), DType::bf16, n, 3, 0.5f, false, 0));
      FK_CHECK(fill_random_device(m.get(), st, n, 4, 0.1f, false, 0));
      FK_CHECK(fill_random_device(v.get(), st, n, 5, 0.01f, true, 0));

      Json cfg_json = Json::object();
      std::string best_name;
      double best = 1e30;
      std::vector<TileConfig> candidates = mma_configs();
      if (wgmma_supported())
        for (const auto& c : wgmma_configs()) candidates.push_back(c);
      for (const TileConfig& cfg : candidates) {
        const double ms = timer.median_ms(
            [&] {
              FK_CHECK(launch_fused(cfg, p, s, dy.as<bf16>(), x.as<bf16>(), w.get(), DType::bf16,
                                    m.get(), v.get(), st, nullptr, 0));
            },
            reps);
        cfg_json[cfg.name()] = ms * 1e3;
        if (ms < best) best = ms, best_name = cfg.name();
      }
      const double gemm_ms = timer.median_ms(
          [&] { ok(blas.run(s, dy.as<bf16>(), x.as<bf16>(), g.get(), DType::bf16, 0)); }, reps);
      const double opt_ms = timer.median_ms(
          [&] {
            FK_CHECK(launch_optimizer(p, g.get(), DType::bf16, n, w.get(), DType::bf16, m.get(),
                                      v.get(), st, 0));
          },
          reps);
      const double unfused_ms = timer.median_ms(
          [&] {
            ok(blas.run(s, dy.as<bf16>(), x.as<bf16>(), g.get(), DType::bf16, 0));
            FK_CHECK(launch_optimizer(p, g.get(), DType::bf16, n, w.get(), DType::bf16, m.get(),
                                      v.get(), st, 0));
          },
          reps);
      const double flops = 2.0 * s.BT * static_cast<double>(s.N) * s.H;
      const double in_bytes = 2.0 * s.BT * (static_cast<double>(s.N) + s.H);
      const double fused_bytes = in_bytes + n * (2.0 * 2 + 2.0 * 2 * sb);  // W r/w, m/v r/w
      const double unfused_bytes = fused_bytes + n * 4.0;                 // bf16 g write + read
      const double gemm_bound = flops / (gemm_tflops * 1e12) * 1e6;       // us
      const double fused_bound = std::max(gemm_bound, fused_bytes / (copy_tbps * 1e12) * 1e6);
      // Unfused: the GEMM (writing the bf16 gradient), then a memory-bound
      // optimizer pass (g read, W/m/v read and written).
      const double bw = copy_tbps * 1e12;
      const double unfused_bound = std::max(gemm_bound, (in_bytes + n * 2.0) / bw * 1e6) +
                                   (unfused_bytes - in_bytes - n * 2.0) / bw * 1e6;
      const double fused_us = best * 1e3;
      const std::string sname = st == DType::f32 ? "f32" : "bf16";
      // The baselines beside this run's: PyTorch from this batch (bf16 states
      // only) and the previous run's unfused and PyTorch times.
      auto lookup = [&](const Json& doc, BaselineKind kind) -> std::optional<double> {
        if (doc.is_null()) return std::nullopt;
        return baseline_us(doc, kind, s.N, s.H, s.BT, sname);
      };
      const std::optional<double> torch_us = lookup(base.torch, BaselineKind::torch);
      const std::optional<double> prev_unfused = lookup(base.previous, BaselineKind::bench);
      const std::optional<double> prev_torch = lookup(base.previous_torch, BaselineKind::torch);
      const std::optional<double> vs_torch =
          torch_us ? std::optional<double>(*torch_us / fused_us) : std::nullopt;
      Json c;
      c["N"] = s.N;
      c["H"] = s.H;
      c["BT"] = s.BT;
      c["W"] = "bf16";
      c["state"] = sname;
      c["fused_us"] = fused_us;
      c["fused_config"] = best_name;
      c["fused_configs_us"] = cfg_json;
      c["unfused_us"] = unfused_ms * 1e3;
      c["unfused_previous_us"] = num_or_null(prev_unfused);
      c["cublas_gemm_us"] = gemm_ms * 1e3;
      c["optimizer_kernel_us"] = opt_ms * 1e3;
      c["torch_us"] = num_or_null(torch_us);
      c["torch_previous_us"] = num_or_null(prev_torch);
      c["speedup_vs_unfused"] = unfused_ms / best;
      c["speedup_vs_torch"] = num_or_null(vs_torch);
      c["fused_tflops"] = flops / (best * 1e-3) / 1e12;
      c["fused_gbps"] = fused_bytes / (best * 1e-3) / 1e9;
      c["fused_bytes"] = fused_bytes;
      c["fused_bound_us"] = fused_bound;
      c["fraction_of_fused_bound"] = fused_bound / fused_us;
      c["unfused_bound_us"] = unfused_bound;
      cases.push_back(std::move(c));
      if (table) {
        std::snprintf(line, sizeof line,
                      "%6d %6d %6d  %-4s | %8.1f (%-19s) | %8.1f (%6.1f+%6.1f) %6s | %7s %6s | "
                      "%7.2fx %6sx | %6.1f %5.0f | %7.1f %4.2f\n",
                      s.N, s.H, s.BT, sname.c_str(), fused_us, best_name.c_str(), unfused_ms * 1e3,
                      gemm_ms * 1e3, opt_ms * 1e3, cell(prev_unfused, "%.1f").c_str(),
                      cell(torch_us, "%.1f").c_str(), cell(prev_torch, "%.1f").c_str(),
                      unfused_ms / best, cell(vs_torch, "%.2f").c_str(),
                      flops / (best * 1e-3) / 1e12, fused_bytes / (best * 1e-3) / 1e9, fused_bound,
                      fused_bound / fused_us);
        *table += line;
      }
    }
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  Json doc;
  doc["schema"] = kBenchFormat;
  doc["kind"] = "fusecert-kernels bench";
  doc["date"] = date;
  doc["device"] = device_info_json();
  doc["optimizer"] = "adamw";
  doc["W"] = "bf16";
  doc["method"] =
      "CUDA-event median of " + std::to_string(reps) +
      " runs after 3 warm-ups, 512 MiB memset before each run (L2 flush); unfused = cuBLAS "
      "GemmEx (bf16 gradient out, fp32 compute) + the elementwise optimizer kernel; bounds from "
      "the ceilings measured in this run; torch_us from the PyTorch baseline run just before in "
      "the same batch (bf16 states only); *_previous_us from the previous run's documents";
  auto source = [](const Json& d, const std::string& file) {
    if (d.is_null()) return Json(nullptr);
    Json o;
    o["file"] = file;
    o["date"] = d.contains("date") ? d["date"] : Json(nullptr);
    return o;
  };
  doc["baselines"] = {{"torch", source(base.torch, base.torch_file)},
                      {"previous", source(base.previous, base.previous_file)},
                      {"previous_torch", source(base.previous_torch, base.previous_torch_file)}};
  doc["ceilings"] = {{"copy_tbps", copy_tbps}, {"cublas_bf16_gemm_tflops", gemm_tflops}};
  doc["cases"] = std::move(cases);
  return doc;
}

}  // namespace fusecert::kernels
