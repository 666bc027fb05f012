// MLIR 19 front end: parse with MLIR's own parser and translate the module
// into fusecert's model (model.h). Built with -fno-rtti like libMLIR.so; it
// throws nothing (errors become diag::Diagnostic entries, rules input.*).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "verifier/ir/dialects.h"
#include "verifier/ir/input_bounds.h"
#include "verifier/ir/model.h"
#include "verifier/ir/unbufferize.h"
#include "verifier/ir/untile.h"

namespace fusecert::ir {
namespace {

template <class T>
std::string print(const T& x) {
  std::string s;
  llvm::raw_string_ostream os(s);
  x.print(os);
  os.flush();
  return s;
}

Loc to_loc(mlir::Location l) {
  Loc out;
  if (auto f = l->findInstanceOf<mlir::FileLineColLoc>()) {
    out.file = f.getFilename().str();
    out.line = f.getLine();
    out.col = f.getColumn();
  }
  return out;
}

/// Shortest decimal that round-trips to the same binary32 value: the value a
/// person wrote ("0.9"), so derived constants computed in double match what a
/// compiler folds.
double f32_literal(float f) {
  char buf[64];
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return std::strtod(buf, nullptr);
}

/// A scalar type's name from the typed accessors (isF32(), isBF16(), ...).
/// The printed form is kept only for types fusecert has no semantics for
/// (f8 variants, complex, ...): it names them in messages and never equals
/// a dtype a guard accepts.
std::string elem_name(mlir::Type t) {
  if (t.isF64()) return "f64";
  if (t.isF32()) return "f32";
  if (t.isBF16()) return "bf16";
  if (t.isF16()) return "f16";
  if (t.isIndex()) return "index";
  if (auto it = mlir::dyn_cast<mlir::IntegerType>(t))
    return std::string(it.isSigned() ? "si" : it.isUnsigned() ? "ui" : "i") + std::to_string(it.getWidth());
  return print(t);
}

Type to_type(mlir::Type t) {
  Type out;
  out.text = print(t);
  if (auto st = mlir::dyn_cast<mlir::ShapedType>(t)) {
    out.kind = mlir::isa<mlir::MemRefType>(t) ? Type::Kind::MemRef
               : mlir::isa<mlir::TensorType>(t) ? Type::Kind::Tensor
                                                : Type::Kind::Other;
    out.elem = elem_name(st.getElementType());
    if (st.hasRank())
      for (int64_t d : st.getShape()) out.shape.push_back(mlir::ShapedType::isDynamic(d) ? -1 : d);
  } else if (t.isIntOrIndexOrFloat()) {
    out.kind = Type::Kind::Scalar;
    out.elem = elem_name(t);
  }
  return out;
}

Attr to_attr(mlir::Attribute a) {
  Attr out;
  if (auto s = mlir::dyn_cast<mlir::StringAttr>(a)) {
    out.kind = Attr::Kind::String;
    out.text = s.getValue().str();
  } else if (auto b = mlir::dyn_cast<mlir::BoolAttr>(a)) {
    out.kind = Attr::Kind::Bool;
    out.num = b.getValue() ? 1 : 0;
  } else if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(a)) {
    out.kind = Attr::Kind::Int;
    out.index = i.getType().isIndex();
    out.type = elem_name(i.getType());
    // getSExtValue() is undefined past 64 bits (an i128 literal): such a
    // value is an integer fusecert cannot read, never a truncated one.
    const llvm::APInt& v = i.getValue();
    out.fits = v.getSignificantBits() <= 64;
    if (out.fits) {
      out.ival = v.getSExtValue();
      out.num = static_cast<double>(out.ival);
    }
  } else if (auto f = mlir::dyn_cast<mlir::FloatAttr>(a)) {
    out.kind = Attr::Kind::Float;
    out.type = elem_name(f.getType());
    out.num = f.getType().isF32() ? f32_literal(f.getValue().convertToFloat()) : f.getValueAsDouble();
  } else if (mlir::isa<mlir::UnitAttr>(a)) {
    out.kind = Attr::Kind::Unit;
  } else if (auto d = mlir::dyn_cast<mlir::DictionaryAttr>(a)) {
    out.kind = Attr::Kind::Dict;
    for (auto nv : d) out.items.emplace_back(nv.getName().str(), to_attr(nv.getValue()));
  } else if (mlir::isa<mlir::SymbolRefAttr>(a)) {
    out.kind = Attr::Kind::Symbol;
  } else if (auto arr = mlir::dyn_cast<mlir::ArrayAttr>(a)) {
    out.kind = Attr::Kind::Array;
    for (auto e : arr) out.items.emplace_back("", to_attr(e));
  } else if (auto ints = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(a)) {
    out.kind = Attr::Kind::Ints;
    for (int64_t v : ints.asArrayRef()) out.ints.push_back(v);
  } else if (auto el = mlir::dyn_cast<mlir::DenseElementsAttr>(a)) {
    out.kind = Attr::Kind::Elements;
    out.type = elem_name(el.getElementType());
    out.splat = el.isSplat();
    if (out.splat) {
      if (auto ft = mlir::dyn_cast<mlir::FloatType>(el.getElementType())) {
        (void)ft;
        llvm::APFloat v = el.getSplatValue<llvm::APFloat>();
        bool loses = false;
        v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &loses);
        out.num = v.convertToDouble();
      } else if (mlir::isa<mlir::IntegerType>(el.getElementType())) {
        const llvm::APInt v = el.getSplatValue<llvm::APInt>();
        out.fits = v.getSignificantBits() <= 64;
        if (out.fits) out.num = static_cast<double>(out.ival = v.getSExtValue());
      }
    }
  } else if (auto op = mlir::dyn_cast<mlir::OpaqueAttr>(a)) {
    out.kind = Attr::Kind::Opaque;
    out.dialect = op.getDialectNamespace().str();
    out.data = op.getAttrData().str();
  }
  if (out.kind != Attr::Kind::String) out.text = print(a);
  return out;
}

