// host_reference.cpp — the CPU reference of the fused step (see header).
#include "fusecert/kernels/host_reference.h"

#include <cmath>
#include <stdexcept>

namespace fusecert::kernels {

StepParams make_step_params(StepParams p) {
  if (p.step < 1) throw std::invalid_argument("make_step_params: step must be >= 1");
  p.one_minus_beta1 = fk_sub(1.0f, p.beta1);
  p.one_minus_beta2 = fk_sub(1.0f, p.beta2);
  p.bias_corr1 = static_cast<float>(1.0 - std::pow(static_cast<double>(p.beta1), p.step));
  p.bias_corr2 = static_cast<float>(1.0 - std::pow(static_cast<double>(p.beta2), p.step));
  p.decay = fk_sub(1.0f, fk_mul(p.lr, p.weight_decay));
  const double bc1 = 1.0 - std::pow(static_cast<double>(p.beta1), p.step);
  const double bc2 = 1.0 - std::pow(static_cast<double>(p.beta2), p.step);
  p.step_size = static_cast<float>(static_cast<double>(p.lr) / bc1);
  p.inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(bc2));
  return p;
}

std::vector<float> host_gradient_f32(const bf16* dY, const bf16* X, const Shape& s) {
  std::vector<float> g(static_cast<std::size_t>(s.N) * s.H, 0.0f);
  // Sequential over tokens for every element; loop order t-outer keeps the
  // per-element order (t ascending) while streaming rows.
  for (int t = 0; t < s.BT; ++t) {
    const bf16* dy = dY + static_cast<std::size_t>(t) * dy_stride(s);
    const bf16* x = X + static_cast<std::size_t>(t) * s.H;
    for (int n = 0; n < s.N; ++n) {
      const float a = bf16_to_float(dy[n]);
      float* row = g.data() + static_cast<std::size_t>(n) * s.H;
      for (int h = 0; h < s.H; ++h) row[h] = fk_fma(a, bf16_to_float(x[h]), row[h]);
    }
  }
  return g;
}

void host_apply_optimizer(const StepParams& p, const float* g, const Shape& s, void* W, DType wt,
                          void* m, void* v, DType st) {
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  for (std::size_t i = 0; i < n; ++i) apply_element(p, g[i], W, wt, m, v, st, i);
}

void host_fused_step(const StepParams& p, const bf16* dY, const bf16* X, const Shape& s, void* W,
                     DType wt, void* m, void* v, DType st) {
  const std::vector<float> g = host_gradient_f32(dY, X, s);
  host_apply_optimizer(p, g.data(), s, W, wt, m, v, st);
}

void host_fused_step_tiled(const StepParams& p, const TileConfig& cfg, const bf16* dY,
                           const bf16* X, const Shape& s, void* W, DType wt, void* m, void* v,
                           DType st) {
  std::vector<float> acc;
  for (const Tile& tile : partition(s.N, s.H, cfg)) {
    acc.assign(static_cast<std::size_t>(tile.rows) * tile.cols, 0.0f);
    for (int t0 = 0; t0 < s.BT; t0 += cfg.bk) {      // staged like shared memory
      const int t1 = std::min(s.BT, t0 + cfg.bk);
      for (int r = 0; r < tile.rows; ++r)
        for (int c = 0; c < tile.cols; ++c) {
          float a = acc[static_cast<std::size_t>(r) * tile.cols + c];
          for (int t = t0; t < t1; ++t)
            a = fk_fma(bf16_to_float(dY[static_cast<std::size_t>(t) * dy_stride(s) + tile.n0 + r]),
                       bf16_to_float(X[static_cast<std::size_t>(t) * s.H + tile.h0 + c]), a);
          acc[static_cast<std::size_t>(r) * tile.cols + c] = a;
        }
    }
    for (int r = 0; r < tile.rows; ++r)  // epilogue: the gradient tile never leaves `acc`
      for (int c = 0; c < tile.cols; ++c)
        apply_element(p, acc[static_cast<std::size_t>(r) * tile.cols + c], W, wt, m, v, st,
                      static_cast<std::size_t>(tile.n0 + r) * s.H + tile.h0 + c);
  }
}

void host_unfused_bf16_grad_step(const StepParams& p, const bf16* dY, const bf16* X,
                                 const Shape& s, void* W, DType wt, void* m, void* v, DType st) {
  std::vector<float> g = host_gradient_f32(dY, X, s);
  for (float& x : g) x = round_bf16(x);
  host_apply_optimizer(p, g.data(), s, W, wt, m, v, st);
}

