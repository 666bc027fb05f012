// fused_wgmma_pingpong.cu — persistent, warp-specialized Hopper fused step
// whose epilogue streams W/m/v through shared memory with the bulk tensor
// copy engine (`_pingpong`, issue #20). sm_90a only.
//
// One CTA per SM; a producer warpgroup (setmaxnreg 40) and NC math
// warpgroups that share the rest: NC = 2 on 128 x 128 tiles (232 registers
// each, `wgmma_128x128x64_pingpong`), NC = 4 on 128 x 64 tiles (104 each,
// `wgmma_128x64x64_pingpong`: twice the warps in the epilogue):
//  * producer warpgroup: warp 0 streams dY/X stages (128x128 tile, 64 tokens a
//    stage) into an S-stage mbarrier ring; warp 1 streams the W/m/v rows of
//    the tiles in the same order into a ring of "slices" (16 rows x BN
//    columns of each array, 128-byte swizzled), as far ahead as the ring
//    allows — so tile i+1's W/m/v arrive while tile i computes;
//  * the math warpgroups take the CTA's tiles in turn (ping-pong): each
//    holds a whole 128 x BN accumulator (two m64nBN wgmmas per 16-token
//    chunk); their main loops take turns on the tensor cores (an mbarrier
//    order), so the others' epilogues overlap one warpgroup's main loop.
//    Warp w of a math warpgroup owns accumulator rows 16w..16w+15 of each
//    64-row half, i.e. slices w and w+4 of its tile: it waits for the slice,
//    updates it in shared memory from its registers (the gradient never
//    leaves them), and one lane writes the slice back with TMA stores.
// K order: one wgmma per 16-token chunk, chunks ascending (as every wgmma
// configuration); the optimizer is optim.h's, element by element — the same
// bits as the host reference applied to the kernel's accumulator.
#include <cstdint>

#include "fusecert/kernels/cuda_api.h"
#include "tma.cuh"
#include "wgmma_ops.cuh"

