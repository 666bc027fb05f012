// Reading a bufferized function as the tensor program it computes (issue
// #16: the verdict is the same before and after --one-shot-bufferize). See
// unbufferize.h for the rule. The rewrite runs on a copy of the function; a
// copy that meets every condition and verifies replaces the original, any
// other is dropped and the original stays exactly as it was.
#include "verifier/ir/unbufferize.h"

#include <optional>
#include <set>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace fusecert::ir {
namespace {

/// A buffer root: a memref argument of the function or a fresh buffer.
struct Root {
  mlir::Value current;  ///< its tensor value at the point the rewrite has reached
  bool is_arg = false;
  unsigned arg_no = 0;
  bool written = false;  ///< an op wrote it (argument roots: the in-place order)
};

/// memref.subview of a whole root: the window a read extracts and a write inserts.
struct Slice {
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
  mlir::RankedTensorType type;
};

/// A memref value: a view of one root, whole or a window of it.
struct View {
  int root = -1;
  std::optional<Slice> slice;
};

std::optional<mlir::RankedTensorType> tensor_of(mlir::Type t) {
  auto m = mlir::dyn_cast<mlir::MemRefType>(t);
  if (!m || !m.hasStaticShape()) return std::nullopt;
  return mlir::RankedTensorType::get(m.getShape(), m.getElementType());
}

std::string op_name(mlir::Operation* op) { return op->getName().getStringRef().str(); }

class Functionalizer {
 public:
  explicit Functionalizer(mlir::func::FuncOp f) : f_(f), b_(f.getContext()) {}

  /// Rewrites f_ (a copy) in place; the op and reason when it cannot.
  std::optional<std::pair<mlir::Operation*, std::string>> run() {
    if (!f_.getBody().hasOneBlock()) return refusal(f_, "the function body has several blocks");
    mlir::Block& body = f_.getBody().front();
    for (mlir::BlockArgument a : body.getArguments()) {
      if (!mlir::isa<mlir::MemRefType>(a.getType())) continue;
      auto t = tensor_of(a.getType());
      if (!t) return refusal(f_, "argument #" + std::to_string(a.getArgNumber()) + " is a buffer of dynamic shape");
      a.setType(*t);
      views_[a] = View{static_cast<int>(roots_.size()), std::nullopt};
      roots_.push_back(Root{a, true, a.getArgNumber(), false});
    }
    if (!block(body) || refused_) return refused_;
    auto ret = mlir::dyn_cast<mlir::func::ReturnOp>(body.getTerminator());
    if (!ret) return refusal(body.getTerminator(), "the function does not end in func.return");
    b_.setInsertionPoint(ret);
    llvm::SmallVector<mlir::Value> results;
    std::set<int> returned_whole;
    for (mlir::Value v : ret.getOperands()) {
      if (!is_buffer(v)) {
        results.push_back(v);
        continue;
      }
      auto it = views_.find(v);
      if (it == views_.end()) return refusal(ret, "returns a buffer that is no view of an argument or a fresh buffer");
      if (!it->second.slice) returned_whole.insert(it->second.root);
      results.push_back(read(it->second, ret, /*in_place_order=*/false));
    }
    // A written argument buffer the function does not return: its final
    // value is an output of the step (W, m, v updated in place).
    const size_t declared = results.size();
    for (size_t r = 0; r < roots_.size(); ++r)
      if (roots_[r].is_arg && roots_[r].written && !returned_whole.count(static_cast<int>(r)))
        results.push_back(roots_[r].current);
    if (results.size() != declared && f_.getResAttrsAttr())
      return refusal(f_, "results with attributes, and written argument buffers to return besides them");
    b_.create<mlir::func::ReturnOp>(ret.getLoc(), results);
    dead_.push_back(ret);
    if (auto why = erase_dead()) return why;
    llvm::SmallVector<mlir::Type> ins, outs;
    for (mlir::BlockArgument a : body.getArguments()) ins.push_back(a.getType());
    for (mlir::Value v : results) outs.push_back(v.getType());
    f_.setFunctionType(mlir::FunctionType::get(f_.getContext(), ins, outs));
    return std::nullopt;
  }

