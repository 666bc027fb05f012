// fusecert's own small model of an MLIR module, the only thing the guards,
// the locality prover and the certificate writer see. The MLIR front end
// (frontend.cpp, built without RTTI against libMLIR.so) translates a parsed
// module into it; nothing here depends on MLIR headers, so the rest of the
// project keeps exceptions and RTTI.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/diag/diagnostic.h"
#include "verifier/ir/scalar_fn.h"

namespace fusecert::ir {

/// A source location: file:line:col as MLIR's FileLineColLoc gives it
/// (line/col 0 when the op has no file location). The diagnostics' own type.
using Loc = diag::Location;

struct AttrEntry;

/// An attribute value, read from MLIR's typed attributes (StringAttr,
/// BoolAttr, IntegerAttr, FloatAttr, UnitAttr, DictionaryAttr, ArrayAttr,
/// SymbolRefAttr) by their accessors. Kind, integer width and the index
/// type come from the typed attribute, never from its printed form; `text`
/// is for messages only (and a String's contents).
struct Attr {
  enum class Kind { String, Int, Float, Bool, Unit, Dict, Array, Symbol, Ints, Elements, Opaque, Other };
  Kind kind = Kind::Other;
  std::string text;   ///< string contents (String); otherwise MLIR's printed form, for messages only
  double num = 0;     ///< Int / Float / Bool value (f32 floats: shortest decimal that round-trips)
  int64_t ival = 0;   ///< Int: the exact value (when `fits`)
  bool index = false; ///< Int: of type `index` (IntegerAttr::getType().isIndex())
  bool fits = true;   ///< Int: the value fits in 64 signed bits (else `ival`/`num` are 0)
  std::string type;   ///< element type of Int/Float ("f32", "i64", "index"), empty otherwise
  std::vector<AttrEntry> items;  ///< Dict entries / Array elements (name "" in arrays)
  std::vector<int64_t> ints;     ///< Ints: a dense i64 array (`array<i64: 1, 0>`, DenseI64ArrayAttr)
  bool splat = false;            ///< Elements: every element equal (`num` holds it when int or float)
  /// Opaque: an attribute of a dialect MLIR has not registered
  /// (`#stablehlo.dot<...>`, OpaqueAttr): its dialect namespace and its
  /// data after the namespace (`dot<lhs_contracting_dimensions = [0], ...>`),
  /// read only through a grammar that fails closed (opaque_attrs.h).
  std::string dialect, data;
  const Attr* get(const std::string& key) const;
};

/// One Dict entry / Array element. A struct rather than std::pair: a pair of
/// the still-incomplete Attr inside Attr does not compile with clang +
/// libstdc++ (pair's conditional explicit needs Attr complete).
struct AttrEntry {
  std::string first;
  Attr second;
  AttrEntry(std::string k, Attr v) : first(std::move(k)), second(std::move(v)) {}
};

inline const Attr* Attr::get(const std::string& key) const {
  for (auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

/// A type: shaped types carry their shape (-1 for a dynamic dimension).
struct Type {
  std::string text;               ///< MLIR's printed form
  enum class Kind { Tensor, MemRef, Scalar, Other } kind = Kind::Other;
  std::vector<int64_t> shape;
  std::string elem;               ///< element type ("f32", "bf16"), or the scalar type
  bool same_shape(const Type& o) const { return kind != Kind::Scalar && shape == o.shape && !shape.empty(); }
};

/// An SSA value: an op result or a block argument of a function.
struct Value {
  int id = -1;
  Type type;
  int def_op = -1;     ///< defining op, -1 for a function argument
  int result_no = -1;  ///< result number when def_op >= 0
  int arg_no = -1;     ///< function argument number when def_op < 0
  Loc loc;
  std::vector<std::pair<int, int>> uses;  ///< (op id, operand number)
};

/// An affine expression as a tree (dims, symbols, constants, +, *, floordiv,
/// ceildiv, mod), translated one-to-one from mlir::AffineExpr.
struct AffineExpr {
  enum class Kind { Dim, Symbol, Const, Add, Mul, FloorDiv, CeilDiv, Mod } kind = Kind::Const;
  int64_t value = 0;  ///< dim / symbol position, or the constant
  std::shared_ptr<AffineExpr> lhs, rhs;
  static AffineExpr dim(int64_t d) { AffineExpr e; e.kind = Kind::Dim; e.value = d; return e; }
  static AffineExpr cst(int64_t c) { AffineExpr e; e.kind = Kind::Const; e.value = c; return e; }
  static AffineExpr bin(Kind k, AffineExpr a, AffineExpr b) {
    AffineExpr e; e.kind = k;
    e.lhs = std::make_shared<AffineExpr>(std::move(a));
    e.rhs = std::make_shared<AffineExpr>(std::move(b));
    return e;
  }
  /// Dims this expression reads.
  void dims(std::vector<int64_t>& out) const {
    if (kind == Kind::Dim) out.push_back(value);
    if (lhs) lhs->dims(out);
    if (rhs) rhs->dims(out);
  }
};

struct AffineMap {
  unsigned num_dims = 0, num_symbols = 0;
  std::vector<AffineExpr> results;
  std::string text;  ///< MLIR's printed form, e.g. "(d0, d1) -> (d0, d1)"
};

/// The scalar body of a linalg.generic as an expression DAG over its block
/// arguments, for recognising the optimizer by proof.
struct BodyNode {
  enum class Kind { Arg, Const, Op } kind = Kind::Op;
  std::string op;            ///< "arith.mulf", "math.sqrt", ... (Kind::Op): for messages only
  /// What the op computes, from its typed op (isa<arith::MulFOp>, ...);
  /// Unknown for an op fusecert has no scalar semantics for.
  ScalarFn fn = ScalarFn::Unknown;
  int arg = -1;              ///< block argument number (Kind::Arg)
  double value = 0;          ///< constant value, exact for f32/f64 literals (Kind::Const)
  std::vector<int> operands; ///< node indices
  std::string type;          ///< scalar type, "f32"
};
struct Body {
  unsigned num_args = 0;
  std::vector<BodyNode> nodes;
  std::vector<int> yields;                 ///< node index per linalg.yield operand
  std::vector<std::string> unsupported;    ///< op names the translation could not model
};

/// A window of a larger value, read from an op's typed offsets, sizes and
/// strides (OffsetSizeAndStrideOpInterface: tensor.extract_slice,
/// tensor.insert_slice, memref.subview). Per dimension of the larger value:
/// the offset, size and stride (-1 where an SSA value gives it; an
/// arith.constant one is folded), the SSA value of a dynamic offset (-1 where
/// static), and whether the window's type drops the dimension (rank-reducing:
/// taken at size 1).
struct Window {
  /// false: the result is the window of operand 0 (extract_slice, subview);
  /// true: operand 0 is written into the window of operand 1, the result is
  /// operand 1 updated (insert_slice).
  bool insert = false;
  std::vector<int64_t> offsets, sizes, strides;
  std::vector<int> offset_values;
  std::vector<bool> dropped;
};

struct Op {
  /// What an upstream op is, read by the front end from MLIR's typed ops
  /// (isa<linalg::GenericOp>, isa<arith::AddFOp>, ...), so that no guard
  /// compares an op name. Ops of a dialect table get their semantics from
  /// the table (dialect_table.h, spec_of), not from here.
  enum class Kind {
    Other,
    Generic,  ///< linalg.generic
    Add,      ///< an element-wise add: arith.addf, linalg.add
    Alloc,    ///< a fresh buffer or tensor: tensor.empty, memref.alloc / alloca, bufferization.alloc_tensor
    MatmulTransposeA,  ///< linalg.matmul_transpose_a (C += Aᵀ·B)
    BatchMatmulTransposeA,  ///< linalg.batch_matmul_transpose_a (C[b] += A[b]ᵀ·B[b]: one product per group)
    Matmul,            ///< linalg.matmul
    Transpose,         ///< linalg.transpose
    Dealloc,           ///< memref.dealloc
    Loop,              ///< scf.for: its results are the last iteration's iter_args (Op::iter_args)
    LoopYield,         ///< scf.yield terminating an scf.for body: operand i becomes iter_arg i
    Fill,              ///< linalg.fill
    Constant,          ///< arith.constant
    Gather,            ///< tensor.gather: the slices of its source at the indices of a runtime tensor
  };
  /// How an op that takes a buffer accesses it (the in-place order guard).
  enum class Access {
    Unknown,   ///< not known: treated as reading every operand; a shaped result may alias (fail closed)
    None,      ///< metadata only, or a write: not a read of the data (dealloc, dim, store, return, ...)
    View,      ///< its results alias its operand (subview, cast, reshape, to_tensor, ...)
    Operand0,  ///< reads its first operand (load, transfer_read, copy's source)
    Inputs,    ///< destination-passing style (linalg): reads its ins, writes its outs
  };
  int id = -1;
  std::string name;          ///< "linalg.generic", "tessera.adamw", ...
  Loc loc;
  bool registered = true;    ///< false for unregistered-dialect (generic form) ops
  int func = -1;             ///< enclosing function
  int parent = -1;           ///< the op whose region holds this one (a reduce's body), -1 at function level
  int index = -1;            ///< pre-order position within its function (program order)
  std::vector<int> operands, results;  ///< value ids
  std::vector<std::pair<std::string, Attr>> attrs;  ///< discardable + inherent, as printed
  // Destination-passing-style / linalg structure (num_inputs < 0: not DPS).
  int num_inputs = -1;
  std::vector<AffineMap> maps;               ///< linalg indexing maps (inputs then inits)
  std::vector<std::string> iterators;        ///< "parallel" | "reduction"
  std::optional<Body> body;                  ///< linalg.generic only
  /// A call (CallOpInterface: func.call, ...) to a function of this module:
  /// its index in Module::funcs; -1 otherwise (indirect, or external).
  int callee = -1;
  /// A call whose callee has no body here (a declaration, a symbol outside
  /// the module, an indirect call): what it computes is unknown, like an
  /// unknown op's.
  bool opaque_call = false;
  bool is_return = false;                    ///< a function's terminator (func.return)
  /// Kind::Loop: the body's iteration arguments (value ids), one per result.
  std::vector<int> iter_args;
  /// A slice op's window (see Window); absent for every other op.
  std::optional<Window> window;
  Kind kind = Kind::Other;
  /// What a scalar upstream op computes, from its typed op (isa<arith::AddFOp>,
  /// ...): a fused op's epilogue function is such ops. Unknown otherwise;
  /// a table op's is its entry's `computes:` (OpSpec::computes).
  ScalarFn fn = ScalarFn::Unknown;
  Access access = Access::Unknown;
  /// Keys the attribute boundary refused (ir::mark_refused: a value of a
  /// kind the op's table entry does not give the key, or a key it does not
  /// name). A refused attribute never feeds a guard: attr() does not see it.
  std::vector<std::string> refused;

  const Attr* attr(const std::string& key) const {
    if (is_refused(key)) return nullptr;
    for (auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
  bool is_refused(const std::string& key) const {
    for (const auto& k : refused)
      if (k == key) return true;
    return false;
  }
  std::string dialect() const { return name.substr(0, name.find('.')); }
};

/// What reading a bufferized function as the tensor program it computes
/// (unbufferize.h) rests on when it has two or more memref arguments and
/// writes one: that no two of them share an element (`buffer_args =
/// distinct`), which the IR does not show unless every written one carries
/// kNoAliasArgAttr.
struct BufferArgs {
  unsigned count = 0;             ///< memref arguments
  std::vector<unsigned> written;  ///< the argument numbers an op writes
  bool noalias = false;           ///< every written one carries kNoAliasArgAttr: the IR shows the fact
};
/// The argument attribute that states, as LLVM's `noalias` does (the LLVM
/// lowering passes it on), that the elements an argument's buffer has
/// modified are accessed through no other argument during the call.
inline constexpr const char* kNoAliasArgAttr = "llvm.noalias";

struct Func {
  std::string name;
  Loc loc;
  bool external = false;  ///< a declaration without a body
  /// Public (MLIR's default symbol visibility): callable from outside the
  /// module, so what it returns leaves the module.
  bool is_public = true;
  std::vector<int> args;  ///< value ids
  std::vector<int> ops;   ///< op ids in program order (pre-order, nested regions included)
  /// Read from buffers as a tensor program whose reading rests on distinct
  /// buffer arguments (BufferArgs); absent for every other function.
  std::optional<BufferArgs> buffer_args;
};

/// A translated module. Ids index the vectors.
struct Module {
  std::string file;
  std::vector<Op> ops;
  std::vector<Value> values;
  std::vector<Func> funcs;
};

struct LoadResult {
  std::optional<Module> module;  ///< absent when parsing failed
  std::vector<diag::Diagnostic> diags;  ///< parse / translation diagnostics (rule input.*)
};

/// Largest input the front end accepts (bytes); larger inputs are refused
/// with a diagnostic rather than risking the memory budget.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;

/// Parses `text` (named `filename` in locations) with MLIR 19's parser —
/// every upstream dialect registered (verifier/ir/dialects.h), unregistered
/// dialects allowed for generic-form custom ops (tessera.*) — and
/// translates the module. Never throws; parse errors come back as diags.
LoadResult parse_mlir(const std::string& text, const std::string& filename);

}  // namespace fusecert::ir