AffineExpr to_expr(mlir::AffineExpr e) {
  using K = AffineExpr::Kind;
  if (auto d = mlir::dyn_cast<mlir::AffineDimExpr>(e)) return AffineExpr::dim(d.getPosition());
  if (auto c = mlir::dyn_cast<mlir::AffineConstantExpr>(e)) return AffineExpr::cst(c.getValue());
  if (auto s = mlir::dyn_cast<mlir::AffineSymbolExpr>(e)) {
    AffineExpr x;
    x.kind = K::Symbol;
    x.value = s.getPosition();
    return x;
  }
  auto b = mlir::cast<mlir::AffineBinaryOpExpr>(e);
  K k = K::Add;
  switch (e.getKind()) {
    case mlir::AffineExprKind::Add: k = K::Add; break;
    case mlir::AffineExprKind::Mul: k = K::Mul; break;
    case mlir::AffineExprKind::FloorDiv: k = K::FloorDiv; break;
    case mlir::AffineExprKind::CeilDiv: k = K::CeilDiv; break;
    case mlir::AffineExprKind::Mod: k = K::Mod; break;
    default: break;
  }
  return AffineExpr::bin(k, to_expr(b.getLHS()), to_expr(b.getRHS()));
}

AffineMap to_map(mlir::AffineMap m) {
  AffineMap out;
  out.num_dims = m.getNumDims();
  out.num_symbols = m.getNumSymbols();
  for (auto r : m.getResults()) out.results.push_back(to_expr(r));
  out.text = print(m);
  return out;
}