void host_step_f64(const StepParams& p, const bf16* dY, const bf16* X, const Shape& s, double* W,
                   double* m, double* v) {
  if (p.opt == Optimizer::momentum_state)
    throw std::invalid_argument("host_step_f64: momentum_state has no float64 reference");
  const std::size_t n_el = static_cast<std::size_t>(s.N) * s.H;
  std::vector<double> g(n_el, 0.0);
  for (int t = 0; t < s.BT; ++t)
    for (int n = 0; n < s.N; ++n) {
      const double a = bf16_to_float(dY[static_cast<std::size_t>(t) * dy_stride(s) + n]);
      for (int h = 0; h < s.H; ++h)
        g[static_cast<std::size_t>(n) * s.H + h] +=
            a * static_cast<double>(bf16_to_float(X[static_cast<std::size_t>(t) * s.H + h]));
    }
  const double lr = p.lr, b1 = p.beta1, b2 = p.beta2, eps = p.eps, wd = p.weight_decay;
  const double bc1 = 1.0 - std::pow(b1, p.step), bc2 = 1.0 - std::pow(b2, p.step);
  for (std::size_t i = 0; i < n_el; ++i) {
    if (p.opt == Optimizer::adamw) {
      m[i] = b1 * m[i] + (1.0 - b1) * g[i];
      v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
      W[i] = W[i] * (1.0 - lr * wd) - lr * (m[i] / bc1) / (std::sqrt(v[i] / bc2) + eps);
    } else {
      m[i] = static_cast<double>(p.momentum) * m[i] + g[i];
      W[i] = W[i] - lr * m[i];
    }
  }
}

std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double Rng::uniform() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53; }
double Rng::normal() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::vector<bf16> random_bf16(Rng& rng, std::size_t n, double scale) {
  std::vector<bf16> out(n);
  for (auto& x : out) x = float_to_bf16(static_cast<float>(scale * rng.normal()));
  return out;
}

std::vector<std::uint8_t> random_buffer(Rng& rng, std::size_t n, DType t, double scale,
                                        bool positive) {
  std::vector<std::uint8_t> out(n * dtype_bytes(t));
  for (std::size_t i = 0; i < n; ++i) {
    double x = scale * rng.normal();
    if (positive) x = std::fabs(x);
    store_from_float(out.data(), t, i, static_cast<float>(x));
  }
  return out;
}

std::vector<double> to_f64(const void* p, DType t, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = load_as_float(p, t, i);
  return out;
}

std::size_t count_bit_mismatches(const void* a, const void* b, DType t, std::size_t n) {
  const std::size_t w = dtype_bytes(t);
  const auto* pa = static_cast<const std::uint8_t*>(a);
  const auto* pb = static_cast<const std::uint8_t*>(b);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(pa + i * w, pb + i * w, w) != 0) ++bad;
  return bad;
}

P6Result run_p6(DType wt, DType st, const Shape& s, int steps, std::uint64_t seed,
                StepFn fp32_grad_path, void* ctx1, StepFn bf16_grad_path, void* ctx2) {
  const std::size_t n = static_cast<std::size_t>(s.N) * s.H;
  Rng init(seed);
  std::vector<std::uint8_t> W0 = random_buffer(init, n, wt, 0.02, false);
  const std::vector<double> w0 = to_f64(W0.data(), wt, n);
  std::vector<std::uint8_t> Wa = W0, Wb = W0;
  std::vector<std::uint8_t> ma(n * dtype_bytes(st), 0), va = ma, mb = ma, vb = ma;
  std::vector<double> W64 = w0, m64(n, 0.0), v64(n, 0.0);
  Rng data(seed ^ 0x5EEDull);
  for (int t = 1; t <= steps; ++t) {
    StepParams p;
    p.opt = Optimizer::adamw;
    p.step = t;
    p = make_step_params(p);
    const std::vector<bf16> dY = random_bf16(data, static_cast<std::size_t>(s.BT) * s.N, 1.0);
    const std::vector<bf16> X = random_bf16(data, static_cast<std::size_t>(s.BT) * s.H, 1.0);
    fp32_grad_path(ctx1, p, dY.data(), X.data(), s, Wa.data(), wt, ma.data(), va.data(), st);
    bf16_grad_path(ctx2, p, dY.data(), X.data(), s, Wb.data(), wt, mb.data(), vb.data(), st);
    host_step_f64(p, dY.data(), X.data(), s, W64.data(), m64.data(), v64.data());
  }
  auto rel = [&](const std::vector<std::uint8_t>& W) {
    const std::vector<double> w = to_f64(W.data(), wt, n);
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
      num += (w[i] - W64[i]) * (w[i] - W64[i]);
      den += (W64[i] - w0[i]) * (W64[i] - w0[i]);
    }
    return std::sqrt(num / den);
  };
  P6Result r{wt, st, rel(Wa), rel(Wb), 0.0};
  r.gain = r.err_bf16_grad / r.err_fp32_grad;
  return r;
}

}  // namespace fusecert::kernels
