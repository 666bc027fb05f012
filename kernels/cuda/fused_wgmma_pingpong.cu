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
// Epilogue (issue #20 step 10): the slices are read and written with
// ld/st.shared at 32-bit addresses (a lane's swizzled offsets computed once),
// each batch of pairs issues all its loads before its first update, AdamW's
// square roots of a batch go through sqrt_refined (no slow-path branch per
// element) when all lie in its range, the step's scalars sit in registers,
// bf16 pairs are packed by one conversion, and the test-only accumulator
// dump is a separate loop. Step 12: the `_cdiv` configurations (128 x 128,
// FD) also take a batch's AdamW divisions without __fdiv_rn's branch per
// element, by the checked division (div_checked.cuh), in batches of 4 pairs.
// Step 13: a `_cdiv` batch tests its square roots' range and its quotients
// once, after both (one branch per batch, not two); in the `_cdiv` kernels
// with bf16 states a warp hands its first slice's slot back after the first
// group of its second slice, not waiting right after the TMA stores
// (FK_PP_DEFER).
// Step 16: where whole slices would leave the ring fewer than 6 slots (the
// 4-stage ring with f32 states), the ring's quantum is a unit of 16 rows x
// 64 columns, half a slice: a warp holds one unit at a time, so more of the
// ring loads ahead (FK_PP_UNIT_BELOW).
// K order: one wgmma per 16-token chunk, chunks ascending (as every wgmma
// configuration); the optimizer is optim.h's, element by element — the same
// bits as the host reference applied to the kernel's accumulator.
#include <cstdint>

#include <cuda_bf16.h>

#include "fusecert/kernels/cuda_api.h"
#include "div_checked.cuh"
#include "sqrt_refined.cuh"
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
// Step 16: the ring's quantum may be a unit of a slice, 16 rows x 64
// columns (half a 128-column slice) instead of the whole slice. A warp holds
// one unit at a time, so the 8 warps of the two math warpgroups hold half the
// bytes, and more of the ring is free to load ahead; but each unit costs its
// own waits, fence and TMA store commit. Units are taken where whole slices
// would leave fewer than FK_PP_UNIT_BELOW slots (default 6: the 4-stage
// 128 x 128 ring with f32 states, 4 slots of 20 or 24 KiB, fewer than the 8
// warps that each hold one; the A/B of step 16 measured -8 ... -14 % there
// and +2 ... +6 % with bf16 states' 8 slots). 0: never; 99: always.
#ifndef FK_PP_UNIT_BELOW
#define FK_PP_UNIT_BELOW 6
#endif
// Epilogue variants for A/B runs (bench/kernels/device_variants.sh):
// FK_PP_FASTSQRT 0 takes __fsqrt_rn everywhere; FK_PP_PARAMREGS 0 leaves
// the step's scalars in the constant bank (re-read by every update).
#ifndef FK_PP_FASTSQRT
#define FK_PP_FASTSQRT 1
#endif
#ifndef FK_PP_PARAMREGS
#define FK_PP_PARAMREGS 1
#endif
// The kernel's FD parameter (TileConfig::checked_div, `_cdiv`) takes a
// batch's divisions by div_guess and keeps them when div_is_rn accepts
// every one (div_checked.cuh), else __fdiv_rn for the whole batch: the same
// bits; without it, __fdiv_rn per element (its own slow-path branch each).
// FK_PP_STAGES: depth of the dY/X stage ring (the W/m/v slice ring takes the
// shared memory left over, so a deeper pipe means fewer slices ahead).
#ifndef FK_PP_STAGES
#define FK_PP_STAGES 3
#endif
// Step 13: FK_PP_ONEBRANCH 1 gives the `_cdiv` batches one test for their
// square roots and divisions together (0: a test for each, as in step 12).
#ifndef FK_PP_ONEBRANCH
#define FK_PP_ONEBRANCH 1
#endif
// FK_PP_DEFER 1: a warp's first slice of a tile is released (its slot handed
// back to the producer) after the first group of its second slice, not
// right after its TMA stores were issued, so the warp does not wait for the
// stores to read the slot; released at once whenever the warp would wait
// for a slice itself (so no slot is held across a wait that may need it).
#ifndef FK_PP_DEFER
#define FK_PP_DEFER 1
#endif
// Only in the `_cdiv` kernels with bf16 states (step 13's A/B: −2 … −3 % at
// BT 512 there; +1.5 … +3 % with f32 states, where it adds spills).
// FK_PP_DEFER_F32 1: also with f32 states (step 16's A/B, with units).
#ifndef FK_PP_DEFER_F32
#define FK_PP_DEFER_F32 0
#endif
constexpr bool kDeferBuild = FK_PP_DEFER != 0;
constexpr bool kFastSqrt = FK_PP_FASTSQRT != 0;
constexpr bool kOneBranch = FK_PP_ONEBRANCH != 0;
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