/// What a scalar op computes, from its typed op: never from its name, so an
/// op of another dialect named like "arith.addf" is Unknown. Only the float
/// ops fusecert models are mapped (integer ops stay Unknown: a float add's
/// semantics must not be given to arith.addi).
ScalarFn scalar_fn_of(mlir::Operation* op) {
  namespace ar = mlir::arith;
  namespace ma = mlir::math;
  if (mlir::isa<ar::AddFOp>(op)) return ScalarFn::Add;
  if (mlir::isa<ar::SubFOp>(op)) return ScalarFn::Sub;
  if (mlir::isa<ar::MulFOp>(op)) return ScalarFn::Mul;
  if (mlir::isa<ar::DivFOp>(op)) return ScalarFn::Div;
  if (mlir::isa<ar::NegFOp>(op)) return ScalarFn::Neg;
  if (mlir::isa<ar::MaximumFOp>(op)) return ScalarFn::Max;
  if (mlir::isa<ar::MinimumFOp>(op)) return ScalarFn::Min;
  if (mlir::isa<ar::MaxNumFOp>(op)) return ScalarFn::MaxNum;
  if (mlir::isa<ar::MinNumFOp>(op)) return ScalarFn::MinNum;
  if (mlir::isa<ma::SqrtOp>(op)) return ScalarFn::Sqrt;
  if (mlir::isa<ma::RsqrtOp>(op)) return ScalarFn::Rsqrt;
  if (mlir::isa<ar::ExtFOp, ar::TruncFOp>(op)) return ScalarFn::Convert;
  return ScalarFn::Unknown;
}

struct Translator {
  Module mod;
  std::vector<std::pair<int, std::string>> calls;  // (op id, callee symbol), resolved after the walk
  std::unordered_map<const void*, int> value_ids;  // mlir::Value opaque pointer → id

  int value_id(mlir::Value v) {
    auto it = value_ids.find(v.getAsOpaquePointer());
    if (it != value_ids.end()) return it->second;
    Value nv;
    nv.id = static_cast<int>(mod.values.size());
    nv.type = to_type(v.getType());
    nv.loc = to_loc(v.getLoc());
    if (auto r = mlir::dyn_cast<mlir::OpResult>(v)) nv.result_no = static_cast<int>(r.getResultNumber());
    if (auto a = mlir::dyn_cast<mlir::BlockArgument>(v)) nv.arg_no = static_cast<int>(a.getArgNumber());
    const int id = nv.id;
    mod.values.push_back(std::move(nv));
    value_ids.emplace(v.getAsOpaquePointer(), id);
    return id;
  }

