// evidence.cpp — the four hardware evidence rows (see evidence.h).
#include "fusecert/kernels/evidence.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "cuda_util.h"
#include "fusecert/kernels/cuda_api.h"
#include "fusecert/kernels/device_info.h"
#include "fusecert/kernels/host_reference.h"

namespace fusecert::kernels {
namespace {

using util::DevBuf;
using util::Json;

const char* dname(DType t) { return t == DType::f32 ? "f32" : "bf16"; }
const char* oname(Optimizer o) { return o == Optimizer::adamw ? "adamw" : "sgd_momentum"; }

/// Host-side state of one step: inputs and W/m/v in their storage types.
struct HostCase {
  Shape s;
  std::vector<bf16> dY, X;
  std::vector<std::uint8_t> W, m, v;
  DType wt, st;
  std::size_t elems() const { return static_cast<std::size_t>(s.N) * s.H; }
};

HostCase make_case(const Shape& s, DType wt, DType st, std::uint64_t seed) {
  Rng rng(seed);
  HostCase c{s, {}, {}, {}, {}, {}, wt, st};
  c.dY = random_bf16(rng, static_cast<std::size_t>(s.BT) * s.N, 1.0);
  c.X = random_bf16(rng, static_cast<std::size_t>(s.BT) * s.H, 1.0);
  c.W = random_buffer(rng, c.elems(), wt, 0.5, false);
  c.m = random_buffer(rng, c.elems(), st, 0.1, false);
  c.v = random_buffer(rng, c.elems(), st, 0.01, true);
  return c;
}

StepParams params(Optimizer opt, int step) {
  StepParams p;
  p.opt = opt;
  p.step = step;
  return make_step_params(p);
}

/// Run one fused launch on host buffers (copied in, updated in place).
/// `dump` (nullable) receives the kernel's binary32 accumulator.
void run_fused_host(const TileConfig& cfg, const StepParams& p, const Shape& s, const bf16* dY,
                    const bf16* X, void* W, DType wt, void* m, void* v, DType st,
                    std::vector<float>* dump) {
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  DevBuf dy(sizeof(bf16) * s.BT * s.N), x(sizeof(bf16) * s.BT * s.H);
  DevBuf w(n * dtype_bytes(wt)), mm(n * dtype_bytes(st)), vv(n * dtype_bytes(st));
  DevBuf g(dump ? n * sizeof(float) : 0);
  dy.upload(dY);
  x.upload(X);
  w.upload(W);
  mm.upload(m);
  vv.upload(v);
  FK_CHECK(launch_fused(cfg, p, s, dy.as<bf16>(), x.as<bf16>(), w.get(), wt, mm.get(), vv.get(),
                        st, dump ? g.as<float>() : nullptr, 0));
  FK_CHECK(cudaDeviceSynchronize());
  w.download(W);
  mm.download(m);
  vv.download(v);
  if (dump) {
    dump->resize(n);
    g.download(dump->data());
  }
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

Json device_info_json() {
  int dev = 0, driver = 0, runtime = 0;
  cudaDeviceProp prop{};
  FK_CHECK(cudaGetDevice(&dev));
  FK_CHECK(cudaGetDeviceProperties(&prop, dev));
  FK_CHECK(cudaDriverGetVersion(&driver));
  FK_CHECK(cudaRuntimeGetVersion(&runtime));
  Json d;
  d["name"] = prop.name;
  // The kernel module's version string (e.g. "580.159.04"), when readable.
  // Bench files recorded before 2026-11-30 08:26 UTC (bench-step1..4.json)
  // hold "driver": "for" from an earlier parse of this line; see kernels.md.
  d["driver"] = read_nvidia_driver_version();
  d["cc"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d["sms"] = prop.multiProcessorCount;
  d["l2_bytes"] = prop.l2CacheSize;
  d["memory_bytes"] = prop.totalGlobalMem;
  d["cuda_driver_api"] = driver;
  d["cuda_runtime"] = runtime;
  return d;
}

EvidenceRow evidence_fused_vs_host() {
  EvidenceRow row{1, "fused_vs_host_bitwise", "P1", false, "", ""};
  const TileConfig simt = simt_configs()[1];
  std::vector<TileConfig> tensor_core = {mma_configs()[0]};
  if (wgmma_supported())
    for (const auto& c : wgmma_configs()) tensor_core.push_back(c);
  const std::vector<Shape> simt_shapes = {{100, 72, 136}, {512, 128, 256}};
  const Shape mma_shape{512, 128, 256};
  // 16 x 20 = 320 tiles of 128 x 128: more than two per CTA on 132 SMs.
  const Shape kMultiTileShape{128, 2048, 2560};
  std::vector<float> multi_g_host;
  std::size_t cases = 0, mismatches = 0;
  double worst_grad_rel = 0;
  std::string failures;
  for (Optimizer opt : {Optimizer::adamw, Optimizer::sgd_momentum})
    for (DType wt : {DType::f32, DType::bf16})
      for (DType st : {DType::f32, DType::bf16})
        for (std::uint64_t seed : {11u, 12u, 13u}) {
          const StepParams p = params(opt, 1 + static_cast<int>(seed % 7));
          auto compare = [&](const HostCase& ref, const HostCase& got, const std::string& what) {
            const std::size_t n = ref.elems();
            std::size_t bad = count_bit_mismatches(ref.W.data(), got.W.data(), ref.wt, n) +
                              count_bit_mismatches(ref.m.data(), got.m.data(), ref.st, n);
            if (opt == Optimizer::adamw)
              bad += count_bit_mismatches(ref.v.data(), got.v.data(), ref.st, n);
            ++cases;
            mismatches += bad;
            if (bad && failures.size() < 400)
              failures += what + " " + oname(opt) + " W=" + dname(wt) + " state=" + dname(st) +
                          " seed=" + std::to_string(seed) + ": " + std::to_string(bad) + "; ";
          };
          // (a) CUDA-core kernel vs host_fused_step: whole step, sequential K.
          for (const Shape& s : simt_shapes) {
            HostCase ref = make_case(s, wt, st, seed), got = ref;
            host_fused_step(p, ref.dY.data(), ref.X.data(), s, ref.W.data(), wt, ref.m.data(),
                            ref.v.data(), st);
            run_fused_host(simt, p, s, got.dY.data(), got.X.data(), got.W.data(), wt,
                           got.m.data(), got.v.data(), st, nullptr);
            compare(ref, got, simt.name());
          }
          // (b) tensor-core kernel: its epilogue vs the host optimizer applied
          // to the kernel's own accumulator (the hardware's 16-token MMA sums
          // are not reproducible on the CPU), plus the accumulator's error.
          for (const TileConfig& mma : tensor_core) {
            HostCase ref = make_case(mma_shape, wt, st, seed), got = ref;
            std::vector<float> g_dev;
            run_fused_host(mma, p, mma_shape, got.dY.data(), got.X.data(), got.W.data(), wt,
                           got.m.data(), got.v.data(), st, &g_dev);
            host_apply_optimizer(p, g_dev.data(), mma_shape, ref.W.data(), wt, ref.m.data(),
                                 ref.v.data(), st);
            compare(ref, got, mma.name());
            const std::vector<float> g_host =
                host_gradient_f32(ref.dY.data(), ref.X.data(), mma_shape);
            worst_grad_rel = std::max(worst_grad_rel, rel_l2(g_dev, g_host));
          }
          // (c) the persistent kernels on a grid of more tiles than SMs: several
          // tiles per CTA, so the ping-pong's second math warpgroup, the stage
          // and slice rings' wrap-around and the tile order are all exercised.
          if (seed != 11u) continue;
          for (const TileConfig& cfg : tensor_core) {
            if (cfg.epilogue != 3 && cfg.epilogue != 5) continue;
            HostCase ref = make_case(kMultiTileShape, wt, st, seed), got = ref;
            std::vector<float> g_dev;
            run_fused_host(cfg, p, kMultiTileShape, got.dY.data(), got.X.data(), got.W.data(), wt,
                           got.m.data(), got.v.data(), st, &g_dev);
            host_apply_optimizer(p, g_dev.data(), kMultiTileShape, ref.W.data(), wt, ref.m.data(),
                                 ref.v.data(), st);
            compare(ref, got, cfg.name() + " (multi-tile)");
            if (multi_g_host.empty())  // dY, X depend on the seed only
              multi_g_host = host_gradient_f32(ref.dY.data(), ref.X.data(), kMultiTileShape);
            worst_grad_rel = std::max(worst_grad_rel, rel_l2(g_dev, multi_g_host));
          }
        }
  // The square root the _pingpong epilogue takes inside its range
  // (sqrt_refined.cuh), against __fsqrt_rn on every binary32 pattern.
  SqrtRefinedCheck sq;
  FK_CHECK(check_sqrt_refined(&sq));
  const bool sqrt_ok = sq.in_range_mismatches == 0 && sq.select_mismatches == 0 &&
                       sq.in_range == sq.range_max_bits - sq.range_min_bits + 1ull;
  // The division the _pingpong epilogue takes when div_is_rn accepts it
  // (div_checked.cuh): the accepted quotients against __fdiv_rn.
  DivCheckedCheck dv;
  FK_CHECK(check_div_checked(&dv));
  const bool div_ok = dv.accepted_mismatches == 0 && dv.pairs == (1ull << 32);
  row.passed = mismatches == 0 && worst_grad_rel < 1e-5 && sqrt_ok && div_ok;
  row.summary = std::to_string(cases) + " cases, " + std::to_string(mismatches) +
                " mismatching elements; mma accumulator rel. L2 error vs sequential fp32 " +
                Json(worst_grad_rel).dump() + "; refined sqrt vs __fsqrt_rn on all 2^32 patterns: " +
                std::to_string(sq.in_range_mismatches) + " differ in its range, " +
                std::to_string(sq.select_mismatches) + " with the range check; checked division: " +
                std::to_string(dv.accepted_mismatches) + " of " + std::to_string(dv.accepted) +
                " accepted quotients differ from __fdiv_rn on 2^32 pairs";
  Json names = Json::array();
  for (const auto& c : tensor_core) names.push_back(c.name());
  row.details = {{"cases", cases},
                 {"mismatching_elements", mismatches},
                 {"simt_config", simt.name()},
                 {"tensor_core_configs", names},
                 {"simt_shapes_BT_N_H", {{100, 72, 136}, {512, 128, 256}}},
                 {"mma_shape_BT_N_H", {512, 128, 256}},
                 {"multi_tile_shape_BT_N_H", {128, 2048, 2560}},
                 {"multi_tile_configs", "the persistent ones (_tma, _pingpong), seed 11"},
                 {"seeds", {11, 12, 13}},
                 {"optimizers", {"adamw", "sgd_momentum"}},
                 {"W_dtypes", {"f32", "bf16"}},
                 {"state_dtypes", {"f32", "bf16"}},
                 {"mma_grad_rel_l2_vs_sequential", worst_grad_rel},
                 {"sqrt_refined",
                  {{"what", "sqrt_refined (one rsqrt.approx refined once) and sqrt_rn_select "
                            "(sqrt_refined inside the range, __fsqrt_rn outside) vs __fsqrt_rn, "
                            "bits, every binary32 pattern (two NaNs compare equal)"},
                   {"patterns", sq.patterns},
                   {"range_bits", {sq.range_min_bits, sq.range_max_bits}},
                   {"in_range", sq.in_range},
                   {"in_range_mismatches", sq.in_range_mismatches},
                   {"outside_mismatches", sq.outside_mismatches},
                   {"select_mismatches", sq.select_mismatches},
                   {"passed", sqrt_ok}}},
                 {"div_checked",
                  {{"what", "div_guess (rcp.approx, one correction of the quotient) kept where "
                            "div_is_rn accepts it, vs __fdiv_rn, bits, 2^32 pairs: half random "
                            "bits, half epilogue magnitudes (two NaNs compare equal)"},
                   {"pairs", dv.pairs},
                   {"epilogue_like_pairs", dv.epilogue_like_pairs},
                   {"accepted", dv.accepted},
                   {"accepted_mismatches", dv.accepted_mismatches},
                   {"guess_mismatches", dv.guess_mismatches},
                   {"refused_correct", dv.refused_correct},
                   {"epilogue_like_accepted", dv.epilogue_like_accepted},
                   {"passed", div_ok}}},
                 {"failures", failures}};
  return row;
}

EvidenceRow evidence_tile_configs() {
  EvidenceRow row{2, "tile_configs_bitwise", "P1", false, "", ""};
  const Shape s{512, 256, 256};
  std::vector<std::vector<TileConfig>> engines = {simt_configs(), mma_configs()};
  if (wgmma_supported()) engines.push_back(wgmma_configs());
  std::size_t comparisons = 0, mismatches = 0;
  std::string failures;
  for (Optimizer opt : {Optimizer::adamw, Optimizer::sgd_momentum})
    for (DType wt : {DType::f32, DType::bf16})
      for (DType st : {DType::f32, DType::bf16})
        for (const auto& configs : engines) {
          const StepParams p = params(opt, 3);
          const HostCase base = make_case(s, wt, st, 21);
          HostCase first = base;
          for (std::size_t k = 0; k < configs.size(); ++k) {
            HostCase got = base;
            run_fused_host(configs[k], p, s, got.dY.data(), got.X.data(), got.W.data(), wt,
                           got.m.data(), got.v.data(), st, nullptr);
            if (k == 0) {
              first = got;
              continue;
            }
            const std::size_t n = got.elems();
            std::size_t bad = count_bit_mismatches(first.W.data(), got.W.data(), wt, n) +
                              count_bit_mismatches(first.m.data(), got.m.data(), st, n);
            if (opt == Optimizer::adamw)
              bad += count_bit_mismatches(first.v.data(), got.v.data(), st, n);
            // The step must have changed W (a no-op kernel would compare equal).
            if (count_bit_mismatches(base.W.data(), got.W.data(), wt, n) == 0) bad += n;
            ++comparisons;
            mismatches += bad;
            if (bad && failures.size() < 400)
              failures += configs[k].name() + " vs " + configs[0].name() + " " + oname(opt) +
                          ": " + std::to_string(bad) + "; ";
          }
        }
  Json names = Json::array();
  for (const auto& configs : engines)
    for (const auto& c : configs) names.push_back(c.name());
  row.passed = mismatches == 0 && comparisons > 0;
  row.summary = std::to_string(comparisons) + " config pairs, " + std::to_string(mismatches) +
                " mismatching elements (4 simt + 4 mma" +
                (engines.size() > 2 ? " + " + std::to_string(engines[2].size()) + " wgmma (3 tile shapes; register, smem, warp-specialized, TMA-fed and ping-pong)" : std::string()) + " tile shapes)";
  row.details = {{"configs", names},
                 {"shape_BT_N_H", {512, 256, 256}},
                 {"comparisons", comparisons},
                 {"mismatching_elements", mismatches},
                 {"failures", failures}};
  return row;
}

EvidenceRow evidence_no_gradient_buffer() {
  EvidenceRow row{3, "no_gradient_buffer", "P8", false, "", ""};
  const Shape s{512, 4096, 4096};
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  const std::size_t grad_bytes = n * sizeof(bf16);
  const DType wt = DType::bf16, st = DType::bf16;
  DevBuf dy(sizeof(bf16) * s.BT * s.N), x(sizeof(bf16) * s.BT * s.H);
  DevBuf w(n * 2), m(n * 2), v(n * 2);
  FK_CHECK(fill_random_device(dy.get(), DType::bf16, s.BT * s.N, 1, 1.0f, false, 0));
  FK_CHECK(fill_random_device(x.get(), DType::bf16, s.BT * s.H, 2, 1.0f, false, 0));
  FK_CHECK(fill_random_device(w.get(), wt, n, 3, 0.5f, false, 0));
  FK_CHECK(fill_random_device(m.get(), st, n, 4, 0.1f, false, 0));
  FK_CHECK(fill_random_device(v.get(), st, n, 5, 0.01f, true, 0));
  const StepParams p = params(Optimizer::adamw, 2);
  const TileConfig cfg = mma_configs()[0];
  CublasWgrad blas;
  cudaStream_t stream;
  FK_CHECK(cudaStreamCreate(&stream));
  cudaMemPool_t pool;
  int dev = 0;
  FK_CHECK(cudaGetDevice(&dev));
  FK_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));

  // Each path allocates its temporaries through the stream-ordered pool, as a
  // framework's caching allocator would; cudaMemGetInfo gives the device-wide
  // view while the step's buffers are live.
  auto used = [] {
    std::size_t fr = 0, tot = 0;
    FK_CHECK(cudaMemGetInfo(&fr, &tot));
    return tot - fr;
  };
  auto reset_high = [&] {
    std::uint64_t zero = 0;
    FK_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  };
  auto high = [&] {
    std::uint64_t h = 0;
    FK_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &h));
    return h;
  };
  auto unfused = [&](std::size_t* live_used) {
    void* g = nullptr;
    FK_CHECK(cudaMallocAsync(&g, grad_bytes, stream));
    const std::string e = blas.run(s, dy.as<bf16>(), x.as<bf16>(), g, DType::bf16, stream);
    if (!e.empty()) throw std::runtime_error("cuBLAS: " + e);
    FK_CHECK(launch_optimizer(p, g, DType::bf16, n, w.get(), wt, m.get(), v.get(), st, stream));
    FK_CHECK(cudaStreamSynchronize(stream));
    if (live_used) *live_used = used();
    FK_CHECK(cudaFreeAsync(g, stream));
    FK_CHECK(cudaStreamSynchronize(stream));
  };
  auto fused = [&](std::size_t* live_used) {
    FK_CHECK(launch_fused(cfg, p, s, dy.as<bf16>(), x.as<bf16>(), w.get(), wt, m.get(), v.get(),
                          st, nullptr, stream));
    if (live_used) *live_used = used();
    FK_CHECK(cudaStreamSynchronize(stream));
  };
  // Warm-up: module load, cuBLAS workspace, pool growth happen outside.
  unfused(nullptr);
  fused(nullptr);
  FK_CHECK(cudaDeviceSynchronize());
  FK_CHECK(cudaMemPoolTrimTo(pool, 0));

