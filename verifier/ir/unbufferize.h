// A bufferized function read as the tensor program it computes, before the
// module is translated (issue #16: the verdict is the same before and after
// --one-shot-bufferize). The analogue of untile.h for buffers.
//
// The rule, from the semantics of the ops (a reaching-definitions rewrite
// into value semantics): every buffer root (a memref function argument of
// static shape, a memref.alloc / alloca of static shape) has a current
// tensor value; an argument's is its incoming value (the argument becomes a
// tensor of the same shape), a fresh buffer's is a tensor.empty; distinct
// arguments are distinct buffers (one-shot-bufferize's own convention at
// function boundaries; the IR does not show it, so a function with two or
// more argument buffers, one written, is reported in BufferArgs and its
// candidates rest on `buffer_args = distinct`, shown by kNoAliasArgAttr
// or assumed: the P7.buffer_args guard). Reads and
// writes go through views of a root: the root itself, a memref.cast of a
// view (the same elements) or a memref.subview of the whole root (a read is
// tensor.extract_slice of the root's current value, a write is
// tensor.insert_slice into it). Then
//   - a linalg op on buffers is the same op on tensors: its inputs are the
//     current values of its input views, its inits those of its output
//     views (a tensor.empty where the payload never reads the init: every
//     element is written), and its results become the output views' new
//     values;
//   - memref.copy a -> b: b's view takes a's current value;
//   - memref.dealloc ends nothing the values need;
//   - an scf.for whose body writes buffers of the function carries their
//     values as iter_args (a memref iter_arg must be yielded as it came in:
//     the same buffer); the split-K loop stays a loop over K;
//   - func.return returns the current values of its buffers, and every
//     written argument buffer it does not return becomes one more result
//     (the updated W, m, v written in place are outputs of the step, as
//     the tensor form's results were).
// A function is left exactly as it is (today's path: a bufferized candidate,
// whose slice fusecert does not follow past one op) when anything is not
// understood: an op that takes or yields a buffer and is none of the above
// (memref.load / store, a reshape, a call, scf.if, bufferization casts), a
// view of a view that is not a cast, a dynamic shape, a function that is
// called in the module (its signature changes), or a read of an argument
// buffer after an op wrote it in place: that write-after-read is a property
// of the buffer program (P7.inplace_order), which the tensor reading hides.
// The reasons are kept (unbufferize_refusals) and name the op.
#pragma once

#include <mlir/IR/Location.h>

#include <map>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace mlir {
class ModuleOp;
class Location;
}  // namespace mlir

namespace fusecert::ir {

/// Why one function was left in its buffer form: the function, the op that
/// stopped the rewrite and the reason.
struct UnbufferizeRefusal {
  std::string func;
  std::string op;
  std::string reason;
  mlir::Location loc;  ///< the op's location (the front end's to_loc reads it)
  bool linalg_on_buffers = false;  ///< the function holds a linalg op on buffers
};

/// Rewrites every function of `module` that works on buffers and meets the
/// rule above into value semantics; returns how many it rewrote. A refused
/// function is unchanged, and why is appended to `refusals` when given.
/// A rewritten function with two or more argument buffers, one of them
/// written, is entered in `rests_on` under its name.
int functionalize_buffers(mlir::ModuleOp module, std::vector<UnbufferizeRefusal>* refusals = nullptr,
                          std::map<std::string, BufferArgs>* rests_on = nullptr);

}  // namespace fusecert::ir