  /// After run(): what the reading rests on, when it has two or more
  /// argument buffers and writes one (BufferArgs); nullopt otherwise.
  std::optional<BufferArgs> buffer_args() {
    BufferArgs a;
    a.noalias = true;
    for (const Root& r : roots_) {
      if (!r.is_arg) continue;
      ++a.count;
      if (!r.written) continue;
      a.written.push_back(r.arg_no);
      a.noalias = a.noalias && f_.getArgAttr(r.arg_no, kNoAliasArgAttr);
    }
    if (a.count < 2 || a.written.empty()) return std::nullopt;
    return a;
  }

 private:
  mlir::func::FuncOp f_;
  mlir::OpBuilder b_;
  std::vector<Root> roots_;
  llvm::DenseMap<mlir::Value, View> views_;
  std::vector<mlir::Operation*> dead_;  ///< the buffer ops, in program order
  std::optional<std::pair<mlir::Operation*, std::string>> refused_;

  std::optional<std::pair<mlir::Operation*, std::string>> refusal(mlir::Operation* op, std::string why) {
    if (!refused_) refused_ = std::make_pair(op, std::move(why));
    return refused_;
  }
  bool refuse(mlir::Operation* op, std::string why) {
    refusal(op, std::move(why));
    return false;
  }

  bool is_buffer(mlir::Value v) const { return views_.count(v) || mlir::isa<mlir::MemRefType>(v.getType()); }

  /// The op, or an op nested in it, takes or yields a buffer.
  bool touches_buffers(mlir::Operation* op) const {
    bool any = false;
    op->walk([&](mlir::Operation* inner) {
      for (mlir::Value v : inner->getOperands()) any |= is_buffer(v);
      for (mlir::Value v : inner->getResults()) any |= mlir::isa<mlir::MemRefType>(v.getType());
      for (mlir::Region& r : inner->getRegions())
        for (mlir::Block& bl : r)
          for (mlir::BlockArgument a : bl.getArguments()) any |= mlir::isa<mlir::MemRefType>(a.getType());
    });
    return any;
  }

  const View* view_of(mlir::Value v) const {
    auto it = views_.find(v);
    return it == views_.end() ? nullptr : &it->second;
  }

  /// The view's current value. With in_place_order, a read of an argument
  /// buffer an op already wrote refuses: that order is P7's, on buffers.
  mlir::Value read(const View& v, mlir::Operation* at, bool in_place_order) {
    Root& r = roots_[v.root];
    if (in_place_order && r.is_arg && r.written) {
      refuse(at, "reads argument buffer #" + std::to_string(r.arg_no) +
                     " after an op wrote it in place: the in-place order is checked on the buffer form (P7)");
      return {};
    }
    if (!v.slice) return r.current;
    return b_.create<mlir::tensor::ExtractSliceOp>(at->getLoc(), v.slice->type, r.current, v.slice->offsets,
                                                   v.slice->sizes, v.slice->strides);
  }

  void write(const View& v, mlir::Value value, mlir::Operation* at) {
    Root& r = roots_[v.root];
    r.written = true;
    if (!v.slice) {
      r.current = value;
      return;
    }
    r.current = b_.create<mlir::tensor::InsertSliceOp>(at->getLoc(), value, r.current, v.slice->offsets,
                                                       v.slice->sizes, v.slice->strides);
  }

  bool block(mlir::Block& bl) {
    for (mlir::Operation& op : llvm::make_early_inc_range(bl)) {
      if (op.hasTrait<mlir::OpTrait::IsTerminator>()) continue;  // func.return / scf.yield: by their owner
      if (!one(&op)) return false;
    }
    return true;
  }

