// tiling.h — tile configurations of the fused kernels and the partition of
// W [N, H] into output tiles. The per-element K (token) order is a property
// of the engine alone, never of the tile shape: this is what makes every tile
// configuration bitwise equal (P1 on hardware), and it is tested on the CPU.
#pragma once
#include <string>
#include <vector>

#include "fusecert/kernels/fp.h"

namespace fusecert::kernels {

/// Problem shape: dY [BT, N], X [BT, H] (bf16, row-major); W, m, v [N, H].
/// dY may be a column window of a wider [BT, ldy] matrix (a row shard of W
/// in the distributed path, P3): row t of dY starts ldy elements after row t-1.
struct Shape {
  int BT = 0;   ///< tokens (the GEMM's K)
  int N = 0;    ///< output features (rows of W)
  int H = 0;    ///< input features (columns of W)
  int ldy = 0;  ///< row stride of dY in elements; 0 means N (dense)
};

/// The row stride of dY in elements (s.ldy, or N when it is 0).
FK_HD int dy_stride(const Shape& s) { return s.ldy != 0 ? s.ldy : s.N; }

/// How a tile computes its accumulators.
enum class Engine : int {
  simt = 0,  ///< CUDA cores: acc = fma(dY[t,n], X[t,h], acc), t = 0, 1, ..., BT-1
  mma = 1,   ///< tensor cores (mma.sync m16n8k16 bf16->f32): one MMA per 16-token
             ///< chunk, chunks 0, 1, ..., BT/16-1 in order; within a chunk the
             ///< hardware's own (fixed) summation
  wgmma = 2, ///< Hopper warpgroup MMA (wgmma m64nNk16, sm_90a): one wgmma per
             ///< 16-token chunk, chunks in order; tile BM = 128, BK = 64
};

/// One tile configuration: BM rows of W (N axis) x BN columns (H axis).
struct TileConfig {
  Engine engine = Engine::simt;
  int bm = 64;  ///< tile rows (N axis)
  int bn = 64;  ///< tile columns (H axis)
  int bk = 32;  ///< tokens staged per shared-memory step (does not change the order)
  int epilogue = 0;  ///< wgmma only: 0 = update from the accumulator registers,
                     ///< 1 = stage the tile in shared memory, coalesced 8-wide updates,
                     ///< 2 = persistent, warp-specialized: epilogue warpgroups update
                     ///<     tile i while the math warpgroups compute tile i+1,
                     ///< 3 = as 2, loads by a TMA producer warp through mbarriers,
                     ///< 4 = TMA producer, 2 CTAs/SM, all math threads run the epilogue
                     ///< 5 = persistent ping-pong: two math warpgroups alternate tiles,
                     ///<     W/m/v streamed through shared memory by TMA loads/stores
  /// epilogue 5 only: depth of the dY/X stage ring (0 = 3). The W/m/v slice
  /// ring takes the shared memory left over, so a deeper pipe holds fewer
  /// slices ahead: deeper wins at large BT and with bf16 states (docs/kernels.md, step 11).
  int stages = 0;
  /// epilogue 5 with 128 x 128 tiles only (`_cdiv`): AdamW's divisions of a
  /// batch by the checked division (div_checked.cuh; __fdiv_rn's bits), which
  /// wins where the epilogue is the limit (BT 512) and loses at BT >= 2048
  /// (docs/kernels.md, step 12); the benchmark picks per shape.
  bool checked_div = false;
  std::string name() const;
};

/// The tile configurations the CUDA kernels are instantiated for.
std::vector<TileConfig> simt_configs();
std::vector<TileConfig> mma_configs();
std::vector<TileConfig> wgmma_configs();

/// An output tile: rows [n0, n0+rows) x columns [h0, h0+cols) of W.
struct Tile {
  int n0, h0, rows, cols;
};

/// Row-major grid of tiles covering W [N, H] exactly once (edge tiles are
/// clipped). Throws std::invalid_argument on a non-positive shape or tile.
std::vector<Tile> partition(int N, int H, const TileConfig& cfg);

/// Why `cfg` cannot run `s` on the GPU ("" when it can): the mma engine needs
/// N % bm == 0, H % bn == 0 and BT % 32 == 0 (wgmma: BT % 64 == 0); simt takes
/// any positive shape.
std::string unsupported_reason(const TileConfig& cfg, const Shape& s);

/// The per-element K order as the list of token chunks [begin, end) summed in
/// sequence (simt: single tokens; mma: 16-token chunks). Depends on the engine
/// and BT only.
std::vector<std::pair<int, int>> k_order(const TileConfig& cfg, int BT);

}  // namespace fusecert::kernels