  const std::size_t base_fused = used();
  reset_high();
  std::size_t live_fused = 0;
  fused(&live_fused);
  const std::uint64_t high_fused = high();

  FK_CHECK(cudaMemPoolTrimTo(pool, 0));
  const std::size_t base_unfused = used();
  reset_high();
  std::size_t live_unfused = 0;
  unfused(&live_unfused);
  const std::uint64_t high_unfused = high();
  FK_CHECK(cudaStreamDestroy(stream));

  const long long d_fused = static_cast<long long>(live_fused) - static_cast<long long>(base_fused);
  const long long d_unfused =
      static_cast<long long>(live_unfused) - static_cast<long long>(base_unfused);
  row.passed = high_fused < grad_bytes / 2 && d_fused < static_cast<long long>(grad_bytes / 2) &&
               high_unfused >= grad_bytes && d_unfused >= static_cast<long long>(grad_bytes);
  row.summary = "gradient " + std::to_string(grad_bytes) + " B; step allocations peak fused " +
                std::to_string(high_fused) + " B vs unfused " + std::to_string(high_unfused) +
                " B; device-wide growth fused " + std::to_string(d_fused) + " B vs unfused " +
                std::to_string(d_unfused) + " B";
  row.details = {
      {"shape_BT_N_H", {512, 4096, 4096}},
      {"gradient_bytes_bf16", grad_bytes},
      {"fused_pool_peak_bytes", high_fused},
      {"unfused_pool_peak_bytes", high_unfused},
      {"fused_device_used_growth_bytes", d_fused},
      {"unfused_device_used_growth_bytes", d_unfused},
      {"method",
       "each path allocates its step temporaries from the default stream-ordered pool "
       "(cudaMemPoolAttrUsedMemHigh reset before the step); device-wide used memory "
       "(cudaMemGetInfo) read while the step's buffers are live, minus before the step"}};
  return row;
}

