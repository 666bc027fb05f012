// Reading an scf.forall from tile-and-fuse as the untiled ops it computes
// (issue #16: the verdict is the same before and after tile-and-fuse into
// scf.forall). See untile.h for the rule; everything here is decided from
// MLIR's typed ops (offsets, sizes, strides, indexing maps, loop bounds),
// never from names or printed text, and a forall that does not meet every
// condition is left exactly as it is.
#include "verifier/ir/untile.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"

namespace fusecert::ir {
namespace {

/// c + Σ k[r]·iv_r: a tile offset as an affine function of the loop's
/// induction variables.
struct Lin {
  int64_t c = 0;
  std::map<unsigned, int64_t> k;  // no zero coefficients
  bool operator==(const Lin& o) const { return c == o.c && k == o.k; }
  bool constant() const { return k.empty(); }
};

Lin add(Lin a, const Lin& b) {
  a.c += b.c;
  for (auto [r, v] : b.k) {
    a.k[r] += v;
    if (a.k[r] == 0) a.k.erase(r);
  }
  return a;
}

Lin scale(Lin a, int64_t s) {
  Lin out;
  if (s == 0) return out;
  out.c = a.c * s;
  for (auto [r, v] : a.k) out.k[r] = v * s;
  return out;
}

/// A window of a value of the enclosing function: the tile of `full` at
/// offsets `off` (per dimension) with static sizes `size`, stride 1.
struct Tile {
  mlir::Value full;
  std::vector<Lin> off;
  std::vector<int64_t> size;
};

class Untiler {
 public:
  explicit Untiler(mlir::scf::ForallOp f) : forall_(f) {}

  /// Replaces the forall by the untiled ops when every condition holds.
  bool run() {
    if (!bounds()) return false;
    mlir::OpBuilder b(forall_);
    std::vector<mlir::Operation*> created;
    auto fail = [&]() {
      for (auto it = created.rbegin(); it != created.rend(); ++it) (*it)->erase();
      return false;
    };
    mlir::Block& body = forall_.getRegion().front();
    for (mlir::Operation& op : body) {
      if (mlir::isa<mlir::scf::InParallelOp>(op)) continue;
      if (mlir::isa<mlir::affine::AffineApplyOp>(op)) continue;  // offsets only (lin_of reads them)
      if (auto c = mlir::dyn_cast<mlir::arith::ConstantOp>(op)) {
        if (c.getType().isIndex()) continue;
        mlir::Operation* out = b.clone(op);
        created.push_back(out);
        outside_[c.getResult()] = out->getResult(0);
        continue;
      }
      if (auto s = mlir::dyn_cast<mlir::tensor::ExtractSliceOp>(op)) {
        auto t = slice_tile(s);
        if (!t) return fail();
        tiles_[s.getResult()] = *t;
        continue;
      }
      if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
        if (!lift(l, b, created)) return fail();
        continue;
      }
      return fail();  // an op with no tile semantics here
    }
    // The terminator: one parallel_insert_slice per shared output, writing a
    // tile of a lifted result at the tile's own window, the windows of the
    // iterations partitioning the output.
    std::vector<mlir::Value> result(forall_.getNumResults());
    for (mlir::Operation& op : forall_.getTerminator().getYieldingOps()) {
      auto ins = mlir::dyn_cast<mlir::tensor::ParallelInsertSliceOp>(&op);
      if (!ins) return fail();
      int k = shared_out_no(ins.getDest());
      if (k < 0 || result[k]) return fail();
      auto w = window(ins.getMixedOffsets(), ins.getMixedSizes(), ins.getMixedStrides());
      if (!w || ins.getSourceType().getRank() != ins.getDestType().getRank()) return fail();
      auto src = tiles_.find(ins.getSource());
      if (src == tiles_.end() || src->second.off != w->first || src->second.size != w->second) return fail();
      if (src->second.full.getType() != ins.getDest().getType()) return fail();
      if (!partition(w->first, w->second, ins.getDestType().getShape())) return fail();
      insert_window_[k] = *w;
      result[k] = src->second.full;
    }
    for (auto& r : result)
      if (!r) return fail();
    // A read of a shared output reads this iteration's own tile of it (the
    // initial value there: no other iteration writes that window).
    for (const auto& [k, w] : shared_reads_) {
      auto it = insert_window_.find(k);
      if (it == insert_window_.end() || it->second != w) return fail();
    }
    for (unsigned i = 0; i < forall_.getNumResults(); ++i) forall_.getResult(i).replaceAllUsesWith(result[i]);
    forall_.erase();
    return true;
  }

