// sharding.h — ZeRO-2 row ownership and the host side of P3's affine
// reduce-into-state (SGD-momentum), for any number of ranks.
//
// Rows [0, V) of W [V, H] are split into R contiguous shards; the first
// V mod R shards are one row longer. Rank r owns shard r: it seeds mu*B on its
// rows, every rank adds its gradient G_r, and a sum-reduction (reduce-scatter)
// of these contributions yields B_t = mu*B + sum_r G_r on the owner.
#pragma once
#include <cstdint>
#include <vector>

#include "fusecert/kernels/optim.h"

namespace fusecert::kernels {

/// Rows [start, start + rows) of W owned by one rank.
struct Shard {
  int start = 0;
  int rows = 0;
};

/// Shard of rank r (0 <= r < R) of V rows. Throws std::invalid_argument on
/// V < 0, R < 1 or r outside [0, R).
Shard shard_of(int V, int R, int r);
/// The rank owning row `row` (0 <= row < V).
int owner_of_row(int V, int R, int row);
/// Rows per shard rounded up: ceil(V / R).
int max_shard_rows(int V, int R);

/// Rank r's contribution to the rows [row0, row0 + rows) of B [V, H]:
/// (owner of the row ? fl(mu*B) : 0) + G_r, binary32 (out: rows x H).
void host_contribution(const float* B, const float* G, int H, int row0, int rows, int V, int R,
                       int rank, float mu, float* out);

/// Sum contributions over ranks in rank order (out[i] = sum_r c_r[i]).
void host_sum_ranks(const std::vector<std::vector<float>>& contributions, std::vector<float>* out);

/// AdamW's v stepped on per-rank partials (the refused case): the owner adds
/// b2*v, every rank (1-b2)*G_r^2; returns ||v_partial - v_true|| / ||v_true||
/// with v_true = b2*v + (1-b2)*(sum_r G_r)^2, computed in float64.
double host_adamw_v_partials_rel_error(const std::vector<std::vector<float>>& G, const float* v,
                                       std::size_t n, float beta2);

}  // namespace fusecert::kernels
