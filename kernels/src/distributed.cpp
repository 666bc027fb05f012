// distributed.cpp — P3 evidence and benchmark over NCCL (see distributed.h).
// The parent forks one process per GPU before any CUDA call; rank 0 creates
// the NCCL unique id and publishes it through anonymous shared memory; each
// rank writes its verdict there and its JSON fragment (any length) into its
// own pipe, which the parent reads to the end.
#include "fusecert/kernels/distributed.h"

#include <nccl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "cuda_util.h"
#include "fusecert/kernels/cuda_api.h"
#include "fusecert/kernels/document_format.h"
#include "fusecert/kernels/evidence.h"
#include "fusecert/kernels/host_reference.h"
#include "fusecert/kernels/sharding.h"

namespace fusecert::kernels {
namespace {

using util::DevBuf;
using util::Json;

constexpr int kMaxRanks = 16;

struct SharedBlock {
  ncclUniqueId id;
  volatile int ready;
  volatile int rc[kMaxRanks];
};

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}
#define NCCL_CHECK(x) nccl_check((x), #x)

struct Ctx {
  int rank, R;
  ncclComm_t comm;
  cudaStream_t stream;
  CublasWgrad* blas;
};

/// How a rank computes a block of its GEMM dY^T X.
///  fused:  #8's fused wgrad kernel (launch_fused, tile configuration `cfg`)
///          with the momentum_state epilogue: the state contribution is
///          written from the accumulator, the gradient block never is;
///  cublas: the block of the gradient itself, by cuBLAS (the standard
///          data-parallel step's GEMM; it takes no seed).
struct Gemm {
  bool fused = false;
  TileConfig cfg;
  std::string name() const { return fused ? "fused " + cfg.name() : "cublas"; }
};

/// #8's fused kernel configuration `name` (e.g. "wgmma_128x128x64_tma2").
TileConfig config_named(const std::string& name) {
  for (const auto& list : {simt_configs(), wgmma_configs()})
    for (const TileConfig& t : list)
      if (t.name() == name) return t;
  throw std::runtime_error("no tile configuration named " + name);
}

/// Why `gemm` cannot compute every rank's blocks (R shards of V rows, chunks
/// of C rows) ("" when it can): the tensor-core engines need each chunk's
/// rows to fill whole tiles and its dY columns to start 16-byte aligned.
std::string gemm_unsupported(const Gemm& gemm, int BT, int V, int H, int C, int R) {
  if (!gemm.fused || gemm.cfg.engine == Engine::simt) return "";
  if (!wgmma_supported()) return "the wgmma engine needs compute capability 9.0";
  for (int r = 0; r < R; ++r) {
    const Shard s = shard_of(V, R, r);
    for (int k = 0; k * C < s.rows; ++k) {
      const int row0 = s.start + k * C, rows = std::min(C, s.rows - k * C);
      const std::string why = unsupported_reason(gemm.cfg, Shape{BT, rows, H, V});
      if (!why.empty()) return why;
      if (row0 % 8) return "a chunk's first row " + std::to_string(row0) + " is not a multiple of 8";
    }
  }
  return "";
}

/// Block [rows, H] of this rank's contribution for shard rows [row0, row0+rows):
/// seeded with mu*B (owner) or not. Pads [rows, C) with zeros.
void contribution_block(const Ctx& c, const Gemm& gemm, const bf16* dY, const bf16* X, int BT,
                        int V, int H, int row0, int rows, int C, const float* seedB, float mu,
                        float* out) {
  if (rows > 0) {
    if (gemm.fused) {
      StepParams p;
      p.opt = Optimizer::momentum_state;
      p.momentum = mu;
      p = make_step_params(p);
      FK_CHECK(launch_fused(gemm.cfg, p, Shape{BT, rows, H, V}, dY + row0, X, nullptr, DType::f32,
                            out, const_cast<float*>(seedB), DType::f32, nullptr, c.stream));
    } else {
      if (seedB) throw std::logic_error("contribution_block: cuBLAS blocks take no seed");
      const std::string e = c.blas->gemm_rows(dY, V, X, BT, H, row0, rows, 0.0f, out, c.stream);
      if (!e.empty()) throw std::runtime_error("cuBLAS: " + e);
    }
  }
  if (rows < C)
    FK_CHECK(cudaMemsetAsync(out + static_cast<std::size_t>(rows) * H, 0,
                             static_cast<std::size_t>(C - rows) * H * sizeof(float), c.stream));
}

/// Reduce-into-state step: chunk by chunk, every rank writes its contribution
/// for chunk k of every shard into `send` [R, C, H] and NCCL reduce-scatters
/// it straight into the owner's momentum shard. Then W_owned -= lr * B.
/// `Bsh`: padded [nchunks*C, H]; `W`: full [V, H].
void step_reduce_into_state(const Ctx& c, const Gemm& gemm, const bf16* dY, const bf16* X, int BT,
                            int V, int H, int C, float mu, float lr, float* Bsh, float* W,
                            float* send) {
  const Shard mine = shard_of(V, c.R, c.rank);
  const int nchunks = (max_shard_rows(V, c.R) + C - 1) / C;
  const std::size_t block = static_cast<std::size_t>(C) * H;
  for (int k = 0; k < nchunks; ++k) {
    for (int r = 0; r < c.R; ++r) {
      const Shard s = shard_of(V, c.R, r);
      const int rows = std::clamp(s.rows - k * C, 0, C);
      contribution_block(c, gemm, dY, X, BT, V, H, s.start + k * C, rows, C,
                         r == c.rank ? Bsh + k * block : nullptr, mu, send + r * block);
    }
    NCCL_CHECK(ncclReduceScatter(send, Bsh + k * block, block, ncclFloat, ncclSum, c.comm,
                                 c.stream));
  }
  FK_CHECK(launch_weight_from_state(Bsh, lr, W + static_cast<std::size_t>(mine.start) * H,
                                    static_cast<std::size_t>(mine.rows) * H, c.stream));
}

/// Standard data-parallel ZeRO-2 step: the full gradient [R, maxrows, H]
/// (padded per shard), reduce-scatter of gradients into `gsh` [maxrows, H],
/// then SGD-momentum on the owned shard.
void step_baseline(const Ctx& c, const Gemm& gemm, const bf16* dY, const bf16* X, int BT, int V, int H,
                   float mu, float lr, float* Bsh, float* W, float* G, float* gsh) {
  const Shard mine = shard_of(V, c.R, c.rank);
  const int M = max_shard_rows(V, c.R);
  const std::size_t block = static_cast<std::size_t>(M) * H;
  for (int r = 0; r < c.R; ++r) {
    const Shard s = shard_of(V, c.R, r);
    contribution_block(c, gemm, dY, X, BT, V, H, s.start, s.rows, M, nullptr, mu, G + r * block);
  }
  NCCL_CHECK(ncclReduceScatter(G, gsh, block, ncclFloat, ncclSum, c.comm, c.stream));
  StepParams p;
  p.opt = Optimizer::sgd_momentum;
  p.lr = lr;
  p.momentum = mu;
  p = make_step_params(p);
  FK_CHECK(launch_optimizer(p, gsh, DType::f32, static_cast<std::size_t>(mine.rows) * H,
                            W + static_cast<std::size_t>(mine.start) * H, DType::f32, Bsh,
                            nullptr, DType::f32, c.stream));
}

std::vector<float> randv(Rng& rng, std::size_t n, double scale) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(scale * rng.normal());
  return v;
}