/// Columns of a W/m/v unit (see FK_PP_UNIT_BELOW): 64 when whole slices of
/// a 128 x BN tile (W of WT, m and v of ST) would leave the ring fewer than
/// FK_PP_UNIT_BELOW slots, else BN (the unit is the whole slice).
template <int S, int NC, int BN, DType WT, DType ST>
__host__ __device__ constexpr int unit_cols() {
  constexpr int whole = kBox * BN * ((WT == DType::f32 ? 4 : 2) + 2 * (ST == DType::f32 ? 4 : 2)) / 128;
  return BN > 64 && PCfg<S, NC, BN>::kRing / whole < FK_PP_UNIT_BELOW ? 64 : BN;
}

// The slices are addressed in the 32-bit shared-memory window with explicit
// ld.shared/st.shared: reached through the 1024-byte-aligned base pointer,
// plain C++ accesses compile to generic loads with 64-bit address arithmetic.
__device__ __forceinline__ unsigned lds_b32(unsigned a) {
  unsigned x;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(x) : "r"(a) : "memory");
  return x;
}
__device__ __forceinline__ void sts_b32(unsigned a, unsigned x) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(x) : "memory");
}
__device__ __forceinline__ void sts_f32x2(unsigned a, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a), "f"(x), "f"(y) : "memory");
}

/// Where a lane's column pairs lie in a slice part of element type T: 128-byte
/// column boxes of 16 rows, 16-byte chunks swizzled by row % 8 (SW128). The
/// lane (gid = lane / 4, tid4 = lane % 4) holds rows gid and gid + 8 (half)
/// and columns 8j + 2*tid4, +1 of 8-column blocks j; within a group of four
/// blocks j = j0 + jj (j0 % 4 == 0) the offset is
///   box(j0) + 1024*half + (lane_[jj] ^ flip(j0)),
/// with lane_[jj] the offset for j0 = 0 (row gid) computed once. bf16: byte
/// 16j + 4*tid4, box j / 8, chunk (j % 8) ^ gid, so j0 % 8 == 4 flips chunk
/// bit 2 (byte bit 6); f32: byte 32j + 8*tid4, box j / 4, chunk
/// (2*jj + tid4 / 2) ^ gid, which does not depend on j0.
template <DType T>
struct SliceLane {
  unsigned lane_[4];
  __device__ __forceinline__ explicit SliceLane(int lane) {
    const unsigned gid = static_cast<unsigned>(lane) >> 2, tid4 = static_cast<unsigned>(lane) & 3;
#pragma unroll
    for (unsigned jj = 0; jj < 4; ++jj)
      lane_[jj] = T == DType::bf16
                      ? gid * 128 + (((jj ^ gid) & 7) << 4) + 4 * tid4
                      : gid * 128 + (((2 * jj + (tid4 >> 1)) ^ gid) << 4) + 8 * (tid4 & 1);
  }
  __device__ __forceinline__ unsigned box(int j0) const {
    return static_cast<unsigned>(j0 >> (T == DType::bf16 ? 3 : 2)) * kBox;
  }
  __device__ __forceinline__ unsigned flip(int j0) const {
    return T == DType::bf16 ? (static_cast<unsigned>(j0) & 4u) << 4 : 0u;
  }
};