  // The buffer ops below are read through getOperand, never through their
  // typed accessors (getSource() and the like cast to a memref type): a
  // function argument they read has been retyped to a tensor already.
  bool one(mlir::Operation* op) {
    b_.setInsertionPoint(op);
    if (mlir::isa<mlir::memref::AllocOp, mlir::memref::AllocaOp>(op)) {
      auto t = tensor_of(op->getResult(0).getType());
      if (!t || op->getNumOperands() != 0) return refuse(op, "a buffer of dynamic shape");
      auto e = b_.create<mlir::tensor::EmptyOp>(op->getLoc(), t->getShape(), t->getElementType());
      views_[op->getResult(0)] = View{static_cast<int>(roots_.size()), std::nullopt};
      roots_.push_back(Root{e, false, 0, false});
      dead_.push_back(op);
      return true;
    }
    if (auto c = mlir::dyn_cast<mlir::memref::CastOp>(op)) {
      const View* src = view_of(op->getOperand(0));
      if (!src) return refuse(op, "casts a buffer that is no view of an argument or a fresh buffer");
      views_[c.getResult()] = *src;  // the same elements
      dead_.push_back(op);
      return true;
    }
    if (auto s = mlir::dyn_cast<mlir::memref::SubViewOp>(op)) {
      const View* src = view_of(op->getOperand(0));
      if (!src) return refuse(op, "a view of a buffer that is no view of an argument or a fresh buffer");
      if (src->slice) return refuse(op, "a subview of a subview");
      auto t = tensor_of(s.getType());
      if (!t) return refuse(op, "a subview of dynamic size");
      Slice sl{llvm::SmallVector<mlir::OpFoldResult>(s.getMixedOffsets()),
               llvm::SmallVector<mlir::OpFoldResult>(s.getMixedSizes()),
               llvm::SmallVector<mlir::OpFoldResult>(s.getMixedStrides()), *t};
      views_[s.getResult()] = View{src->root, sl};
      dead_.push_back(op);
      return true;
    }
    if (mlir::isa<mlir::memref::CopyOp>(op)) {
      const View* src = view_of(op->getOperand(0));
      const View* dst = view_of(op->getOperand(1));
      if (!src || !dst) return refuse(op, "copies between buffers that are no views of an argument or a fresh buffer");
      View d = *dst;
      mlir::Value v = read(*src, op, true);
      if (!v) return false;
      write(d, v, op);
      dead_.push_back(op);
      return true;
    }
    if (mlir::isa<mlir::memref::DeallocOp>(op)) {
      if (!view_of(op->getOperand(0))) return refuse(op, "frees a buffer that is no view of an argument or a fresh buffer");
      dead_.push_back(op);
      return true;
    }
    if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
      if (!touches_buffers(op)) return true;  // on tensors already
      return linalg(l);
    }
    if (auto f = mlir::dyn_cast<mlir::scf::ForOp>(op)) {
      if (!touches_buffers(op)) return true;
      return loop(f);
    }
    if (touches_buffers(op)) return refuse(op, "takes or yields a buffer, and the rewrite has no value semantics for it");
    return true;
  }

  /// A linalg op on buffers as the same op on the buffers' values.
  bool linalg(mlir::linalg::LinalgOp l) {
    mlir::Operation* op = l.getOperation();
    // (The function's arguments are tensors already: a buffer is a value
    // with a view.)
    for (mlir::Value v : op->getOperands())
      if (mlir::isa<mlir::TensorType>(v.getType()) && !views_.count(v))
        return refuse(op, "a linalg op on both tensors and buffers");
    for (mlir::Region& r : op->getRegions())
      for (mlir::Operation& inner : r.getOps())
        if (touches_buffers(&inner)) return refuse(&inner, "a buffer inside a linalg op's body");
    llvm::SmallVector<mlir::Value> operands;
    llvm::SmallVector<mlir::Type> types;
    llvm::SmallVector<View> outs;
    for (mlir::OpOperand& o : op->getOpOperands()) {
      if (!is_buffer(o.get())) {
        operands.push_back(o.get());
        continue;
      }
      const View* v = view_of(o.get());
      if (!v) return refuse(op, "operand #" + std::to_string(o.getOperandNumber()) + " is no view of an argument or a fresh buffer");
      mlir::Value val;
      if (l.isDpsInit(&o) && !l.payloadUsesValueFromOperand(&o)) {
        // The payload never reads the init: every element is written, the
        // buffer's old contents do not matter.
        auto t = v->slice ? v->slice->type : mlir::cast<mlir::RankedTensorType>(roots_[v->root].current.getType());
        val = b_.create<mlir::tensor::EmptyOp>(op->getLoc(), t.getShape(), t.getElementType());
      } else {
        val = read(*v, op, true);
        if (!val) return false;
      }
      operands.push_back(val);
      if (l.isDpsInit(&o)) {
        types.push_back(val.getType());
        outs.push_back(*v);
      }
    }
    mlir::Operation* t = mlir::clone(b_, op, types, operands);
    for (size_t i = 0; i < outs.size(); ++i) write(outs[i], t->getResult(i), op);
    dead_.push_back(op);
    return true;
  }