struct Diff {
  double max_rel = 0;  ///< max |a - b| / max |b|
  std::size_t exact = 0, n = 0;
};
Diff diff(const float* a, const float* b, std::size_t n) {
  double mx = 0, mref = 0;
  Diff d;
  for (std::size_t i = 0; i < n; ++i) {
    mx = std::max(mx, std::fabs(static_cast<double>(a[i]) - b[i]));
    mref = std::max(mref, std::fabs(static_cast<double>(b[i])));
    d.exact += a[i] == b[i];
  }
  d.n = n;
  d.max_rel = mref > 0 ? mx / mref : mx;
  return d;
}

/// The distributed evidence on this rank; returns its JSON fragment.
Json evidence_rank(const Ctx& c, bool* passed) {
  const float mu = 0.9f, lr = 0.01f;
  struct Case {
    int V, H, BT, C;
    std::uint64_t seed;
  };
  // V = 1001 is divisible by no R in 2..16 except 7, 11, 13; the last case
  // (V = 512 R) fills whole 128-row tiles for the tensor-core kernel.
  const std::vector<Case> cases = {
      {1001, 96, 128, 64, 1}, {256, 128, 64, 48, 2}, {512 * c.R, 256, 128, 128, 3}};
  const Gemm fused_simt{true, config_named("simt_64x64x16")},
      fused_wgmma{true, config_named("wgmma_128x128x64_tma2")}, cublas{};
  Json items = Json::array(), skipped = Json::array();
  bool all = true;
  int wgmma_cases = 0;
  double worst_B = 0, worst_W = 0;
  for (const Case& cs : cases)
    for (const Gemm& gemm : {fused_simt, fused_wgmma}) {
      const int V = cs.V, H = cs.H, BT = cs.BT, C = cs.C, R = c.R;
      if (const std::string why = gemm_unsupported(gemm, BT, V, H, C, R); !why.empty()) {
        skipped.push_back({{"V", V}, {"H", H}, {"gemm", gemm.name()}, {"why", why}});
        continue;
      }
      wgmma_cases += gemm.cfg.engine == Engine::wgmma;
      const std::size_t n = static_cast<std::size_t>(V) * H;
      Rng init(cs.seed);
      const std::vector<float> B0 = randv(init, n, 0.1), W0 = randv(init, n, 0.5);
      std::vector<bf16> dY_all, X_all;  // all ranks' tokens, rank-major
      for (int r = 0; r < R; ++r) {
        Rng rr(cs.seed * 1000 + r);
        const auto dy = random_bf16(rr, static_cast<std::size_t>(BT) * V, 1.0);
        const auto x = random_bf16(rr, static_cast<std::size_t>(BT) * H, 1.0);
        dY_all.insert(dY_all.end(), dy.begin(), dy.end());
        X_all.insert(X_all.end(), x.begin(), x.end());
      }
      // Single-device reference: the fused SGD step on the summed gradient
      // (sequential over all R*BT tokens; bitwise what the simt kernel gives).
      std::vector<float> Bref = B0, Wref = W0;
      StepParams p;
      p.opt = Optimizer::sgd_momentum;
      p.lr = lr;
      p.momentum = mu;
      p = make_step_params(p);
      host_fused_step(p, dY_all.data(), X_all.data(), Shape{R * BT, V, H}, Wref.data(),
                      DType::f32, Bref.data(), nullptr, DType::f32);

      const Shard mine = shard_of(V, R, c.rank);
      const int M = max_shard_rows(V, R), nchunks = (M + C - 1) / C;
      const std::size_t own = static_cast<std::size_t>(mine.rows) * H;
      DevBuf dy(sizeof(bf16) * BT * V), x(sizeof(bf16) * BT * H), W(n * 4);
      DevBuf Bs(static_cast<std::size_t>(nchunks) * C * H * 4), send(R * C * H * 4ull);
      DevBuf Bb(static_cast<std::size_t>(M) * H * 4), G(static_cast<std::size_t>(R) * M * H * 4),
          gsh(static_cast<std::size_t>(M) * H * 4);
      FK_CHECK(cudaMemcpy(dy.get(), dY_all.data() + static_cast<std::size_t>(c.rank) * BT * V,
                          dy.bytes(), cudaMemcpyHostToDevice));
      FK_CHECK(cudaMemcpy(x.get(), X_all.data() + static_cast<std::size_t>(c.rank) * BT * H,
                          x.bytes(), cudaMemcpyHostToDevice));
      auto reset_state = [&](DevBuf& B) {
        W.upload(W0.data());
        FK_CHECK(cudaMemset(B.get(), 0, B.bytes()));
        FK_CHECK(cudaMemcpy(B.get(), B0.data() + static_cast<std::size_t>(mine.start) * H,
                            own * 4, cudaMemcpyHostToDevice));
      };
      std::vector<float> gotB(own), gotW(own);
      auto fetch = [&](const DevBuf& B) {
        FK_CHECK(cudaMemcpy(gotB.data(), B.get(), own * 4, cudaMemcpyDeviceToHost));
        FK_CHECK(cudaMemcpy(gotW.data(), W.as<float>() + static_cast<std::size_t>(mine.start) * H,
                            own * 4, cudaMemcpyDeviceToHost));
      };
      const float* refB = Bref.data() + static_cast<std::size_t>(mine.start) * H;
      const float* refW = Wref.data() + static_cast<std::size_t>(mine.start) * H;

      reset_state(Bs);
      step_reduce_into_state(c, gemm, dy.as<bf16>(), x.as<bf16>(), BT, V, H, C, mu, lr,
                             Bs.as<float>(), W.as<float>(), send.as<float>());
      FK_CHECK(cudaStreamSynchronize(c.stream));
      fetch(Bs);
      const Diff risB = diff(gotB.data(), refB, own), risW = diff(gotW.data(), refW, own);

      reset_state(Bb);
      step_baseline(c, cublas, dy.as<bf16>(), x.as<bf16>(), BT, V, H, mu, lr, Bb.as<float>(),
                    W.as<float>(), G.as<float>(), gsh.as<float>());
      FK_CHECK(cudaStreamSynchronize(c.stream));
      fetch(Bb);
      const Diff dpB = diff(gotB.data(), refB, own), dpW = diff(gotW.data(), refW, own);

      // Ownership on the hardware: every rank marks its rows, sum over ranks.
      std::vector<int> mark(V, 0);
      for (int i = mine.start; i < mine.start + mine.rows; ++i) mark[i] = 1;
      DevBuf owners(V * sizeof(int));
      owners.upload(mark.data());
      NCCL_CHECK(ncclAllReduce(owners.get(), owners.get(), V, ncclInt32, ncclSum, c.comm,
                               c.stream));
      FK_CHECK(cudaStreamSynchronize(c.stream));
      owners.download(mark.data());
      const bool one_owner = std::all_of(mark.begin(), mark.end(), [](int k) { return k == 1; });

      // Negative: AdamW's v stepped on per-rank partials (owner seeds b2*v),
      // reduce-scattered, vs b2*v + (1-b2)*(sum G)^2 from the reduced gradient.
      const float beta2 = 0.999f;
      std::vector<float> v0h(n);
      for (std::size_t i = 0; i < n; ++i) v0h[i] = 1e-4f;
      DevBuf v0(static_cast<std::size_t>(R) * M * H * 4), vp(static_cast<std::size_t>(R) * M * H * 4),
          vsh(static_cast<std::size_t>(M) * H * 4);
      FK_CHECK(cudaMemset(v0.get(), 0, v0.bytes()));
      for (int r = 0; r < R; ++r) {
        const Shard s = shard_of(V, R, r);
        FK_CHECK(cudaMemcpy(v0.as<float>() + static_cast<std::size_t>(r) * M * H,
                            v0h.data() + static_cast<std::size_t>(s.start) * H,
                            static_cast<std::size_t>(s.rows) * H * 4, cudaMemcpyHostToDevice));
        // G still holds this rank's per-shard gradient blocks from step_baseline.
        FK_CHECK(launch_v_partial(G.as<float>() + static_cast<std::size_t>(r) * M * H,
                                  v0.as<float>() + static_cast<std::size_t>(r) * M * H, beta2,
                                  r == c.rank, vp.as<float>() + static_cast<std::size_t>(r) * M * H,
                                  static_cast<std::size_t>(M) * H, c.stream));
      }
      NCCL_CHECK(ncclReduceScatter(vp.get(), vsh.get(), static_cast<std::size_t>(M) * H,
                                   ncclFloat, ncclSum, c.comm, c.stream));
      FK_CHECK(cudaStreamSynchronize(c.stream));
      std::vector<float> vgot(own), gsum(own);
      FK_CHECK(cudaMemcpy(vgot.data(), vsh.get(), own * 4, cudaMemcpyDeviceToHost));
      FK_CHECK(cudaMemcpy(gsum.data(), gsh.get(), own * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (std::size_t i = 0; i < own; ++i) {
        // The same binary32 hyper-parameters the kernel uses (b2 = 0.999f, 1 - b2).
        const double b2 = beta2, omb2 = fk_sub(1.0f, beta2), v0d = 1e-4f;
        const double truth = b2 * v0d + omb2 * static_cast<double>(gsum[i]) * gsum[i];
        num += (vgot[i] - truth) * (vgot[i] - truth);
        den += truth * truth;
      }
      const double v_err = std::sqrt(num / den);

      const double tol = 1e-5;
      const bool ok = risB.max_rel <= tol && risW.max_rel <= tol && dpB.max_rel <= tol &&
                      dpW.max_rel <= tol && one_owner && (R == 1 ? v_err < 1e-6 : v_err > 0.1);
      // (R == 1 is the control: partials are the whole gradient, so v is right.)
      all = all && ok;
      worst_B = std::max(worst_B, risB.max_rel);
      worst_W = std::max(worst_W, risW.max_rel);
      items.push_back(
          {{"V", V},
           {"H", H},
           {"BT_per_rank", BT},
           {"chunk_rows", C},
           {"reduce_into_state_gemm", gemm.name()},
           {"data_parallel_gemm", "cublas"},
           {"owned_rows", {mine.start, mine.start + mine.rows}},
           {"reduce_into_state",
            {{"B_max_rel_diff", risB.max_rel},
             {"W_max_rel_diff", risW.max_rel},
             {"B_bitwise_equal_elements", risB.exact}}},
           {"data_parallel",
            {{"B_max_rel_diff", dpB.max_rel},
             {"W_max_rel_diff", dpW.max_rel},
             {"B_bitwise_equal_elements", dpB.exact}}},
           {"owned_elements", own},
           {"every_row_one_owner", one_owner},
           {"adamw_v_on_partials_rel_error", v_err},
           {"passed", ok}});
    }
  // On a Hopper GPU the tensor-core kernel must have run at least one case.
  if (wgmma_supported() && wgmma_cases == 0) all = false;
  *passed = all;
  Json frag;
  frag["rank"] = c.rank;
  frag["device"] = device_info_json();
  frag["passed"] = all;
  frag["worst_B_max_rel_diff"] = worst_B;
  frag["worst_W_max_rel_diff"] = worst_W;
  frag["tolerance"] = 1e-5;
  frag["metric"] =
      "max_rel_diff = max|a - b| / max|b| over the owned elements, a = this rank's shard, b = "
      "the single-device fused step on the summed gradient (host, sequential over all R*BT "
      "tokens); exact in the reals, binary32 reassociation across ranks in practice";
  frag["cases"] = std::move(items);
  frag["skipped"] = std::move(skipped);
  return frag;
}

/// The distributed benchmark on this rank: one 4096 x 14336 weight (f32 W and
/// momentum), BT 2048 tokens per rank. Reduce-into-state runs #8's fused
/// kernel (momentum_state epilogue) in each of its fastest tensor-core
/// configurations; the data-parallel baseline runs cuBLAS.
Json bench_rank(const Ctx& c, bool* passed) {
  const int V = 4096, H = 14336, BT = 2048, R = c.R, reps = 10;
  // Chunk rows: the send buffer [R, C, H] stays at most a quarter of the
  // gradient for R <= 8 and half of it at R = 16 (C = V / 4R rounded down to
  // whole 128-row tensor-core tiles, 128 <= C <= 512).
  const int C = std::max(128, std::min(512, V / (4 * R) / 128 * 128));
  const float mu = 0.9f, lr = 0.01f;
  const Shard mine = shard_of(V, R, c.rank);
  const int M = max_shard_rows(V, R), nchunks = (M + C - 1) / C;
  const std::size_t grad_bytes = static_cast<std::size_t>(V) * H * 4;
  DevBuf dy(sizeof(bf16) * BT * V), x(sizeof(bf16) * BT * H);
  DevBuf W(static_cast<std::size_t>(V) * H * 4), Bs(static_cast<std::size_t>(nchunks) * C * H * 4);
  FK_CHECK(fill_random_device(dy.get(), DType::bf16, static_cast<std::size_t>(BT) * V,
                              11 + c.rank, 1.0f, false, c.stream));
  FK_CHECK(fill_random_device(x.get(), DType::bf16, static_cast<std::size_t>(BT) * H, 31 + c.rank,
                              1.0f, false, c.stream));
  FK_CHECK(fill_random_device(W.get(), DType::f32, static_cast<std::size_t>(V) * H, 5, 0.5f,
                              false, c.stream));
  FK_CHECK(fill_random_device(Bs.get(), DType::f32, Bs.bytes() / 4, 6, 0.1f, false, c.stream));
  int dev = 0;
  FK_CHECK(cudaGetDevice(&dev));
  cudaMemPool_t pool;
  FK_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  auto used = [] {
    std::size_t fr = 0, tot = 0;
    FK_CHECK(cudaMemGetInfo(&fr, &tot));
    return tot - fr;
  };
  DevBuf one(4);
  auto barrier = [&] {
    NCCL_CHECK(ncclAllReduce(one.get(), one.get(), 1, ncclFloat, ncclSum, c.comm, c.stream));
    FK_CHECK(cudaStreamSynchronize(c.stream));
  };
  // Each scheme allocates its step temporaries from the stream-ordered pool.
  Gemm fused{true, config_named("wgmma_128x128x64_tma2")};
  auto ris = [&](std::size_t* live) {
    void* send = nullptr;
    FK_CHECK(cudaMallocAsync(&send, static_cast<std::size_t>(R) * C * H * 4, c.stream));
    step_reduce_into_state(c, fused, dy.as<bf16>(), x.as<bf16>(), BT, V, H, C, mu, lr,
                           Bs.as<float>(), W.as<float>(), static_cast<float*>(send));
    if (live) {
      FK_CHECK(cudaStreamSynchronize(c.stream));
      *live = used();
    }
    FK_CHECK(cudaFreeAsync(send, c.stream));
  };
  auto dp = [&](std::size_t* live) {
    void *G = nullptr, *gsh = nullptr;
    FK_CHECK(cudaMallocAsync(&G, static_cast<std::size_t>(R) * M * H * 4, c.stream));
    FK_CHECK(cudaMallocAsync(&gsh, static_cast<std::size_t>(M) * H * 4, c.stream));
    step_baseline(c, Gemm{}, dy.as<bf16>(), x.as<bf16>(), BT, V, H, mu, lr, Bs.as<float>(),
                  W.as<float>(), static_cast<float*>(G), static_cast<float*>(gsh));
    if (live) {
      FK_CHECK(cudaStreamSynchronize(c.stream));
      *live = used();
    }
    FK_CHECK(cudaFreeAsync(G, c.stream));
    FK_CHECK(cudaFreeAsync(gsh, c.stream));
  };
  cudaEvent_t a, b;
  FK_CHECK(cudaEventCreate(&a));
  FK_CHECK(cudaEventCreate(&b));
  struct Result {
    double median_us;
    std::uint64_t pool_peak;
    long long live_growth;
  };
  auto measure = [&](auto&& step) {
    for (int i = 0; i < 2; ++i) step(nullptr);  // warm-up (cuBLAS, NCCL, pool)
    FK_CHECK(cudaStreamSynchronize(c.stream));
    FK_CHECK(cudaMemPoolTrimTo(pool, 0));
    barrier();
    const std::size_t base = used();
    std::uint64_t zero = 0;
    FK_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    std::size_t live = 0;
    step(&live);
    FK_CHECK(cudaStreamSynchronize(c.stream));
    std::uint64_t peak = 0;
    FK_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &peak));
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      barrier();
      FK_CHECK(cudaEventRecord(a, c.stream));
      step(nullptr);
      FK_CHECK(cudaEventRecord(b, c.stream));
      FK_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      FK_CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    return Result{t[t.size() / 2], peak,
                  static_cast<long long>(live) - static_cast<long long>(base)};
  };
  auto res = [](const Result& r) {
    return Json{{"step_us_median", r.median_us},
                {"step_pool_peak_bytes", r.pool_peak},
                {"device_used_growth_bytes", r.live_growth}};
  };

  // #8's three fastest tensor-core configurations (those that can take every
  // chunk of every shard; else the simt kernel); each must keep the step's
  // temporaries below one gradient.
  bool small = true;
  Result r_ris{1e300, 0, 0};
  Json per_config = Json::object();
  std::string best;
  std::vector<std::string> names;
  for (const char* name :
       {"wgmma_128x128x64_tma2", "wgmma_128x128x64_tma", "wgmma_128x128x64_smem"}) {
    const std::string why = gemm_unsupported(Gemm{true, config_named(name)}, BT, V, H, C, R);
    if (why.empty())
      names.push_back(name);
    else
      per_config[name] = {{"skipped", why}};
  }
  if (names.empty()) names.push_back("simt_64x64x16");
  for (const std::string& name : names) {
    fused = Gemm{true, config_named(name)};
    const Result r = measure(ris);
    small = small && r.pool_peak < grad_bytes &&
            r.live_growth < static_cast<long long>(grad_bytes);
    per_config[name] = res(r);
    if (r.median_us < r_ris.median_us) r_ris = r, best = name;
  }
  const Result r_dp = measure(dp);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  *passed = small && r_dp.pool_peak >= grad_bytes;
  Json frag;
  frag["rank"] = c.rank;
  frag["device"] = device_info_json();
  frag["V"] = V;
  frag["H"] = H;
  frag["BT_per_rank"] = BT;
  frag["chunk_rows"] = C;
  frag["W"] = "f32";
  frag["momentum"] = "f32";
  frag["reduce_into_state_gemm"] = "fused " + best + " (momentum_state epilogue)";
  frag["data_parallel_gemm"] = "cublas";
  frag["owned_rows"] = {mine.start, mine.start + mine.rows};
  frag["gradient_bytes_f32"] = grad_bytes;
  frag["reduce_into_state"] = res(r_ris);
  frag["reduce_into_state_by_config"] = std::move(per_config);
  frag["data_parallel"] = res(r_dp);
  frag["speedup"] = r_dp.median_us / r_ris.median_us;
  frag["no_gradient_sized_buffer_in_reduce_into_state"] = *passed;
  frag["method"] = "median of " + std::to_string(reps) +
                   " steps after 2 warm-ups, ranks aligned by an NCCL all-reduce before each; "
                   "step temporaries from the default stream-ordered pool (UsedMemHigh); "
                   "device-wide growth from cudaMemGetInfo with the temporaries live";
  return frag;
}