 private:
  mutable mlir::scf::ForallOp forall_;
  std::vector<int64_t> trips_;
  llvm::DenseMap<mlir::Value, Tile> tiles_;
  llvm::DenseMap<mlir::Value, mlir::Value> outside_;
  std::vector<std::pair<int, std::pair<std::vector<Lin>, std::vector<int64_t>>>> shared_reads_;
  std::map<int, std::pair<std::vector<Lin>, std::vector<int64_t>>> insert_window_;

  /// Lower bounds 0, steps 1, static trip counts.
  bool bounds() {
    auto lbs = forall_.getMixedLowerBound(), ubs = forall_.getMixedUpperBound(), steps = forall_.getMixedStep();
    for (size_t i = 0; i < ubs.size(); ++i) {
      auto lb = mlir::getConstantIntValue(lbs[i]), ub = mlir::getConstantIntValue(ubs[i]),
           st = mlir::getConstantIntValue(steps[i]);
      if (!lb || !ub || !st || *lb != 0 || *st != 1 || *ub < 1) return false;
      trips_.push_back(*ub);
    }
    return !trips_.empty();
  }

  bool inside(mlir::Value v) const {
    mlir::Operation* owner = v.getParentRegion() ? v.getParentRegion()->getParentOp() : nullptr;
    return owner && (owner == forall_.getOperation() || forall_->isProperAncestor(owner));
  }

  int shared_out_no(mlir::Value v) const {
    auto arg = mlir::dyn_cast<mlir::BlockArgument>(v);
    if (!arg || arg.getOwner() != &forall_.getRegion().front()) return -1;
    int n = static_cast<int>(arg.getArgNumber()) - static_cast<int>(forall_.getRank());
    return n >= 0 ? n : -1;
  }

  std::optional<Lin> lin_of(mlir::Value v) const {
    if (auto c = mlir::getConstantIntValue(v)) return Lin{*c, {}};
    if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
      if (arg.getOwner() != &forall_.getRegion().front() || arg.getArgNumber() >= forall_.getRank())
        return std::nullopt;
      Lin l;
      l.k[arg.getArgNumber()] = 1;
      return l;
    }
    auto ap = v.getDefiningOp<mlir::affine::AffineApplyOp>();
    if (!ap || ap.getAffineMap().getNumResults() != 1) return std::nullopt;
    std::vector<Lin> args;
    for (mlir::Value o : ap.getMapOperands()) {
      auto l = lin_of(o);
      if (!l) return std::nullopt;
      args.push_back(*l);
    }
    return eval(ap.getAffineMap().getResult(0), args, ap.getAffineMap().getNumDims());
  }

  static std::optional<Lin> eval(mlir::AffineExpr e, const std::vector<Lin>& args, unsigned ndims) {
    if (auto d = mlir::dyn_cast<mlir::AffineDimExpr>(e)) return args[d.getPosition()];
    if (auto s = mlir::dyn_cast<mlir::AffineSymbolExpr>(e)) return args[ndims + s.getPosition()];
    if (auto c = mlir::dyn_cast<mlir::AffineConstantExpr>(e)) return Lin{c.getValue(), {}};
    auto bin = mlir::dyn_cast<mlir::AffineBinaryOpExpr>(e);
    if (!bin) return std::nullopt;
    auto l = eval(bin.getLHS(), args, ndims), r = eval(bin.getRHS(), args, ndims);
    if (!l || !r) return std::nullopt;
    if (e.getKind() == mlir::AffineExprKind::Add) return add(*l, *r);
    if (e.getKind() == mlir::AffineExprKind::Mul) {
      if (r->constant()) return scale(*l, r->c);
      if (l->constant()) return scale(*r, l->c);
    }
    return std::nullopt;  // floordiv, mod, ceildiv: not a tile offset here
  }