  Body to_body(mlir::Block& block) {
    Body b;
    b.num_args = block.getNumArguments();
    std::map<const void*, int> node_of;
    for (auto arg : block.getArguments()) {
      BodyNode n;
      n.kind = BodyNode::Kind::Arg;
      n.arg = static_cast<int>(arg.getArgNumber());
      n.type = print(arg.getType());
      node_of[arg.getAsOpaquePointer()] = static_cast<int>(b.nodes.size());
      b.nodes.push_back(n);
    }
    for (mlir::Operation& op : block) {
      std::string name = op.getName().getStringRef().str();
      if (mlir::isa<mlir::linalg::YieldOp>(op)) {
        for (auto v : op.getOperands()) {
          auto it = node_of.find(v.getAsOpaquePointer());
          b.yields.push_back(it == node_of.end() ? -1 : it->second);
        }
        continue;
      }
      BodyNode n;
      if (auto c = mlir::dyn_cast<mlir::arith::ConstantOp>(op)) {
        if (auto f = mlir::dyn_cast<mlir::FloatAttr>(c.getValue())) {
          n.kind = BodyNode::Kind::Const;
          // The exact value the body computes with (binary32 stays exact in double).
          n.value = f.getType().isF32() ? static_cast<double>(f.getValue().convertToFloat())
                                        : f.getValueAsDouble();
        } else {
          b.unsupported.push_back(name + " (non-float constant)");
          n.op = name;
        }
      } else {
        n.kind = BodyNode::Kind::Op;
        n.op = name;
        n.fn = scalar_fn_of(&op);
        for (auto v : op.getOperands()) {
          auto it = node_of.find(v.getAsOpaquePointer());
          // A scalar constant defined outside the region and captured (what
          // --canonicalize, --cse and the linalg rewrites do with a body's
          // constants: hoisted) is the constant it is, read from its typed
          // FloatAttr as one defined inside. Any other captured value (a
          // function argument, a tensor.extract, a load) may be anything:
          // unsupported, and the readers of the body say so.
          if (it == node_of.end())
            if (auto c = v.getDefiningOp<mlir::arith::ConstantOp>())
              if (auto f = mlir::dyn_cast<mlir::FloatAttr>(c.getValue())) {
                BodyNode k;
                k.kind = BodyNode::Kind::Const;
                k.value = f.getType().isF32() ? static_cast<double>(f.getValue().convertToFloat())
                                              : f.getValueAsDouble();
                k.type = print(v.getType());
                it = node_of.emplace(v.getAsOpaquePointer(), static_cast<int>(b.nodes.size())).first;
                b.nodes.push_back(k);
              }
          n.operands.push_back(it == node_of.end() ? -1 : it->second);
          if (it == node_of.end()) b.unsupported.push_back(name + " (an operand defined outside the body that is not a float constant)");
        }
        // The scalar ops the body translation models, by their typed ops.
        const bool ok = mlir::isa<mlir::arith::AddFOp, mlir::arith::SubFOp, mlir::arith::MulFOp, mlir::arith::DivFOp,
                                  mlir::arith::NegFOp, mlir::math::SqrtOp, mlir::math::RsqrtOp, mlir::arith::ExtFOp,
                                  mlir::arith::TruncFOp>(&op);
        if (!ok || op.getNumResults() != 1) b.unsupported.push_back(name);
      }
      if (op.getNumResults() >= 1) {
        n.type = print(op.getResult(0).getType());
        node_of[op.getResult(0).getAsOpaquePointer()] = static_cast<int>(b.nodes.size());
      }
      b.nodes.push_back(n);
    }
    return b;
  }

  static Op::Kind kind_of(mlir::Operation* op) {
    if (mlir::isa<mlir::linalg::GenericOp>(op)) return Op::Kind::Generic;
    if (mlir::isa<mlir::arith::AddFOp, mlir::linalg::AddOp>(op)) return Op::Kind::Add;
    if (mlir::isa<mlir::tensor::EmptyOp, mlir::memref::AllocOp, mlir::memref::AllocaOp,
                  mlir::bufferization::AllocTensorOp>(op))
      return Op::Kind::Alloc;
    if (mlir::isa<mlir::linalg::MatmulTransposeAOp>(op)) return Op::Kind::MatmulTransposeA;
    if (mlir::isa<mlir::linalg::BatchMatmulTransposeAOp>(op)) return Op::Kind::BatchMatmulTransposeA;
    if (mlir::isa<mlir::tensor::GatherOp>(op)) return Op::Kind::Gather;
    if (mlir::isa<mlir::linalg::MatmulOp>(op)) return Op::Kind::Matmul;
    if (mlir::isa<mlir::linalg::TransposeOp>(op)) return Op::Kind::Transpose;
    if (mlir::isa<mlir::memref::DeallocOp>(op)) return Op::Kind::Dealloc;
    if (mlir::isa<mlir::scf::ForOp>(op)) return Op::Kind::Loop;
    if (mlir::isa<mlir::scf::YieldOp>(op) && mlir::isa_and_present<mlir::scf::ForOp>(op->getParentOp()))
      return Op::Kind::LoopYield;
    if (mlir::isa<mlir::linalg::FillOp>(op)) return Op::Kind::Fill;
    if (mlir::isa<mlir::arith::ConstantOp>(op)) return Op::Kind::Constant;
    return Op::Kind::Other;
  }