/// Rank `rank`'s whole run (in its own process): its verdict goes into the
/// shared block, its JSON fragment into `out_fd` (a pipe to the parent).
void run_rank(int rank, const DistOptions& o, SharedBlock* sh, int out_fd) {
  Json frag;
  int rc = 2;
  try {
    int ndev = 0;
    const cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < o.ranks)
      throw std::runtime_error(
          "need " + std::to_string(o.ranks) + (o.ranks == 1 ? " CUDA device" : " CUDA devices") +
          ", found " + std::to_string(e == cudaSuccess ? ndev : 0) +
          (e == cudaSuccess ? std::string()
                            : std::string(" (no usable CUDA device or driver: ") +
                                  cudaGetErrorString(e) + ")"));
    FK_CHECK(cudaSetDevice(rank));
    if (rank == 0) {
      ncclUniqueId id;
      NCCL_CHECK(ncclGetUniqueId(&id));
      std::memcpy(&sh->id, &id, sizeof id);
      __sync_synchronize();
      sh->ready = 1;
    } else {
      const auto start = std::chrono::steady_clock::now();
      while (!sh->ready) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(120))
          throw std::runtime_error("timed out waiting for rank 0's NCCL id");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      __sync_synchronize();
    }
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, o.ranks, sh->id, rank));
    cudaStream_t stream;
    FK_CHECK(cudaStreamCreate(&stream));
    CublasWgrad blas;
    Ctx c{rank, o.ranks, comm, stream, &blas};
    bool passed = false;
    frag = o.what == "bench" ? bench_rank(c, &passed) : evidence_rank(c, &passed);
    rc = passed ? 0 : 1;
    FK_CHECK(cudaStreamSynchronize(stream));
    ncclCommDestroy(comm);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    frag = Json{{"rank", rank}, {"error", e.what()}};
    rc = 2;
  }
  const std::string text = frag.dump();
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(out_fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      rc = 2;  // the parent stopped reading: it reports this rank as not reported
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  close(out_fd);
  sh->rc[rank] = rc;
}

}  // namespace