/// A column pair's raw bits in a slice: one 32-bit word (two bf16) or two (f32).
template <DType T>
constexpr int kRawWords = T == DType::f32 ? 2 : 1;
template <DType T>
__device__ __forceinline__ void ld_raw(unsigned a, unsigned (&r)[kRawWords<T>]) {
  if constexpr (T == DType::f32) {
    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a) : "memory");
  } else {
    r[0] = lds_b32(a);
  }
}
/// A pair's raw bits widened to binary32 (bf16: x in the low 16 bits).
template <DType T>
__device__ __forceinline__ void widen(const unsigned (&r)[kRawWords<T>], float& x, float& y) {
  if constexpr (T == DType::f32) {
    x = __uint_as_float(r[0]);
    y = __uint_as_float(r[1]);
  } else {
    x = __uint_as_float(r[0] << 16);
    y = __uint_as_float(r[0] & 0xffff0000u);
  }
}
/// The raw W/m/v bits of the 8 pairs of a group of four 8-column blocks
/// (pair i: block i % 4, row half i / 4), as loaded from the slice.
template <DType WT, DType ST>
struct GroupRaw {
  unsigned w[8][kRawWords<WT>], m[8][kRawWords<ST>], v[8][kRawWords<ST>];
};

/// Shared addresses of pair i of the group at block j0: W's absolute (wa),
/// the state's relative to its part's base (sa).
template <DType WT, DType ST>
__device__ __forceinline__ void pair_addr(int i, int j0, unsigned ws, const SliceLane<WT>& wl,
                                          const SliceLane<ST>& sl, unsigned& wa, unsigned& sa) {
  const int jj = i & 3, half = i >> 2;
  wa = ws + wl.box(j0) + 1024 * half + (wl.lane_[jj] ^ wl.flip(j0));
  sa = sl.box(j0) + 1024 * half + (sl.lane_[jj] ^ sl.flip(j0));
}

/// Load pairs P0..P0+NP-1 of the group at block j0 into r (what optimizer O
/// reads: W, m, and v for AdamW; the seed, in v, for the momentum state).
template <Optimizer O, DType WT, DType ST, int P0, int NP>
__device__ __forceinline__ void load_pairs(int j0, bool seeded, unsigned ws, unsigned ms,
                                           unsigned vs, const SliceLane<WT>& wl,
                                           const SliceLane<ST>& sl, GroupRaw<WT, ST>& r) {
#pragma unroll
  for (int i = P0; i < P0 + NP; ++i) {
    unsigned wa, sa;
    pair_addr(i, j0, ws, wl, sl, wa, sa);
    if constexpr (O == Optimizer::momentum_state) {
#pragma unroll
      for (int k = 0; k < kRawWords<ST>; ++k) r.v[i][k] = 0u;
      if (seeded) ld_raw<ST>(vs + sa, r.v[i]);
    } else {
      ld_raw<WT>(wa, r.w[i]);
      ld_raw<ST>(ms + sa, r.m[i]);
      if constexpr (O == Optimizer::adamw) ld_raw<ST>(vs + sa, r.v[i]);
    }
  }
}

/// Store a column pair: f32 as is, bf16 rounded to nearest even by one
/// packed conversion (cvt.rn.bf16x2.f32: the same rounding of each half as
/// float_to_bf16, x in the low 16 bits).
template <DType T>
__device__ __forceinline__ void st_pair(unsigned a, float x, float y) {
  if constexpr (T == DType::f32) {
    sts_f32x2(a, x, y);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
    sts_b32(a, *reinterpret_cast<const unsigned*>(&h));
  }
}