  /// The window a slice op reads or writes, from its typed offsets, sizes and
  /// strides (an arith.constant operand folded), and the dimensions its
  /// smaller type drops.
  std::optional<Window> window_of(mlir::Operation* op) {
    llvm::SmallBitVector dropped;
    if (auto e = mlir::dyn_cast<mlir::tensor::ExtractSliceOp>(op)) dropped = e.getDroppedDims();
    else if (auto i = mlir::dyn_cast<mlir::tensor::InsertSliceOp>(op)) dropped = i.getDroppedDims();
    else if (auto v = mlir::dyn_cast<mlir::memref::SubViewOp>(op)) dropped = v.getDroppedDims();
    else return std::nullopt;
    auto osi = mlir::cast<mlir::OffsetSizeAndStrideOpInterface>(op);
    Window w;
    w.insert = mlir::isa<mlir::tensor::InsertSliceOp>(op);
    auto fold = [](mlir::OpFoldResult r) -> int64_t {
      auto c = mlir::getConstantIntValue(r);
      return c ? *c : -1;
    };
    for (auto r : osi.getMixedOffsets()) {
      const int64_t c = fold(r);
      w.offsets.push_back(c);
      auto v = mlir::dyn_cast_if_present<mlir::Value>(r);
      w.offset_values.push_back(c < 0 && v ? value_id(v) : -1);
    }
    for (auto r : osi.getMixedSizes()) w.sizes.push_back(fold(r));
    for (auto r : osi.getMixedStrides()) w.strides.push_back(fold(r));
    for (size_t d = 0; d < w.offsets.size(); ++d) w.dropped.push_back(d < dropped.size() && dropped.test(d));
    return w;
  }

  static Op::Access access_of(mlir::Operation* op) {
    namespace mr = mlir::memref;
    if (mlir::isa<mr::SubViewOp, mr::CastOp, mr::ReinterpretCastOp, mr::ExpandShapeOp, mr::CollapseShapeOp,
                  mr::TransposeOp, mr::ViewOp, mr::ReshapeOp, mr::MemorySpaceCastOp, mr::ExtractStridedMetadataOp,
                  mr::AssumeAlignmentOp, mlir::bufferization::ToTensorOp>(op))
      return Op::Access::View;
    if (mlir::isa<mr::DeallocOp, mr::DimOp, mr::RankOp, mlir::func::ReturnOp, mr::StoreOp,
                  mlir::affine::AffineStoreOp, mlir::vector::StoreOp, mlir::vector::TransferWriteOp,
                  mr::ExtractAlignedPointerAsIndexOp>(op))
      return Op::Access::None;
    if (mlir::isa<mr::LoadOp, mlir::affine::AffineLoadOp, mlir::vector::LoadOp, mlir::vector::TransferReadOp,
                  mr::CopyOp>(op))
      return Op::Access::Operand0;
    // Destination-passing style of the linalg dialect (named ops, generic,
    // and the DPS ops that are not LinalgOps, such as linalg.softmax).
    if (mlir::isa_and_present<mlir::linalg::LinalgDialect>(op->getDialect()) &&
        mlir::isa<mlir::DestinationStyleOpInterface>(op))
      return Op::Access::Inputs;
    return Op::Access::Unknown;
  }

