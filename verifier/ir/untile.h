// An scf.forall from tile-and-fuse (transform.structured.tile_using_forall
// and fuse_into_containing_op) read as the untiled ops it computes, before
// the module is translated (issue #16: the verdict is the same before and
// after tile-and-fuse into scf.forall).
//
// The rule, from the semantics of the ops: a forall with lower bounds 0,
// steps 1 and static trip counts, whose body holds only affine.apply and
// constants, tensor.extract_slice of values defined before the loop (or of
// its shared outputs), linalg ops on tensors and, in its terminator, one
// tensor.parallel_insert_slice per shared output. Every slice has unit
// strides, static sizes and offsets affine in the induction variables. Each
// linalg op is its untiled op restricted to one box of the iteration space:
// every operand is a window of a full value (a slice, or the tile an earlier
// op of the body computed) at the image of that box under the operand's
// indexing map (each map result a loop dimension), and every reduction loop
// is whole (K not split: the box of a contraction spans all of K, read in
// the same order). Each parallel_insert_slice writes a lifted tile at its
// own window, and the windows of the iterations partition the output (each
// dimension whole, or tiled by one induction variable with trip count ×
// tile size = the dimension). A read of a shared output reads the window
// that iteration writes (its initial value there). Then the forall's
// results are the untiled ops' results: the forall is replaced by those
// ops, built before it from the full values (an op equal to one already
// computed before the loop, such as the producer the fusion cloned, is that
// op). A forall that misses any condition is left as it is (its slice
// cannot be followed: inconclusive, never decided by resemblance).
#pragma once

namespace mlir {
class ModuleOp;
}

namespace fusecert::ir {

/// Replaces every scf.forall directly in a function body that meets the
/// rule above by its untiled ops; returns how many it replaced.
int untile_foralls(mlir::ModuleOp module);

}  // namespace fusecert::ir