/// Pairs P0..P0+NP-1 of a group of four 8-column blocks j0..j0+3 of a warp's
/// slice (pair i: block jj = i % 4, row half i / 4): gradients g (m64nBN
/// fragment order: block jj, rows gid and gid + 8, columns 8j + 2*tid4, +1)
/// against the W/m/v values in r (the batch's loads, all issued before its
/// first update), written back to the slice parts at shared addresses
/// ws/ms/vs. The batch's dependent chains (the square root, then the
/// division) overlap.
template <Optimizer O, DType WT, DType ST, int P0, int NP, bool kFastDiv>
__device__ __forceinline__ void epilogue_batch(const float (&g)[16], int j0, const StepParams& p,
                                               bool seeded, unsigned ws, unsigned ms, unsigned vs,
                                               const SliceLane<WT>& wl, const SliceLane<ST>& sl,
                                               const GroupRaw<WT, ST>& r) {
  unsigned wa[NP], sa[NP];
#pragma unroll
  for (int i = 0; i < NP; ++i) pair_addr(P0 + i, j0, ws, wl, sl, wa[i], sa[i]);
  auto grad = [&](int i, int e) { return g[4 * ((P0 + i) & 3) + 2 * ((P0 + i) >> 2) + e]; };
  if constexpr (O == Optimizer::momentum_state) {
    float s[NP][2];
#pragma unroll
    for (int i = 0; i < NP; ++i) widen<ST>(r.v[P0 + i], s[i][0], s[i][1]);
#pragma unroll
    for (int i = 0; i < NP; ++i)
      st_pair<ST>(ms + sa[i], momentum_contribution(p.momentum, grad(i, 0), seeded, s[i][0]),
                  momentum_contribution(p.momentum, grad(i, 1), seeded, s[i][1]));
  } else {
    float w[NP][2], m[NP][2], v[NP][2];
#pragma unroll
    for (int i = 0; i < NP; ++i) {
      widen<WT>(r.w[P0 + i], w[i][0], w[i][1]);
      widen<ST>(r.m[P0 + i], m[i][0], m[i][1]);
      if constexpr (O == Optimizer::adamw) widen<ST>(r.v[P0 + i], v[i][0], v[i][1]);
    }
    if constexpr (O == Optimizer::adamw) {
      // optim.h's adamw_update, in its two parts, with the batch's square
      // roots between them: refined (no per-element slow-path branch) when
      // every new v of the batch lies in sqrt_refined's range, else
      // __fsqrt_rn — the same bits either way (sqrt_refined.cuh).
      bool in_range = true;
#pragma unroll
      for (int i = 0; i < NP; ++i)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          adamw_moments(p, grad(i, e), m[i][e], v[i][e]);
          in_range = in_range && detail::sqrt_refined_in_range(v[i][e]);
        }
      float rt[NP][2];
      if constexpr (kFastDiv && kOneBranch && kFastSqrt) {
        // The checked division with one test per batch (step 13): the
        // refined square roots and the guessed quotients of the whole batch
        // are computed straight through; only if some v lies outside
        // sqrt_refined's range or div_is_rn refuses some quotient does the
        // batch take __fsqrt_rn and __fdiv_rn for all (optim.h's
        // adamw_weight in its parts: the same bits either way).
        float num[NP][2], den[NP][2], q[NP][2];
        unsigned all_ok = in_range ? 1u : 0u;  // `&`, not `&&`: no branch per element
#pragma unroll
        for (int i = 0; i < NP; ++i)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            rt[i][e] = detail::sqrt_refined(v[i][e]);
            num[i][e] = adamw_numerator(p, m[i][e]);
            den[i][e] = adamw_denominator(p, rt[i][e]);
            q[i][e] = detail::div_guess(num[i][e], den[i][e]);
            all_ok &= static_cast<unsigned>(detail::div_is_rn(num[i][e], den[i][e], q[i][e]));
          }
        if (!all_ok) {
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e)
              q[i][e] = fk_div(num[i][e], adamw_denominator(p, fk_sqrt(v[i][e])));
        }
#pragma unroll
        for (int i = 0; i < NP; ++i)
#pragma unroll
          for (int e = 0; e < 2; ++e) w[i][e] = adamw_apply(p, w[i][e], q[i][e]);
      } else {
        if (kFastSqrt && in_range) {
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) rt[i][e] = detail::sqrt_refined(v[i][e]);
        } else {
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) rt[i][e] = fk_sqrt(v[i][e]);
        }
        if constexpr (kFastDiv) {
          // The batch's divisions: candidates by div_guess, kept only when
          // div_is_rn proves every one correctly rounded, else __fdiv_rn for
          // all (optim.h's adamw_weight in its parts: the same bits).
          float num[NP][2], den[NP][2], q[NP][2];
          unsigned all_rn = 1u;  // `&`, not `&&`: no branch per element
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              num[i][e] = adamw_numerator(p, m[i][e]);
              den[i][e] = adamw_denominator(p, rt[i][e]);
              q[i][e] = detail::div_guess(num[i][e], den[i][e]);
              all_rn &= static_cast<unsigned>(detail::div_is_rn(num[i][e], den[i][e], q[i][e]));
            }
          if (!all_rn) {
#pragma unroll
            for (int i = 0; i < NP; ++i)
#pragma unroll
              for (int e = 0; e < 2; ++e) q[i][e] = fk_div(num[i][e], den[i][e]);
          }
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) w[i][e] = adamw_apply(p, w[i][e], q[i][e]);
        } else {
#pragma unroll
          for (int i = 0; i < NP; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) w[i][e] = adamw_weight(p, w[i][e], m[i][e], rt[i][e]);
        }
      }