  /// Offsets as Lin, static sizes, unit strides.
  std::optional<std::pair<std::vector<Lin>, std::vector<int64_t>>> window(
      llvm::ArrayRef<mlir::OpFoldResult> offs, llvm::ArrayRef<mlir::OpFoldResult> sizes,
      llvm::ArrayRef<mlir::OpFoldResult> strides) const {
    std::vector<Lin> o;
    std::vector<int64_t> s;
    for (size_t i = 0; i < offs.size(); ++i) {
      auto st = mlir::getConstantIntValue(strides[i]);
      auto sz = mlir::getConstantIntValue(sizes[i]);
      if (!st || *st != 1 || !sz) return std::nullopt;
      std::optional<Lin> l;
      if (auto c = mlir::getConstantIntValue(offs[i])) l = Lin{*c, {}};
      else l = lin_of(mlir::cast<mlir::Value>(offs[i]));
      if (!l) return std::nullopt;
      o.push_back(*l);
      s.push_back(*sz);
    }
    return std::make_pair(o, s);
  }

  /// A slice of a value defined outside the loop, or of a shared output
  /// (whose value there is its initial one: checked against the writes).
  std::optional<Tile> slice_tile(mlir::tensor::ExtractSliceOp s) {
    if (s.getSourceType().getRank() != s.getResultType().getRank() || !s.getSourceType().hasStaticShape())
      return std::nullopt;
    auto w = window(s.getMixedOffsets(), s.getMixedSizes(), s.getMixedStrides());
    if (!w) return std::nullopt;
    mlir::Value src = s.getSource();
    int k = shared_out_no(src);
    if (k >= 0) {
      shared_reads_.push_back({k, *w});
      src = forall_.getOutputs()[k];
    } else if (inside(src)) {
      return std::nullopt;  // a slice of a tile: not this form
    }
    return Tile{src, w->first, w->second};
  }

