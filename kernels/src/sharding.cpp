// sharding.cpp — row ownership and the host side of affine reduce-into-state.
#include "fusecert/kernels/sharding.h"

#include <cmath>
#include <stdexcept>

namespace fusecert::kernels {

Shard shard_of(int V, int R, int r) {
  if (V < 0 || R < 1 || r < 0 || r >= R) throw std::invalid_argument("shard_of: bad V, R or r");
  const int base = V / R, rem = V % R;
  return {r * base + (r < rem ? r : rem), base + (r < rem ? 1 : 0)};
}

int owner_of_row(int V, int R, int row) {
  if (row < 0 || row >= V || R < 1) throw std::invalid_argument("owner_of_row: bad row or R");
  const int base = V / R, rem = V % R;
  const int long_rows = rem * (base + 1);  // rows in the first rem (longer) shards
  return row < long_rows ? row / (base + 1) : rem + (row - long_rows) / base;
}

int max_shard_rows(int V, int R) { return (V + R - 1) / R; }

void host_contribution(const float* B, const float* G, int H, int row0, int rows, int V, int R,
                       int rank, float mu, float* out) {
  for (int r = 0; r < rows; ++r) {
    const bool own = owner_of_row(V, R, row0 + r) == rank;
    for (int h = 0; h < H; ++h) {
      const std::size_t i = static_cast<std::size_t>(row0 + r) * H + h;
      const float g = G[i];
      out[static_cast<std::size_t>(r) * H + h] = momentum_contribution(mu, g, own, own ? B[i] : 0.0f);
    }
  }
}

void host_sum_ranks(const std::vector<std::vector<float>>& c, std::vector<float>* out) {
  if (c.empty()) throw std::invalid_argument("host_sum_ranks: no ranks");
  *out = c[0];
  for (std::size_t r = 1; r < c.size(); ++r) {
    if (c[r].size() != out->size()) throw std::invalid_argument("host_sum_ranks: sizes differ");
    for (std::size_t i = 0; i < out->size(); ++i) (*out)[i] = fk_add((*out)[i], c[r][i]);
  }
}

double host_adamw_v_partials_rel_error(const std::vector<std::vector<float>>& G, const float* v,
                                       std::size_t n, float beta2) {
  double num = 0, den = 0;
  const double b2 = beta2;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0, partial = b2 * v[i];  // the owner's seed
    for (const auto& g : G) {
      sum += g[i];
      partial += (1.0 - b2) * static_cast<double>(g[i]) * g[i];
    }
    const double truth = b2 * v[i] + (1.0 - b2) * sum * sum;
    num += (partial - truth) * (partial - truth);
    den += truth * truth;
  }
  return std::sqrt(num / den);
}

}  // namespace fusecert::kernels