namespace fusecert::kernels {
namespace {

using detail::mbar_arrive;
using detail::mbar_expect_tx;
using detail::mbar_init;
using detail::mbar_wait;

constexpr int kBM = 128, kBK = 64, kPanel = kBK * 128;  // 64 token rows x 128 B
constexpr int kSliceRows = 16, kSlices = kBM / kSliceRows;  // one warp's rows of a 64-row half
constexpr int kBox = kSliceRows * 128;                       // one 16-row x 128-byte box
constexpr int kMaxSlots = 32;
constexpr int kSmemLimit = 232448;  // Hopper's opt-in maximum per block (227 KiB)

/// S stages, NC math warpgroups taking tiles of 128 x BN in turn.
template <int S, int NC, int BN>
struct PCfg {
  static constexpr int kThreads = 128 * (1 + NC);
  // Registers: the cap at entry (launch bounds, 1 CTA/SM), then the producer
  // warpgroup gives all but 40 to the math warpgroups (setmaxnreg).
  static constexpr int kEntryRegs = (65536 / kThreads) / 8 * 8 > 255 ? 248 : (65536 / kThreads) / 8 * 8;
  static constexpr int kMathRegs0 = (kEntryRegs * kThreads - 40 * 128) / (NC * 128) / 8 * 8;
  static constexpr int kMathRegs = kMathRegs0 > 240 ? 240 : kMathRegs0;
  static constexpr int kA = 2 * kPanel, kB = (BN / 64) * kPanel;
  static constexpr int kPipe = S * (kA + kB);
  static constexpr int kBarBytes = (2 * S + NC + 2 * kMaxSlots) * 8 + kMaxSlots * 4;
  static constexpr int kRing = (kSmemLimit - 1024 - kPipe - kBarBytes) / kBox * kBox;
  static constexpr int kSmemBytes = 1024 + kPipe + kRing + kBarBytes;
  static_assert(kSmemBytes <= kSmemLimit, "fits in shared memory");
};

/// Byte offset of byte `byte` of row r (0..15) in a slice part: 128-byte
/// column boxes of 16 rows, 16-byte chunks swizzled by r % 8 (SW128).
__device__ __forceinline__ unsigned sw_off(int r, int byte) {
  return static_cast<unsigned>((byte >> 7) * kBox + r * 128 +
                               ((((byte >> 4) & 7) ^ (r & 7)) << 4) + (byte & 15));
}
template <DType T>
__device__ __forceinline__ void ld_pair(const std::uint8_t* part, int r, int c, float& a,
                                        float& b) {
  if constexpr (T == DType::f32) {
    const float2 x = *reinterpret_cast<const float2*>(part + sw_off(r, c * 4));
    a = x.x;
    b = x.y;
  } else {
    const unsigned x = *reinterpret_cast<const unsigned*>(part + sw_off(r, c * 2));
    a = __uint_as_float(x << 16);
    b = __uint_as_float(x & 0xffff0000u);
  }
}
template <DType T>
__device__ __forceinline__ void st_pair(std::uint8_t* part, int r, int c, float a, float b) {
  if constexpr (T == DType::f32) {
    *reinterpret_cast<float2*>(part + sw_off(r, c * 4)) = make_float2(a, b);
  } else {
    const unsigned lo = float_to_bf16(a).bits, hi = float_to_bf16(b).bits;
    *reinterpret_cast<unsigned*>(part + sw_off(r, c * 2)) = lo | (hi << 16);
  }
}

template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

/// Four 8-column blocks j0..j0+3 of a warp's slice: gradients g (m64n128
/// fragment order: block jj, rows gid and gid + 8, columns 8j + 2*tid4, +1)
/// against the W/m/v slice parts in shared memory, updated in place. A rolled
/// loop over j0 keeps the executed code small (a fully unrolled slice missed
/// the instruction cache: ncu, issue #20 step 7).
template <Optimizer O, DType WT, DType ST>
__device__ __forceinline__ void epilogue_group(const float (&g)[16], int j0, const StepParams& p,
                                               bool seeded, std::uint8_t* Wp, std::uint8_t* Mp,
                                               std::uint8_t* Vp, int lane, float* dump, int H) {
  const int gid = lane >> 2, tid4 = lane & 3;
#pragma unroll
  for (int jj = 0; jj < 4; ++jj)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = gid + 8 * half, c = 8 * (j0 + jj) + 2 * tid4;
      const float g0 = g[4 * jj + 2 * half], g1 = g[4 * jj + 2 * half + 1];
      if (dump)
        *reinterpret_cast<float2*>(dump + static_cast<std::size_t>(r) * H + c) =
            make_float2(g0, g1);
      if constexpr (O == Optimizer::momentum_state) {
        float s0 = 0.0f, s1 = 0.0f;
        if (seeded) ld_pair<ST>(Vp, r, c, s0, s1);
        st_pair<ST>(Mp, r, c, momentum_contribution(p.momentum, g0, seeded, s0),
                    momentum_contribution(p.momentum, g1, seeded, s1));
      } else {
        float w0, w1, m0, m1;
        ld_pair<WT>(Wp, r, c, w0, w1);
        ld_pair<ST>(Mp, r, c, m0, m1);
        if constexpr (O == Optimizer::adamw) {
          float v0, v1;
          ld_pair<ST>(Vp, r, c, v0, v1);
          adamw_update(p, g0, w0, m0, v0);
          adamw_update(p, g1, w1, m1, v1);
          st_pair<ST>(Vp, r, c, v0, v1);
        } else {
          sgd_momentum_update(p, g0, w0, m0);
          sgd_momentum_update(p, g1, w1, m1);
        }
        st_pair<ST>(Mp, r, c, m0, m1);
        st_pair<WT>(Wp, r, c, w0, w1);
      }
    }
}

template <int S, int NC, int BN, Optimizer O, DType WT, DType ST>
__global__ void __launch_bounds__(PCfg<S, NC, BN>::kThreads, 1)
    fused_wgmma_pingpong_kernel(const __grid_constant__ CUtensorMap tmA,
                                const __grid_constant__ CUtensorMap tmB,
                                const __grid_constant__ CUtensorMap tmW,
                                const __grid_constant__ CUtensorMap tmM,
                                const __grid_constant__ CUtensorMap tmV, StepParams p, Shape s,
                                bool seeded, int nslots, float* grad_dump) {
  using C = PCfg<S, NC, BN>;
  constexpr int kBN = BN;
  extern __shared__ std::uint8_t smem_raw[];
  std::uint8_t* smem = reinterpret_cast<std::uint8_t*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  std::uint8_t* As = smem;
  std::uint8_t* Bs = smem + S * C::kA;
  std::uint8_t* ring = smem + C::kPipe;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(ring + C::kRing);
  std::uint64_t* empty = full + S;
  std::uint64_t* order = empty + S;      // [c]: math warpgroup c finished a main loop
  std::uint64_t* slot_full = order + NC;  // W/m/v slice landed
  std::uint64_t* slot_empty = slot_full + kMaxSlots;  // slice stored, slot free
  // The round each slot is being filled for, written by the slice producer
  // before it refills the slot. The warps consume slices out of order (and
  // the two warpgroups' epilogues overlap), so a warp can reach a slot's
  // round r before round r-1 has landed; a parity wait alone would then see
  // round r-2's completed phase and pass. Waiting for round >= r first makes
  // the parity wait unambiguous.
  volatile unsigned* slot_round = reinterpret_cast<volatile unsigned*>(slot_empty + kMaxSlots);
  // A slot: the slice of W (wt), then of m and v (st); a 128-column row of
  // an array of e-byte elements is e boxes of 128 B.
  // 128-byte boxes per slice row of an array: BN columns of 2 or 4 bytes.
  constexpr int wboxes = BN * (WT == DType::f32 ? 4 : 2) / 128,
                sboxes = BN * (ST == DType::f32 ? 4 : 2) / 128;
  constexpr int slot_bytes = kBox * (wboxes + 2 * sboxes);
  constexpr bool state = O == Optimizer::momentum_state;
  const bool ldW = !state, ldM = !state, ldV = O == Optimizer::adamw || (state && seeded);
  constexpr bool stW = !state, stV = O == Optimizer::adamw;

  const int tid = threadIdx.x, warp_id = tid >> 5, lane = tid & 31, wg = tid >> 7;
  if (tid == 0) {
    for (int i = 0; i < S; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], 4);  // one arrival per warp of the consuming warpgroup
    }
    for (int c = 0; c < NC; ++c) mbar_init(&order[c], 4);
    for (int i = 0; i < kMaxSlots; ++i) {
      mbar_init(&slot_full[i], 1);
      mbar_init(&slot_empty[i], 1);
      slot_round[i] = 0;
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int tiles_m = s.N / kBM, tiles_n = s.H / kBN, tiles = tiles_m * tiles_n;
  const int KT = s.BT / kBK;

  if (wg == 0) {
    // ------------------------------ producer warpgroup ------------------------------
    setmaxnreg_dec<40>();
    if (warp_id == 0 && lane == 0) {  // dY / X stages
      int it = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int n0, h0;
        detail::tile_coords(t, tiles_m, tiles_n, kBM, kBN, n0, h0);
        for (int kt = 0; kt < KT; ++kt, ++it) {
          const int sg = it % S;
          if (it >= S) mbar_wait(&empty[sg], ((it / S) & 1) ^ 1);
          mbar_expect_tx(&full[sg], C::kA + C::kB);
#pragma unroll
          for (int pa = 0; pa < 2; ++pa)
            detail::tma_load_2d(As + sg * C::kA + pa * kPanel, &tmA, n0 + pa * 64, kt * kBK,
                                &full[sg]);
#pragma unroll
          for (int pb = 0; pb < kBN / 64; ++pb)
            detail::tma_load_2d(Bs + sg * C::kB + pb * kPanel, &tmB, h0 + pb * 64, kt * kBK,
                                &full[sg]);
        }
      }
    } else if (warp_id == 1 && lane == 0) {  // W / m / v slices, same tile order
      const unsigned bytes = kBox * ((ldW ? wboxes : 0) + (ldM ? sboxes : 0) + (ldV ? sboxes : 0));
      unsigned q = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int n0, h0;
        detail::tile_coords(t, tiles_m, tiles_n, kBM, kBN, n0, h0);
        for (int sl = 0; sl < kSlices; ++sl, ++q) {
          const unsigned slot = q % nslots, round = q / nslots;
          if (q >= static_cast<unsigned>(nslots)) {
            mbar_wait(&slot_empty[slot], (round & 1) ^ 1);
            slot_round[slot] = round;
          }
          std::uint8_t* base = ring + slot * slot_bytes;
          mbar_expect_tx(&slot_full[slot], bytes);
          const int row = n0 + sl * kSliceRows;
          if (ldW)
            for (int b = 0; b < wboxes; ++b)
              detail::tma_load_2d(base + b * kBox, &tmW, h0 + b * (kBN / wboxes), row,
                                  &slot_full[slot]);
          if (ldM)
            for (int b = 0; b < sboxes; ++b)
              detail::tma_load_2d(base + wboxes * kBox + b * kBox, &tmM, h0 + b * (kBN / sboxes), row,
                                  &slot_full[slot]);
          if (ldV)
            for (int b = 0; b < sboxes; ++b)
              detail::tma_load_2d(base + (wboxes + sboxes) * kBox + b * kBox, &tmV, h0 + b * (kBN / sboxes), row,
                                  &slot_full[slot]);
        }
      }
    }
    return;
  }

  // ------------------------------ math warpgroups (ping-pong) ------------------------------
  setmaxnreg_inc<C::kMathRegs>();
  const int c = wg - 1, warp = warp_id & 3;
  int n = 0;  // this warpgroup's tiles so far
  for (int k = c;; k += NC, ++n) {  // k: the CTA's k-th tile
    const int t = blockIdx.x + k * static_cast<int>(gridDim.x);
    if (t >= tiles) break;
    int n0, h0;
    detail::tile_coords(t, tiles_m, tiles_n, kBM, kBN, n0, h0);
    // Main loops take turns: tile k waits for tile k-1's main loop (warpgroup
    // c-1's n-th, or for c = 0 warpgroup NC-1's (n-1)-th).
    if (c > 0) mbar_wait(&order[c - 1], n & 1);
    else if (n > 0) mbar_wait(&order[NC - 1], (n - 1) & 1);
    constexpr int kAcc = BN / 2;  // accumulator registers of one m64nBN half
    float acc0[kAcc], acc1[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc0[i] = 0.0f, acc1[i] = 0.0f;
    int it = k * KT;
    for (int kt = 0; kt < KT; ++kt, ++it) {
      const int sg = it % S;
      mbar_wait(&full[sg], (it / S) & 1);
      const std::uint8_t* a = As + sg * C::kA;
      const std::uint8_t* b = Bs + sg * C::kB;
      detail::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk) {  // 16-token chunks, ascending
        const std::uint64_t db = detail::make_desc_sw128(b + kk * 2048, kPanel, 1024);
        const std::uint64_t da0 = detail::make_desc_sw128(a + kk * 2048, kPanel, 1024);
        const std::uint64_t da1 = detail::make_desc_sw128(a + kPanel + kk * 2048, kPanel, 1024);
        if constexpr (BN == 128) {
          detail::wgmma_m64n128k16(acc0, da0, db, 1);
          detail::wgmma_m64n128k16(acc1, da1, db, 1);
        } else {
          detail::wgmma_m64n64k16(acc0, da0, db, 1);
          detail::wgmma_m64n64k16(acc1, da1, db, 1);
        }
      }
      detail::wgmma_commit();
      detail::wgmma_wait1();  // the previous stage's wgmmas have retired: release it
      if (kt > 0 && lane == 0) mbar_arrive(&empty[(it - 1) % S]);
    }
    if (lane == 0) mbar_arrive(&order[c]);  // every stage of this tile observed: next may go
    detail::wgmma_wait0();
    if (lane == 0) mbar_arrive(&empty[(it - 1) % S]);

    // Epilogue: slices `warp` (rows 16w.. of half 0) and `warp + 4` (half 1).
    // The warp's slices: `warp` (rows 16w.. of half 0, acc0), then `warp + 4`
    // (half 1, acc1, moved into acc0). acc0 is consumed 16 values at a time.
#pragma unroll 1
    for (int hb = 0; hb < 2; ++hb) {
      const int sl = hb * 4 + warp;
      const unsigned q = static_cast<unsigned>(k) * kSlices + sl;
      const unsigned slot = q % nslots, round = q / nslots;
      while (slot_round[slot] < round) {
      }
      mbar_wait(&slot_full[slot], round & 1);
      std::uint8_t* Wp = ring + slot * slot_bytes;
      std::uint8_t* Mp = Wp + wboxes * kBox;
      std::uint8_t* Vp = Mp + sboxes * kBox;
      const int row0 = n0 + sl * kSliceRows;
      float* dump = grad_dump ? grad_dump + static_cast<std::size_t>(row0) * s.H + h0 : nullptr;
#pragma unroll 1
      for (int j0 = 0; j0 < kBN / 8; j0 += 4) {
        float g[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) g[i] = acc0[i];
        epilogue_group<O, WT, ST>(g, j0, p, seeded, Wp, Mp, Vp, lane, dump, s.H);
#pragma unroll
        for (int i = 0; i < kAcc - 16; ++i) acc0[i] = acc0[i + 16];
      }
      detail::fence_proxy_async();  // generic-proxy writes -> the TMA store reads them
      __syncwarp();
      if (lane == 0) {
        if (stW)
          for (int b = 0; b < wboxes; ++b)
            detail::tma_store_2d(&tmW, Wp + b * kBox, h0 + b * (kBN / wboxes), row0);
        for (int b = 0; b < sboxes; ++b)
          detail::tma_store_2d(&tmM, Mp + b * kBox, h0 + b * (kBN / sboxes), row0);
        if (stV)
          for (int b = 0; b < sboxes; ++b)
            detail::tma_store_2d(&tmV, Vp + b * kBox, h0 + b * (kBN / sboxes), row0);
        detail::tma_store_commit();
        detail::tma_store_wait_read();  // the slot may be refilled once the stores have read it
        mbar_arrive(&slot_empty[slot]);
      }
      __syncwarp();
#pragma unroll
      for (int i = 0; i < kAcc; ++i) acc0[i] = acc1[i];
    }
  }
  if (lane == 0) detail::tma_store_wait_all();
}