#pragma unroll
      for (int i = 0; i < NP; ++i) {
        st_pair<ST>(vs + sa[i], v[i][0], v[i][1]);
        st_pair<ST>(ms + sa[i], m[i][0], m[i][1]);
        st_pair<WT>(wa[i], w[i][0], w[i][1]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < NP; ++i) {
#pragma unroll
        for (int e = 0; e < 2; ++e) sgd_momentum_update(p, grad(i, e), w[i][e], m[i][e]);
        st_pair<ST>(ms + sa[i], m[i][0], m[i][1]);
        st_pair<WT>(wa[i], w[i][0], w[i][1]);
      }
    }
  }
}

/// One group of four 8-column blocks, both row halves: 8 pairs in batches
/// of NP (8 with the 232 registers of two warpgroups; fewer live values with
/// the 104 of four), each batch's loads issued before its first update.
template <Optimizer O, DType WT, DType ST, int NP, bool kFastDiv, int P0 = 0>
__device__ __forceinline__ void epilogue_group(const float (&g)[16], int j0, const StepParams& p,
                                               bool seeded, unsigned ws, unsigned ms, unsigned vs,
                                               const SliceLane<WT>& wl, const SliceLane<ST>& sl,
                                               GroupRaw<WT, ST>& r) {
  load_pairs<O, WT, ST, P0, NP>(j0, seeded, ws, ms, vs, wl, sl, r);
  epilogue_batch<O, WT, ST, P0, NP, kFastDiv>(g, j0, p, seeded, ws, ms, vs, wl, sl, r);
  if constexpr (P0 + NP < 8)
    epilogue_group<O, WT, ST, NP, kFastDiv, P0 + NP>(g, j0, p, seeded, ws, ms, vs, wl, sl, r);
}

