// tiling.cpp — tile configurations, the partition of W into tiles, and the
// declared per-element K order of each engine.
#include "fusecert/kernels/tiling.h"

#include <stdexcept>

namespace fusecert::kernels {

std::string TileConfig::name() const {
  return std::string(engine == Engine::simt ? "simt_" : engine == Engine::mma ? "mma_" : "wgmma_") + std::to_string(bm) + "x" +
         std::to_string(bn) + "x" + std::to_string(bk) + (epilogue == 1 ? "_smem" : epilogue == 2 ? "_ws" : epilogue == 3 ? "_tma" : epilogue == 4 ? "_tma2" : epilogue == 5 ? "_pingpong" : "") +
         (stages ? "_s" + std::to_string(stages) : "") + (checked_div ? "_cdiv" : "");
}

// Must match the instantiations in cuda/fused_wgrad.cu.
std::vector<TileConfig> simt_configs() {
  return {{Engine::simt, 32, 32, 16}, {Engine::simt, 64, 64, 16}, {Engine::simt, 16, 128, 16},
          {Engine::simt, 128, 32, 16}};
}
std::vector<TileConfig> mma_configs() {
  return {{Engine::mma, 128, 128, 32}, {Engine::mma, 128, 64, 32}, {Engine::mma, 64, 128, 32},
          {Engine::mma, 64, 64, 32}};
}

std::vector<TileConfig> wgmma_configs() {
  return {{Engine::wgmma, 128, 128, 64, 0}, {Engine::wgmma, 128, 64, 64, 0},
          {Engine::wgmma, 128, 256, 64, 0}, {Engine::wgmma, 128, 128, 64, 1},
          {Engine::wgmma, 128, 64, 64, 1},  {Engine::wgmma, 128, 256, 64, 1},
          {Engine::wgmma, 128, 128, 64, 2}, {Engine::wgmma, 128, 64, 64, 2},
          {Engine::wgmma, 128, 128, 64, 3}, {Engine::wgmma, 128, 64, 64, 3},
          {Engine::wgmma, 128, 128, 64, 4}, {Engine::wgmma, 128, 64, 64, 4},
          {Engine::wgmma, 128, 128, 64, 5}, {Engine::wgmma, 128, 64, 64, 5},
          {Engine::wgmma, 128, 128, 64, 5, 4}, {Engine::wgmma, 128, 64, 64, 5, 5},
          {Engine::wgmma, 128, 128, 64, 5, 0, true}, {Engine::wgmma, 128, 128, 64, 5, 4, true}};
}

std::vector<Tile> partition(int N, int H, const TileConfig& cfg) {
  if (N <= 0 || H <= 0) throw std::invalid_argument("partition: N and H must be positive");
  if (cfg.bm <= 0 || cfg.bn <= 0 || cfg.bk <= 0)
    throw std::invalid_argument("partition: tile sizes must be positive");
  std::vector<Tile> tiles;
  for (int n0 = 0; n0 < N; n0 += cfg.bm)
    for (int h0 = 0; h0 < H; h0 += cfg.bn)
      tiles.push_back({n0, h0, std::min(cfg.bm, N - n0), std::min(cfg.bn, H - h0)});
  return tiles;
}

std::string unsupported_reason(const TileConfig& cfg, const Shape& s) {
  if (s.BT <= 0 || s.N <= 0 || s.H <= 0) return "shape must be positive";
  if (s.ldy != 0 && s.ldy < s.N) return "dY's row stride ldy must be 0 or >= N";
  if (cfg.stages != 0 && !(cfg.engine == Engine::wgmma && cfg.epilogue == 5))
    return "a stage-ring depth is a _pingpong configuration's only";
  if (cfg.checked_div && !(cfg.engine == Engine::wgmma && cfg.epilogue == 5 && cfg.bn == 128))
    return "the checked division is a 128x128 _pingpong configuration's only";
  if (cfg.engine != Engine::simt) {
    const std::string e = cfg.engine == Engine::mma ? "mma" : "wgmma";
    // 16-byte loads (cp.async, TMA) of dY rows need a stride of 8 bf16.
    if (dy_stride(s) % 8) return e + " engine needs dY's row stride % 8 == 0";
    if (s.N % cfg.bm) return e + " engine needs N % " + std::to_string(cfg.bm) + " == 0";
    if (s.H % cfg.bn) return e + " engine needs H % " + std::to_string(cfg.bn) + " == 0";
    if (s.BT % cfg.bk) return e + " engine needs BT % " + std::to_string(cfg.bk) + " == 0";
  }
  return "";
}

std::vector<std::pair<int, int>> k_order(const TileConfig& cfg, int BT) {
  const int chunk = cfg.engine == Engine::simt ? 1 : 16;
  std::vector<std::pair<int, int>> order;
  for (int t = 0; t < BT; t += chunk) order.emplace_back(t, std::min(BT, t + chunk));
  return order;
}

}  // namespace fusecert::kernels