  void visit(mlir::Operation* op, int func_id, int parent = -1) {
    Op o;
    o.id = static_cast<int>(mod.ops.size());
    o.name = op->getName().getStringRef().str();
    o.loc = to_loc(op->getLoc());
    o.registered = op->isRegistered();
    o.func = func_id;
    o.parent = parent;
    o.index = static_cast<int>(mod.funcs[func_id].ops.size());
    for (auto nv : op->getAttrs()) {
      // Linalg's structural attributes are read through the interface below.
      auto name = nv.getName().strref();
      if (name == "indexing_maps" || name == "iterator_types" || name == "operandSegmentSizes") continue;
      o.attrs.emplace_back(name.str(), to_attr(nv.getValue()));
    }
    // An unregistered op's properties (`"stablehlo.add"(...) <{...}>`, the
    // generic form JAX prints) are one dictionary MLIR keeps apart from the
    // attribute dictionary: their keys are the op's attributes all the same.
    if (!op->isRegistered())
      if (auto props = mlir::dyn_cast_if_present<mlir::DictionaryAttr>(op->getPropertiesAsAttribute()))
        for (auto nv : props) o.attrs.emplace_back(nv.getName().str(), to_attr(nv.getValue()));
    if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
      o.num_inputs = static_cast<int>(l.getNumDpsInputs());
      for (auto m : l.getIndexingMapsArray()) o.maps.push_back(to_map(m));
      for (auto it : l.getIteratorTypesArray())
        o.iterators.push_back(it == mlir::utils::IteratorType::parallel ? "parallel" : "reduction");
    } else if (auto d = mlir::dyn_cast<mlir::DestinationStyleOpInterface>(op)) {
      o.num_inputs = static_cast<int>(d.getNumDpsInputs());
    }
    if (auto call = mlir::dyn_cast<mlir::CallOpInterface>(op)) {
      o.opaque_call = true;  // until resolved to a function with a body
      if (auto sym = mlir::dyn_cast_if_present<mlir::SymbolRefAttr>(call.getCallableForCallee()))
        calls.emplace_back(o.id, sym.getLeafReference().str());
    }
    o.is_return = mlir::isa<mlir::func::ReturnOp>(op);
    o.kind = kind_of(op);
    o.fn = scalar_fn_of(op);
    o.access = access_of(op);
    const int oid = o.id;
    mod.ops.push_back(std::move(o));
    mod.funcs[func_id].ops.push_back(oid);
    std::vector<int> operands, results;
    for (auto& use : op->getOpOperands()) {
      int v = value_id(use.get());
      operands.push_back(v);
      mod.values[v].uses.emplace_back(oid, static_cast<int>(use.getOperandNumber()));
    }
    for (auto r : op->getResults()) {
      int v = value_id(r);
      mod.values[v].def_op = oid;
      results.push_back(v);
    }
    mod.ops[oid].operands = std::move(operands);
    mod.ops[oid].results = std::move(results);
    if (auto loop = mlir::dyn_cast<mlir::scf::ForOp>(op))
      for (auto a : loop.getRegionIterArgs()) mod.ops[oid].iter_args.push_back(value_id(a));
    mod.ops[oid].window = window_of(op);
    if (mlir::isa<mlir::linalg::GenericOp>(op) && op->getNumRegions() == 1 && !op->getRegion(0).empty()) {
      mod.ops[oid].body = to_body(op->getRegion(0).front());
      return;  // the body is captured as an expression DAG, not as ops
    }
    if (mlir::isa<mlir::linalg::LinalgOp>(op)) return;  // named ops: implicit scalar bodies
    for (auto& region : op->getRegions())
      for (auto& block : region)
        for (auto& inner : block) visit(&inner, func_id, oid);
  }
};

}  // namespace