/// The step's scalars as register values: the empty asm makes each opaque,
/// so the compiler keeps it in a register instead of re-reading the constant
/// bank in every update (it did, through uniform registers, around each
/// division's slow-path call).
__device__ __forceinline__ StepParams params_in_registers(StepParams q) {
  asm volatile(""
               : "+f"(q.beta1), "+f"(q.one_minus_beta1), "+f"(q.beta2), "+f"(q.one_minus_beta2),
                 "+f"(q.eps), "+f"(q.inv_sqrt_bc2), "+f"(q.decay), "+f"(q.step_size), "+f"(q.lr),
                 "+f"(q.momentum));
  return q;
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

template <int S, int NC, int BN, Optimizer O, DType WT, DType ST, bool FD>
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
  // A slot: one unit (16 rows x kUC columns of a slice) of W (wt), then of
  // m and v (st); a 128-column row of an array of e-byte elements is e boxes
  // of 128 B. A tile has kUnits units: unit su is columns cs*kUC.. of slice
  // hb*4 + w with su = (hb*kCS + cs)*4 + w, so the producer loads every
  // warp's first unit first, and warp w consumes its units in order.
  constexpr int kUC = unit_cols<S, NC, BN, WT, ST>(), kCS = BN / kUC, kUnits = kSlices * kCS;
  constexpr int wboxes = kUC * (WT == DType::f32 ? 4 : 2) / 128,
                sboxes = kUC * (ST == DType::f32 ? 4 : 2) / 128;
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
        for (int su = 0; su < kUnits; ++su, ++q) {
          const unsigned slot = q % nslots, round = q / nslots;
          if (q >= static_cast<unsigned>(nslots)) {
            mbar_wait(&slot_empty[slot], (round & 1) ^ 1);
            slot_round[slot] = round;
          }
          std::uint8_t* base = ring + slot * slot_bytes;
          mbar_expect_tx(&slot_full[slot], bytes);
          const int hcs = su / 4, row = n0 + ((hcs / kCS) * 4 + su % 4) * kSliceRows,
                    col = h0 + (hcs % kCS) * kUC;
          if (ldW)
            for (int b = 0; b < wboxes; ++b)
              detail::tma_load_2d(base + b * kBox, &tmW, col + b * (kUC / wboxes), row,
                                  &slot_full[slot]);
          if (ldM)
            for (int b = 0; b < sboxes; ++b)
              detail::tma_load_2d(base + wboxes * kBox + b * kBox, &tmM, col + b * (kUC / sboxes), row,
                                  &slot_full[slot]);
          if (ldV)
            for (int b = 0; b < sboxes; ++b)
              detail::tma_load_2d(base + (wboxes + sboxes) * kBox + b * kBox, &tmV, col + b * (kUC / sboxes), row,
                                  &slot_full[slot]);
        }
      }
    }
    return;
  }

  // ------------------------------ math warpgroups (ping-pong) ------------------------------
  setmaxnreg_inc<C::kMathRegs>();
  const int c = wg - 1, warp = warp_id & 3;
  const SliceLane<WT> wlane(lane);
  const SliceLane<ST> slane(lane);
  const StepParams pe = FK_PP_PARAMREGS ? params_in_registers(p) : p;
  // Pairs updated per batch: 8 with 232 registers (two warpgroups), fewer
  // with 104 (four; FK_PP_BATCH4, default 2). Groups of 16 accumulator values per epilogue iteration:
  // FK_PP_UNROLL (default 1; more means fewer shifts of the accumulator but
  // a longer loop body, and a fully unrolled slice missed the instruction
  // cache in step 7a).
#ifndef FK_PP_BATCH4
#define FK_PP_BATCH4 2
#endif
#ifndef FK_PP_BATCH2
#define FK_PP_BATCH2 4
#endif
  // With the checked division the batch holds 4 pairs: with 8 its extra
  // live values spill (issue #20 step 12).
  constexpr int kBatch = NC == 2 ? (FD ? FK_PP_BATCH2 : 8) : FK_PP_BATCH4;
#ifndef FK_PP_UNROLL
#define FK_PP_UNROLL 1
#endif
  constexpr int kU = FK_PP_UNROLL < kUC / 32 ? FK_PP_UNROLL : kUC / 32;
  constexpr bool kDefer = kDeferBuild && FD && (ST == DType::bf16 || FK_PP_DEFER_F32) && NC == 2;
  // Lane 0: the slot of a slice whose TMA stores are issued but not yet
  // known to have read it (FK_PP_DEFER), else -1.
  int pending = -1;
  auto release_pending = [&] {
    detail::tma_store_wait_read();
    mbar_arrive(&slot_empty[pending]);
    pending = -1;
  };
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

    // Epilogue: slices `warp` (rows 16w.. of half 0, acc0), then `warp + 4`
    // (half 1, acc1, moved into acc0), each as kCS units of kUC columns
    // (the warp's u-th unit of the tile, u = hb*kCS + cs). acc0 is consumed
    // kU groups of 16 values per iteration of a rolled loop, the rest
    // shifted down, across the units of a slice.