template <int S, int NC, int BN, Optimizer O, DType WT, DType ST>
cudaError_t launch_pingpong(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                            void* W, void* m, void* v, float* dump, cudaStream_t stream) {
  using C = PCfg<S, NC, BN>;
  constexpr int kBN = BN;
  auto kernel = fused_wgmma_pingpong_kernel<S, NC, BN, O, WT, ST>;
  static int sms = 0;
  if (sms == 0) {
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  }
  constexpr bool state = O == Optimizer::momentum_state;
  const bool seeded = state && v != nullptr;
  // The copy engine needs 16-byte aligned bases (row strides are H * 2 or 4 bytes).
  for (const void* q : {static_cast<const void*>(W), static_cast<const void*>(m),
                        static_cast<const void*>(v)})
    if (reinterpret_cast<std::uintptr_t>(q) % 16) return cudaErrorMisalignedAddress;
  CUtensorMap ma, mb, mw{}, mm{}, mv{};
  if (!detail::make_map_sw128(&ma, dY, DType::bf16, s.BT, s.N, dy_stride(s), 64) ||
      !detail::make_map_sw128(&mb, X, DType::bf16, s.BT, s.H, s.H, 64) ||
      (!state && !detail::make_map_sw128(&mw, W, WT, s.N, s.H, s.H, kSliceRows)) ||
      !detail::make_map_sw128(&mm, m, ST, s.N, s.H, s.H, kSliceRows) ||
      ((O == Optimizer::adamw || seeded) &&
       !detail::make_map_sw128(&mv, v, ST, s.N, s.H, s.H, kSliceRows)))
    return cudaErrorNotSupported;
  const int slot_bytes =
      kBox * static_cast<int>(BN * (dtype_bytes(WT) + 2 * dtype_bytes(ST)) / 128);
  int nslots = C::kRing / slot_bytes;
  if (nslots > kMaxSlots) nslots = kMaxSlots;
  const int tiles = (s.N / kBM) * (s.H / kBN);
  kernel<<<tiles < sms ? tiles : sms, C::kThreads, C::kSmemBytes, stream>>>(ma, mb, mw, mm, mv, p, s,
                                                                         seeded, nslots, dump);
  return cudaGetLastError();
}