LoadResult parse_mlir(const std::string& text, const std::string& filename) {
  LoadResult res;
  if (auto d = check_input_bounds(text, filename)) {
    d->rule = "input.bounds";
    res.diags.push_back(std::move(*d));
    return res;
  }
  // Every upstream dialect is registered; the parser loads the ones the
  // module names (loading all of them would cost each split ~50 dialects).
  static const mlir::DialectRegistry& registry = *[] {
    auto* r = new mlir::DialectRegistry;
    register_dialects(*r);
    return r;
  }();
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.allowUnregisteredDialects(true);
  ctx.getOrLoadDialect<mlir::func::FuncDialect>();
  // MLIR's diagnostics keep their severity and their notes; the rule says
  // which phase refused the module (parse or verify).
  const char* phase = "input.parse";
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic& d) {
    const diag::Severity sev = d.getSeverity() == mlir::DiagnosticSeverity::Error     ? diag::Severity::Error
                               : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? diag::Severity::Warning
                               : d.getSeverity() == mlir::DiagnosticSeverity::Remark  ? diag::Severity::Remark
                                                                                      : diag::Severity::Note;
    diag::Diagnostic out = diag::make(sev, to_loc(d.getLocation()), phase, d.str());
    for (auto& n : d.getNotes()) out.note(to_loc(n.getLocation()), n.str());
    res.diags.push_back(std::move(out));
    return mlir::success();
  });
  // Verification runs separately below, so its failures are input.verify.
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, config, filename);
  if (!module) {
    if (res.diags.empty()) res.diags.push_back(diag::error(Loc{filename, 0, 0}, "input.parse", "could not parse the module"));
    return res;
  }
  const size_t parse_diags = res.diags.size();
  phase = "input.verify";
  if (mlir::failed(mlir::verify(*module))) {
    if (res.diags.size() == parse_diags)
      res.diags.push_back(diag::error(Loc{filename, 0, 0}, "input.verify", "the module does not verify"));
    return res;
  }
  // A tile-and-fuse scf.forall is read as the untiled ops it computes
  // (untile.h); the rewrite keeps the module valid, checked again.
  if (untile_foralls(*module) > 0 && mlir::failed(mlir::verify(*module))) {
    res.diags.push_back(diag::error(Loc{filename, 0, 0}, "input.verify", "the module does not verify after reading its scf.forall tiles as untiled ops"));
    return res;
  }
  // A bufferized function is read as the tensor program it computes
  // (unbufferize.h); one the rewrite refuses stays in its buffer form, and a
  // remark names the op that stopped it when the function holds a linalg op
  // on buffers (a bufferized candidate's function).
  std::map<std::string, BufferArgs> rests_on;  // what a rewritten function's reading rests on
  {
    std::vector<UnbufferizeRefusal> refused;
    if (functionalize_buffers(*module, &refused, &rests_on) > 0 && mlir::failed(mlir::verify(*module))) {
      res.diags.push_back(diag::error(Loc{filename, 0, 0}, "input.verify", "the module does not verify after reading its bufferized functions as tensor programs"));
      return res;
    }
    for (const auto& r : refused) {
      if (!r.linalg_on_buffers) continue;
      Loc at = to_loc(r.loc);
      if (at.file.empty()) at.file = filename;
      res.diags.push_back(diag::make(diag::Severity::Remark, at, "input.buffer_form",
                                     "@" + r.func + " is read in its buffer form, not as the tensor program it computes: " +
                                         r.op + ": " + r.reason));
    }
  }
  Translator t;
  t.mod.file = filename;
  {
    size_t nops = 0;
    module->walk([&](mlir::Operation*) { ++nops; });
    t.mod.ops.reserve(nops);
    t.mod.values.reserve(2 * nops);
    t.value_ids.reserve(2 * nops);
  }
  module->walk([&](mlir::func::FuncOp f) {
    Func fn;
    fn.name = f.getSymName().str();
    fn.loc = to_loc(f.getLoc());
    fn.is_public = f.isPublic();
    if (auto it = rests_on.find(fn.name); it != rests_on.end()) fn.buffer_args = it->second;
    int id = static_cast<int>(t.mod.funcs.size());
    t.mod.funcs.push_back(fn);
    if (f.isExternal()) {
      t.mod.funcs[id].external = true;
      return;
    }
    for (auto a : f.getArguments()) t.mod.funcs[id].args.push_back(t.value_id(a));
    for (auto& op : f.getBody().front()) t.visit(&op, id);
  });
  for (const auto& [op, name] : t.calls)
    for (size_t f = 0; f < t.mod.funcs.size(); ++f)
      if (t.mod.funcs[f].name == name && !t.mod.funcs[f].external) {
        t.mod.ops[op].callee = static_cast<int>(f);
        t.mod.ops[op].opaque_call = false;
      }
  res.module = std::move(t.mod);
  return res;
}

}  // namespace fusecert::ir