  /// The root a buffer value inside a loop body views, or -1 (a buffer
  /// allocated in the body, or one the rewrite will refuse when it gets there).
  int root_of(mlir::Value v) const {
    for (int depth = 0; depth < 64; ++depth) {
      if (const View* w = view_of(v)) return w->root;
      if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
        auto f = mlir::dyn_cast<mlir::scf::ForOp>(arg.getOwner()->getParentOp());
        if (!f || arg.getArgNumber() == 0) return -1;
        v = f.getInitArgs()[arg.getArgNumber() - 1];
        continue;
      }
      mlir::Operation* d = v.getDefiningOp();
      if (mlir::isa_and_nonnull<mlir::memref::CastOp, mlir::memref::SubViewOp>(d)) v = d->getOperand(0);
      else return -1;
    }
    return -1;
  }

  /// An scf.for whose body writes buffers of the function: those buffers'
  /// values become iter_args of the loop.
  bool loop(mlir::scf::ForOp old) {
    mlir::Operation* op = old.getOperation();
    dead_.push_back(op);  // erased after the ops its body held
    auto yields = old.getYieldedValues();
    for (unsigned i = 0; i < old.getNumRegionIterArgs(); ++i) {
      if (!is_buffer(old.getInitArgs()[i])) continue;
      const View* v = view_of(old.getInitArgs()[i]);
      if (!v || v->slice) return refuse(op, "a buffer iter_arg that is no whole argument or fresh buffer");
      if (yields[i] != old.getRegionIterArgs()[i]) return refuse(op, "yields another buffer than its iter_arg #" + std::to_string(i) + " came in with");
    }
    // The roots of the function the body writes.
    std::set<int> carried;
    old.getBody()->walk([&](mlir::Operation* inner) {
      if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(inner)) {
        for (mlir::OpOperand& o : l.getDpsInitsMutable())
          if (int r = root_of(o.get()); r >= 0) carried.insert(r);
      } else if (mlir::isa<mlir::memref::CopyOp>(inner)) {
        if (int r = root_of(inner->getOperand(1)); r >= 0) carried.insert(r);
      }
    });
    llvm::SmallVector<mlir::Value> inits;
    for (mlir::Value v : old.getInitArgs())
      if (!is_buffer(v)) inits.push_back(v);
    const size_t kept = inits.size();
    for (int r : carried) inits.push_back(roots_[r].current);
    b_.setInsertionPoint(op);
    auto nf = b_.create<mlir::scf::ForOp>(old.getLoc(), old.getLowerBound(), old.getUpperBound(), old.getStep(), inits);
    mlir::Block* nb = nf.getBody();
    if (!nb->empty()) nb->getTerminator()->erase();
    mlir::Block* ob = old.getBody();
    old.getInductionVar().replaceAllUsesWith(nf.getInductionVar());
    {
      size_t j = 0;
      for (unsigned i = 0; i < old.getNumRegionIterArgs(); ++i) {
        if (is_buffer(old.getInitArgs()[i])) views_[old.getRegionIterArgs()[i]] = *view_of(old.getInitArgs()[i]);
        else old.getRegionIterArgs()[i].replaceAllUsesWith(nf.getRegionIterArgs()[j++]);
      }
    }
    nb->getOperations().splice(nb->end(), ob->getOperations());
    {
      size_t j = kept;
      for (int r : carried) {
        roots_[r].current = nf.getRegionIterArgs()[j++];
        // Read again on the next iteration: an argument written here is
        // read after its write.
        roots_[r].written = true;
      }
    }
    if (!block(*nb)) return false;
    auto y = mlir::cast<mlir::scf::YieldOp>(nb->getTerminator());
    llvm::SmallVector<mlir::Value> next;
    for (unsigned i = 0; i < y.getNumOperands(); ++i)
      if (!is_buffer(old.getInitArgs()[i])) next.push_back(y.getOperand(i));
    for (int r : carried) next.push_back(roots_[r].current);
    b_.setInsertionPoint(y);
    b_.create<mlir::scf::YieldOp>(y.getLoc(), next);
    y->erase();
    {
      size_t j = 0;
      for (unsigned i = 0; i < old.getNumResults(); ++i) {
        if (is_buffer(old.getInitArgs()[i])) views_[old.getResult(i)] = *view_of(old.getInitArgs()[i]);
        else old.getResult(i).replaceAllUsesWith(nf.getResult(j++));
      }
      j = kept;
      for (int r : carried) roots_[r].current = nf.getResult(j++);
    }
    return true;
  }

  /// Erases the buffer ops, last first; every use of their results must be
  /// another of them.
  std::optional<std::pair<mlir::Operation*, std::string>> erase_dead() {
    llvm::DenseSet<mlir::Operation*> dead(dead_.begin(), dead_.end());
    auto is_dead = [&](mlir::Operation* user) {
      for (mlir::Operation* p = user; p; p = p->getParentOp())
        if (dead.contains(p)) return true;
      return false;
    };
    for (mlir::Operation* op : dead_)
      for (mlir::Operation* user : op->getUsers())
        if (!is_dead(user)) return refusal(user, "uses a buffer the rewrite replaces by its value");
    for (auto it = dead_.rbegin(); it != dead_.rend(); ++it) {
      (*it)->dropAllUses();
      for (mlir::Region& r : (*it)->getRegions())
        for (mlir::Block& bl : r)
          for (mlir::BlockArgument a : bl.getArguments()) a.dropAllUses();
      (*it)->erase();
    }
    dead_.clear();
    return std::nullopt;
  }
};