#pragma unroll 1
    for (int hb = 0; hb < 2; ++hb) {
      const int sl = hb * 4 + warp;
      const int row0 = n0 + sl * kSliceRows;
      if (grad_dump) {  // the row-1 test reads the accumulator back (never in the benchmark)
        float* dump = grad_dump + static_cast<std::size_t>(row0) * s.H + h0;
        const int gid = lane >> 2, tid4 = lane & 3;
#pragma unroll
        for (int j = 0; j < kBN / 8; ++j)
#pragma unroll
          for (int half = 0; half < 2; ++half)
            *reinterpret_cast<float2*>(dump + static_cast<std::size_t>(gid + 8 * half) * s.H +
                                       8 * j + 2 * tid4) =
                make_float2(acc0[4 * j + 2 * half], acc0[4 * j + 2 * half + 1]);
      }
#pragma unroll 1
      for (int cs = 0; cs < kCS; ++cs) {
        const int u = hb * kCS + cs;
        const unsigned q = static_cast<unsigned>(k) * kUnits + u * 4 + warp;
        const unsigned slot = q % nslots, round = q / nslots;
        if (kDefer && lane == 0 && pending >= 0 &&
            !(slot_round[slot] >= round && detail::mbar_test(&slot_full[slot], round & 1)))
          release_pending();  // this unit is not there yet: never wait while holding a slot
        while (slot_round[slot] < round) {
        }
        mbar_wait(&slot_full[slot], round & 1);
        std::uint8_t* Wp = ring + slot * slot_bytes;
        std::uint8_t* Mp = Wp + wboxes * kBox;
        std::uint8_t* Vp = Mp + sboxes * kBox;
        const unsigned ws = detail::smem_u32(Wp), ms = ws + wboxes * kBox, vs = ms + sboxes * kBox;
        const int col0 = h0 + cs * kUC;
        GroupRaw<WT, ST> raw;  // a batch's W/m/v, loaded just before its update
#pragma unroll 1
        for (int j0 = 0; j0 < kUC / 8; j0 += 4 * kU) {  // 8-column blocks of the unit
#pragma unroll
          for (int uu = 0; uu < kU; ++uu) {
            float g[16];
#pragma unroll
            for (int i = 0; i < 16; ++i) g[i] = acc0[16 * uu + i];
            epilogue_group<O, WT, ST, kBatch, FD>(g, j0 + 4 * uu, pe, seeded, ws, ms, vs, wlane,
                                                  slane, raw);
          }
          if (kDefer && j0 == 0 && lane == 0 && pending >= 0) release_pending();
#pragma unroll
          for (int i = 0; i < kAcc - 16 * kU; ++i) acc0[i] = acc0[i + 16 * kU];
        }
        detail::fence_proxy_async();  // generic-proxy writes -> the TMA store reads them
        __syncwarp();
        if (lane == 0) {
          if (stW)
            for (int b = 0; b < wboxes; ++b)
              detail::tma_store_2d(&tmW, Wp + b * kBox, col0 + b * (kUC / wboxes), row0);
          for (int b = 0; b < sboxes; ++b)
            detail::tma_store_2d(&tmM, Mp + b * kBox, col0 + b * (kUC / sboxes), row0);
          if (stV)
            for (int b = 0; b < sboxes; ++b)
              detail::tma_store_2d(&tmV, Vp + b * kBox, col0 + b * (kUC / sboxes), row0);
          detail::tma_store_commit();
          if (kDefer && u < 2 * kCS - 1) {
            pending = static_cast<int>(slot);  // released during the next unit
          } else {
            detail::tma_store_wait_read();  // the slot may be refilled once the stores have read it
            if (pending >= 0) mbar_arrive(&slot_empty[pending]);
            pending = -1;
            mbar_arrive(&slot_empty[slot]);
          }
        }
        __syncwarp();
      }
#pragma unroll
      for (int i = 0; i < kAcc; ++i) acc0[i] = acc1[i];
    }
  }
  if (lane == 0) detail::tma_store_wait_all();
}

template <int S, int NC, int BN, Optimizer O, DType WT, DType ST, bool FD>
cudaError_t launch_pingpong(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                            void* W, void* m, void* v, float* dump, cudaStream_t stream) {
  using C = PCfg<S, NC, BN>;
  constexpr int kBN = BN;
  auto kernel = fused_wgmma_pingpong_kernel<S, NC, BN, O, WT, ST, FD>;
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
      kBox * static_cast<int>(unit_cols<S, NC, BN, WT, ST>() * (dtype_bytes(WT) + 2 * dtype_bytes(ST)) / 128);
  int nslots = C::kRing / slot_bytes;
  if (nslots > kMaxSlots) nslots = kMaxSlots;
  const int tiles = (s.N / kBM) * (s.H / kBN);
  kernel<<<tiles < sms ? tiles : sms, C::kThreads, C::kSmemBytes, stream>>>(ma, mb, mw, mm, mv, p, s,
                                                                         seeded, nslots, dump);
  return cudaGetLastError();
}

