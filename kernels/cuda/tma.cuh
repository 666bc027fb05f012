// tma.cuh — the bulk tensor copy engine (TMA) and mbarriers, shared by the
// TMA-fed fused kernels: barrier init/arrive/wait, 2-D tensor loads into and
// stores out of shared memory, the grouped tile order of the persistent
// kernels, and the host-side tensor-map encoder (through the driver entry
// point, so no link against libcuda). sm_90 only where it says so.
#pragma once
#include <cuda.h>  // CUtensorMap and the cuTensorMapEncodeTiled signature (types only)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "fusecert/kernels/fp.h"

namespace fusecert::kernels::detail {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(std::uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(b)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(b)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* b, unsigned parity) {
  unsigned ok;
  asm volatile(
      "{\n.reg .pred P1;\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\n"
      "selp.u32 %0, 1, 0, P1;\n}\n"
      : "=r"(ok)
      : "r"(smem_u32(b)), "r"(parity)
      : "memory");
  return ok != 0;
}
/// Whether the phase of parity `parity` of barrier `b` has completed, without
/// waiting (try_wait may suspend the thread for a while first).
__device__ __forceinline__ bool mbar_test(std::uint64_t* b, unsigned parity) {
  unsigned ok;
  asm volatile(
      "{\n.reg .pred P1;\nmbarrier.test_wait.parity.shared::cta.b64 P1, [%1], %2;\n"
      "selp.u32 %0, 1, 0, P1;\n}\n"
      : "=r"(ok)
      : "r"(smem_u32(b)), "r"(parity)
      : "memory");
  return ok != 0;
}
/// Wait until the phase of parity `parity` of barrier `b` has completed.
/// Built with -DFK_MBAR_TIMEOUT (debugging a hang), a wait that lasts about
/// two seconds prints the barrier and traps instead of spinning forever.
__device__ __forceinline__ void mbar_wait(std::uint64_t* b, unsigned parity) {
#if defined(FK_MBAR_TIMEOUT)
  const long long t0 = clock64();
  while (!mbar_try_wait(b, parity))
    if (clock64() - t0 > 4000000000LL) {
      printf("fusecert: mbarrier wait timed out: %d threads/block, block %d thread %d, barrier at "
             "shared offset %u, parity %u\n",
             blockDim.x, blockIdx.x, threadIdx.x, smem_u32(b), parity);
      __trap();
    }
  return;
#endif
  asm volatile(
      "{\n.reg .pred P1;\nLAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" ::"r"(smem_u32(b)),
      "r"(parity)
      : "memory");
}
/// Box at element coordinates (x = column, y = row) of `map` into shared
/// memory at `dst`; completes `bytes` on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%2, %3}], [%4];\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(smem_u32(bar))
      : "memory");
}
/// Box of shared memory at `src` to (x, y) of `map` (bulk async-group of
/// this thread; commit with tma_store_commit).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int x,
                                             int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(x), "r"(y), "r"(smem_u32(src))
      : "memory");
}
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/// This thread's committed stores have read their shared memory.
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
/// This thread's committed stores are complete (written to global memory).
__device__ __forceinline__ void tma_store_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/// Tile t of a tiles_m x tiles_n grid in groups of 8 tile rows (L2 reuse of
/// the operands): its first row n0 and column h0.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int bm, int bn,
                                            int& n0, int& h0) {
  constexpr int kGroup = 8;
  const int in_group = kGroup * tiles_n;
  const int first_m = (t / in_group) * kGroup;
  const int gsize = min(tiles_m - first_m, kGroup);
  n0 = (first_m + (t % in_group) % gsize) * bm;
  h0 = ((t % in_group) / gsize) * bn;
}

using EncodeFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                              const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                              const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline EncodeFn encode_fn() {
  static EncodeFn fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return static_cast<EncodeFn>(nullptr);
    return reinterpret_cast<EncodeFn>(f);
  }();
  return fn;
}

/// A 2-D map of a row-major matrix [rows, cols] of `t` (bf16 or f32) whose rows
/// lie `ld` elements apart, boxes of box_rows x (128 bytes of columns), 128-byte
/// swizzle (16-byte chunk c of a box row r lands at chunk c ^ (r % 8)).
inline bool make_map_sw128(CUtensorMap* map, const void* base, DType t, int rows, int cols, int ld,
                           int box_rows) {
  const EncodeFn fn = encode_fn();
  if (!fn) return false;
  const cuuint64_t eb = dtype_bytes(t);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * eb};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(128 / eb), static_cast<cuuint32_t>(box_rows)},
                   estr[2] = {1, 1};
  return fn(map,
            t == DType::f32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
            const_cast<void*>(base), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace fusecert::kernels::detail