std::string run_distributed(const DistOptions& o, int* exit_code) {
  *exit_code = 2;
  if (o.ranks < 1 || o.ranks > kMaxRanks) return "{\"error\": \"--ranks must be 1..16\"}\n";
  // NVLink multicast (NVLS) stays off: on shared hosts it can take GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  void* mem = mmap(nullptr, sizeof(SharedBlock), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return "{\"error\": \"mmap failed\"}\n";
  auto* sh = static_cast<SharedBlock*>(mem);
  std::memset(sh, 0, sizeof(SharedBlock));
  for (int r = 0; r < o.ranks; ++r) sh->rc[r] = 2;
  // One pipe per rank for its fragment (any length); read concurrently so
  // that no rank blocks on a full pipe while the parent waits for another.
  std::vector<int> rd(o.ranks, -1), wr(o.ranks, -1);
  for (int r = 0; r < o.ranks; ++r) {
    int fds[2];
    if (pipe(fds) != 0) {
      munmap(mem, sizeof(SharedBlock));
      return "{\"error\": \"pipe failed\"}\n";
    }
    rd[r] = fds[0];
    wr[r] = fds[1];
  }
  std::vector<pid_t> pids;
  for (int r = 0; r < o.ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (int q = 0; q < o.ranks; ++q) {
        close(rd[q]);
        if (q != r) close(wr[q]);
      }
      run_rank(r, o, sh, wr[r]);
      _exit(0);
    }
    if (pid > 0) pids.push_back(pid);
  }
  for (int r = 0; r < o.ranks; ++r) close(wr[r]);
  std::vector<std::string> text(o.ranks);
  for (int open_fds = o.ranks; open_fds > 0;) {
    std::vector<pollfd> pf;
    std::vector<int> who;
    for (int r = 0; r < o.ranks; ++r)
      if (rd[r] >= 0) pf.push_back({rd[r], POLLIN, 0}), who.push_back(r);
    if (poll(pf.data(), pf.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < pf.size(); ++i) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = read(pf[i].fd, buf, sizeof buf);
      if (n > 0) {
        text[who[i]].append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(pf[i].fd);
        rd[who[i]] = -1;
        --open_fds;
      }
    }
  }
  for (int r = 0; r < o.ranks; ++r)
    if (rd[r] >= 0) close(rd[r]);
  for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  int worst = 0;
  Json per_rank = Json::array();
  for (int r = 0; r < o.ranks; ++r) {
    worst = std::max(worst, static_cast<int>(sh->rc[r]));
    Json frag = text[r].empty() ? Json(nullptr) : Json::parse(text[r], nullptr, false);
    if (text[r].empty())
      frag = Json{{"rank", r}, {"error", "rank did not report"}};
    else if (frag.is_discarded())
      frag = Json{{"rank", r}, {"error", "rank's report is not valid JSON"}}, worst = 2;
    per_rank.push_back(std::move(frag));
  }
  munmap(mem, sizeof(SharedBlock));
  *exit_code = static_cast<int>(pids.size()) == o.ranks ? worst : 2;
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  Json doc;
  doc["schema"] = kDistributedFormat;
  doc["kind"] = "fusecert-kernels " + o.what + " --distributed";
  doc["date"] = date;
  doc["ranks"] = o.ranks;
  doc["nccl_version_code"] = NCCL_VERSION_CODE;
  doc["NCCL_NVLS_ENABLE"] = nvls ? nvls : "";
  doc["optimizer"] = "sgd_momentum (mu 0.9, lr 0.01)";
  doc["passed"] = *exit_code == 0;
  doc["per_rank"] = std::move(per_rank);
  return doc.dump(2) + "\n";
}

}  // namespace fusecert::kernels