namespace {

struct GpuP6 {
  CublasWgrad* blas;
};

void p6_fused(void*, const StepParams& p, const bf16* dY, const bf16* X, const Shape& s, void* W,
              DType wt, void* m, void* v, DType st) {
  run_fused_host(mma_configs()[0], p, s, dY, X, W, wt, m, v, st, nullptr);
}

void p6_unfused(void* ctx, const StepParams& p, const bf16* dY, const bf16* X, const Shape& s,
                void* W, DType wt, void* m, void* v, DType st) {
  auto* c = static_cast<GpuP6*>(ctx);
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  DevBuf dy(sizeof(bf16) * s.BT * s.N), x(sizeof(bf16) * s.BT * s.H), g(n * sizeof(bf16));
  DevBuf w(n * dtype_bytes(wt)), mm(n * dtype_bytes(st)), vv(n * dtype_bytes(st));
  dy.upload(dY);
  x.upload(X);
  w.upload(W);
  mm.upload(m);
  vv.upload(v);
  const std::string e = c->blas->run(s, dy.as<bf16>(), x.as<bf16>(), g.get(), DType::bf16, 0);
  if (!e.empty()) throw std::runtime_error("cuBLAS: " + e);
  FK_CHECK(launch_optimizer(p, g.get(), DType::bf16, n, w.get(), wt, mm.get(), vv.get(), st, 0));
  FK_CHECK(cudaDeviceSynchronize());
  w.download(W);
  mm.download(m);
  vv.download(v);
}

}  // namespace