template <int S, int NC, int BN, Optimizer O>
cudaError_t launch_types(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                         void* W, DType wt, void* m, void* v, DType st, float* dump,
                         cudaStream_t stream) {
  constexpr DType F = DType::f32, B = DType::bf16;
  if (wt == B && st == B) return launch_pingpong<S, NC, BN, O, B, B>(p, s, dY, X, W, m, v, dump, stream);
  if (wt == B && st == F) return launch_pingpong<S, NC, BN, O, B, F>(p, s, dY, X, W, m, v, dump, stream);
  if (wt == F && st == B) return launch_pingpong<S, NC, BN, O, F, B>(p, s, dY, X, W, m, v, dump, stream);
  return launch_pingpong<S, NC, BN, O, F, F>(p, s, dY, X, W, m, v, dump, stream);
}

}  // namespace

cudaError_t launch_fused_wgmma_pingpong(const TileConfig& cfg, const StepParams& p,
                                        const Shape& s, const bf16* dY, const bf16* X, void* W,
                                        DType wt, void* m, void* v, DType st, float* dump,
                                        cudaStream_t stream) {
  if (cfg.bm != kBM || cfg.bk != kBK) return cudaErrorInvalidValue;
  // 128 x 128 tiles: two math warpgroups; 128 x 64: four (half the
  // accumulator each, twice the warps in the epilogue).
#define FK_PP_DISPATCH(NC, BN)                                                                  \
  switch (p.opt) {                                                                             \
    case Optimizer::adamw:                                                                     \
      return launch_types<3, NC, BN, Optimizer::adamw>(p, s, dY, X, W, wt, m, v, st, dump,     \
                                                       stream);                                \
    case Optimizer::sgd_momentum:                                                              \
      return launch_types<3, NC, BN, Optimizer::sgd_momentum>(p, s, dY, X, W, wt, m, v, st,    \
                                                              dump, stream);                   \
    case Optimizer::momentum_state:                                                            \
      return launch_types<3, NC, BN, Optimizer::momentum_state>(p, s, dY, X, W, wt, m, v, st,  \
                                                                dump, stream);                 \
  }
  if (cfg.bn == 128) FK_PP_DISPATCH(2, 128)
  if (cfg.bn == 64) FK_PP_DISPATCH(4, 64)
#undef FK_PP_DISPATCH
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