bool works_on_buffers(mlir::func::FuncOp f) {
  auto is_mem = [](mlir::Type t) { return mlir::isa<mlir::MemRefType>(t); };
  if (llvm::any_of(f.getArgumentTypes(), is_mem) || llvm::any_of(f.getResultTypes(), is_mem)) return true;
  bool any = false;
  f.walk([&](mlir::Operation* op) {
    for (mlir::Type t : op->getResultTypes()) any |= is_mem(t);
  });
  return any;
}

UnbufferizeRefusal refusal_of(mlir::func::FuncOp f, mlir::Operation* op, const std::string& why) {
  UnbufferizeRefusal r{f.getSymName().str(), op_name(op), why, op->getLoc()};
  f.walk([&](mlir::linalg::LinalgOp l) {
    if (l.hasPureBufferSemantics()) r.linalg_on_buffers = true;
  });
  return r;
}

}  // namespace

int functionalize_buffers(mlir::ModuleOp module, std::vector<UnbufferizeRefusal>* refusals,
                          std::map<std::string, BufferArgs>* rests_on) {
  std::vector<mlir::func::FuncOp> funcs;
  module.walk([&](mlir::func::FuncOp f) {
    if (!f.isExternal() && works_on_buffers(f)) funcs.push_back(f);
  });
  // A copy that fails to verify is dropped; MLIR's diagnostics about it
  // are not the input's.
  mlir::ScopedDiagnosticHandler quiet(module.getContext(), [](mlir::Diagnostic&) { return mlir::success(); });
  int n = 0;
  for (mlir::func::FuncOp f : funcs) {
    auto note = [&](mlir::Operation* op, const std::string& why) {
      if (refusals) refusals->push_back(refusal_of(f, op, why));
    };
    mlir::Operation* table = mlir::SymbolTable::getNearestSymbolTable(f);
    if (!table || !mlir::SymbolTable::symbolKnownUseEmpty(f, table)) {
      note(f, "the function is called or named in the module, and reading it on tensors changes its signature");
      continue;
    }
    mlir::func::FuncOp copy = f.clone();
    f->getBlock()->getOperations().insertAfter(mlir::Block::iterator(f), copy);
    const std::string name = f.getSymName().str();
    copy.setSymName(name + ".__fusecert_unbufferized");
    Functionalizer rewrite(copy);
    auto why = rewrite.run();
    if (!why && mlir::failed(mlir::verify(copy))) why = std::make_pair(copy.getOperation(), std::string("the function read on tensors does not verify"));
    if (why) {
      note(why->first == copy.getOperation() ? f.getOperation() : why->first, why->second);
      copy.erase();
      continue;
    }
    if (auto a = rewrite.buffer_args(); a && rests_on) (*rests_on)[name] = *a;
    f.erase();
    copy.setSymName(name);
    ++n;
  }
  return n;
}

}  // namespace fusecert::ir