EvidenceRow evidence_p6_gains() {
  EvidenceRow row{4, "p6_fp32_accumulator_gain", "P6", true, "", ""};
  const Shape s{512, 128, 256};
  CublasWgrad blas;
  GpuP6 ctx{&blas};
  Json items = Json::array();
  for (auto [wt, st] : {std::pair{DType::f32, DType::f32}, std::pair{DType::f32, DType::bf16},
                        std::pair{DType::bf16, DType::bf16}}) {
    const P6Result r = run_p6(wt, st, s, 20, 2026, p6_fused, nullptr, p6_unfused, &ctx);
    // P6: several hundred x with f32 state; bounded by ~1 + eps_grad/eps_state
    // (<= 2x) with bf16 state, and the fp32 path never clearly worse.
    const bool ok = (st == DType::f32) ? r.gain >= 100.0 : (r.gain >= 0.8 && r.gain <= 2.0);
    row.passed = row.passed && ok && std::isfinite(r.gain);
    items.push_back({{"W", dname(wt)},
                     {"state", dname(st)},
                     {"err_fp32_accumulator", r.err_fp32_grad},
                     {"err_bf16_gradient", r.err_bf16_grad},
                     {"gain", r.gain},
                     {"passed", ok}});
    row.summary += std::string(row.summary.empty() ? "" : "; ") + "W " + dname(wt) + "/state " +
                   dname(st) + " gain " + Json(r.gain).dump();
  }
  row.details = {{"shape_BT_N_H", {512, 128, 256}},
                 {"steps", 20},
                 {"optimizer", "adamw"},
                 {"error", "||W - W_f64|| / ||W_f64 - W_0|| after the last step"},
                 {"fp32_path", "fused mma kernel (fp32 accumulator in the epilogue)"},
                 {"bf16_path", "cuBLAS GEMM with bf16 output + optimizer kernel"},
                 {"criteria", "gain >= 100 with f32 state; 0.8 <= gain <= 2 with bf16 state"},
                 {"results", items}};
  return row;
}

}  // namespace fusecert::kernels