  /// The operand as a tile: a slice, a lifted result, or a whole value of the function.
  std::optional<Tile> tile_of(mlir::Value v) const {
    auto it = tiles_.find(v);
    if (it != tiles_.end()) return it->second;
    if (inside(v)) return std::nullopt;
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape()) return std::nullopt;
    return Tile{v, std::vector<Lin>(t.getRank()), std::vector<int64_t>(t.getShape().begin(), t.getShape().end())};
  }

  /// A tiled linalg op is its untiled op restricted to one box of its
  /// iteration space: every operand a window of a full value at the image
  /// of the same box under its indexing map, every reduction loop whole.
  bool lift(mlir::linalg::LinalgOp l, mlir::OpBuilder& b, std::vector<mlir::Operation*>& created) {
    if (!l.hasPureTensorSemantics()) return false;
    bool captures = false;
    l->walk([&](mlir::Operation* inner) {
      if (inner == l.getOperation()) return;  // its operands are read below
      if (mlir::isa<mlir::linalg::IndexOp>(inner)) captures = true;  // local indices differ from the full op's
      for (mlir::Value v : inner->getOperands())
        if (inside(v) && !l->isAncestor(v.getParentRegion()->getParentOp())) captures = true;
    });
    if (captures) return false;
    const unsigned nloops = l.getNumLoops();
    std::vector<std::optional<Lin>> loop_off(nloops);
    std::vector<int64_t> loop_size(nloops, -1), loop_full(nloops, -1);
    std::vector<mlir::Value> operands;
    auto maps = l.getIndexingMapsArray();
    for (mlir::OpOperand& use : l->getOpOperands()) {
      mlir::Value v = use.get();
      const unsigned no = use.getOperandNumber();
      if (!mlir::isa<mlir::ShapedType>(v.getType())) {
        auto out = outside_.find(v);
        if (out != outside_.end()) operands.push_back(out->second);
        else if (!inside(v)) operands.push_back(v);
        else return false;
        continue;
      }
      auto t = tile_of(v);
      if (!t) return false;
      auto full = mlir::cast<mlir::RankedTensorType>(t->full.getType());
      if (no >= maps.size()) return false;
      mlir::AffineMap map = maps[no];
      if (map.getNumResults() != t->off.size()) return false;
      for (unsigned j = 0; j < map.getNumResults(); ++j) {
        auto d = mlir::dyn_cast<mlir::AffineDimExpr>(map.getResult(j));
        if (!d) return false;
        const unsigned r = d.getPosition();
        if (!loop_off[r]) {
          loop_off[r] = t->off[j];
          loop_size[r] = t->size[j];
          loop_full[r] = full.getDimSize(j);
        } else if (!(*loop_off[r] == t->off[j]) || loop_size[r] != t->size[j] || loop_full[r] != full.getDimSize(j)) {
          return false;
        }
      }
      operands.push_back(t->full);
    }
    auto iters = l.getIteratorTypesArray();
    for (unsigned r = 0; r < nloops; ++r) {
      if (!loop_off[r]) return false;
      if (iters[r] != mlir::utils::IteratorType::parallel &&
          (!(*loop_off[r] == Lin{}) || loop_size[r] != loop_full[r]))
        return false;  // a reduction over part of its range: not the full op's
    }
    std::vector<mlir::Type> types;
    std::vector<Tile> result_tiles;
    for (mlir::OpOperand& init : l.getDpsInitsMutable()) {
      auto t = tile_of(init.get());
      if (!t) return false;
      types.push_back(t->full.getType());
      result_tiles.push_back(*t);
    }
    if (types.size() != l->getNumResults()) return false;
    mlir::Operation* full = mlir::clone(b, l.getOperation(), types, operands);
    // The same op already computed before the loop (the producer the fusion
    // cloned): read that one.
    mlir::Operation* same = nullptr;
    for (mlir::Operation& prior : *forall_->getBlock()) {
      if (&prior == full) break;
      if (mlir::OperationEquivalence::isEquivalentTo(&prior, full, mlir::OperationEquivalence::IgnoreLocations)) {
        same = &prior;
        break;
      }
    }
    if (same) {
      full->erase();
      full = same;
    } else {
      created.push_back(full);
    }
    for (unsigned i = 0; i < l->getNumResults(); ++i) {
      Tile t = result_tiles[i];
      t.full = full->getResult(i);
      tiles_[l->getResult(i)] = t;
    }
    return true;
  }

  /// The windows of the iterations partition `shape`: each dimension is
  /// whole, or tiled by exactly one induction variable with stride equal to
  /// the tile size and trip count × size = the dimension; every induction
  /// variable tiles one dimension.
  bool partition(const std::vector<Lin>& off, const std::vector<int64_t>& size, llvm::ArrayRef<int64_t> shape) const {
    std::set<unsigned> used;
    for (size_t j = 0; j < off.size(); ++j) {
      if (shape[j] < 0) return false;
      if (off[j].constant()) {
        if (off[j].c != 0 || size[j] != shape[j]) return false;
        continue;
      }
      if (off[j].c != 0 || off[j].k.size() != 1) return false;
      auto [r, coef] = *off[j].k.begin();
      if (coef != size[j] || used.count(r) || trips_[r] * size[j] != shape[j]) return false;
      used.insert(r);
    }
    return used.size() == trips_.size();
  }
};

}  // namespace

int untile_foralls(mlir::ModuleOp module) {
  std::vector<mlir::scf::ForallOp> loops;
  module.walk([&](mlir::scf::ForallOp f) {
    if (mlir::isa_and_present<mlir::func::FuncOp>(f->getParentOp())) loops.push_back(f);
  });
  int n = 0;
  for (auto f : loops) n += Untiler(f).run() ? 1 : 0;
  return n;
}

}  // namespace fusecert::ir