template <int S, int NC, int BN, Optimizer O, bool FD>
cudaError_t launch_types(const StepParams& p, const Shape& s, const bf16* dY, const bf16* X,
                         void* W, DType wt, void* m, void* v, DType st, float* dump,
                         cudaStream_t stream) {
  constexpr DType F = DType::f32, B = DType::bf16;
  if (wt == B && st == B) return launch_pingpong<S, NC, BN, O, B, B, FD>(p, s, dY, X, W, m, v, dump, stream);
  if (wt == B && st == F) return launch_pingpong<S, NC, BN, O, B, F, FD>(p, s, dY, X, W, m, v, dump, stream);
  if (wt == F && st == B) return launch_pingpong<S, NC, BN, O, F, B, FD>(p, s, dY, X, W, m, v, dump, stream);
  return launch_pingpong<S, NC, BN, O, F, F, FD>(p, s, dY, X, W, m, v, dump, stream);
}

}  // namespace

cudaError_t launch_fused_wgmma_pingpong(const TileConfig& cfg, const StepParams& p,
                                        const Shape& s, const bf16* dY, const bf16* X, void* W,
                                        DType wt, void* m, void* v, DType st, float* dump,
                                        cudaStream_t stream) {
  if (cfg.bm != kBM || cfg.bk != kBK) return cudaErrorInvalidValue;
  // 128 x 128 tiles: two math warpgroups; 128 x 64: four (half the
  // accumulator each, twice the warps in the epilogue).
#define FK_PP_DISPATCH(S, NC, BN, FD)                                                           \
  switch (p.opt) {                                                                             \
    case Optimizer::adamw:                                                                     \
      return launch_types<S, NC, BN, Optimizer::adamw, FD>(p, s, dY, X, W, wt, m, v, st, dump, \
                                                           stream);                            \
    case Optimizer::sgd_momentum:                                                              \
      return launch_types<S, NC, BN, Optimizer::sgd_momentum, false>(p, s, dY, X, W, wt, m, v, \
                                                                     st, dump, stream);        \
    case Optimizer::momentum_state:                                                            \
      return launch_types<S, NC, BN, Optimizer::momentum_state, false>(p, s, dY, X, W, wt, m,  \
                                                                       v, st, dump, stream);   \
  }
  // The stage-ring depths instantiated (tiling.cpp's wgmma_configs()): the
  // default FK_PP_STAGES for both tile widths, 4 for 128 x 128, 5 for 128 x 64;
  // the checked division (AdamW only: SGD has no division) for 128 x 128 at
  // the default depth and at 4.
  const int stages = cfg.stages ? cfg.stages : FK_PP_STAGES;
  if (cfg.checked_div && cfg.bn != 128) return cudaErrorInvalidValue;
  if (cfg.bn == 128 && stages == FK_PP_STAGES && !cfg.checked_div) FK_PP_DISPATCH(FK_PP_STAGES, 2, 128, false)
  if (cfg.bn == 128 && stages == FK_PP_STAGES && cfg.checked_div) FK_PP_DISPATCH(FK_PP_STAGES, 2, 128, true)
  if (cfg.bn == 64 && stages == FK_PP_STAGES) FK_PP_DISPATCH(FK_PP_STAGES, 4, 64, false)
#if FK_PP_STAGES != 4
  if (cfg.bn == 128 && stages == 4 && !cfg.checked_div) FK_PP_DISPATCH(4, 2, 128, false)
  if (cfg.bn == 128 && stages == 4 && cfg.checked_div) FK_PP_DISPATCH(4, 2, 128, true)
#endif
#if FK_PP_STAGES != 5
  if (cfg.bn == 64 && stages == 5) FK_PP_DISPATCH(5, 4, 64, false)
#endif
#undef FK_PP_DISPATCH
  return cudaErrorInvalidValue;
}

}  // namespace fusecert::kernels
