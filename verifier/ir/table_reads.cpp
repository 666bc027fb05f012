#include "verifier/ir/table_reads.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace fusecert::ir {

namespace {

bool is_true(const Attr& a) { return a.kind == Attr::Kind::Unit || (a.kind == Attr::Kind::Bool && a.num != 0); }

/// One place in the op's types where a loop dimension of the contraction
/// appears: operand or result `value`, its dimension `dim`.
struct DimUse {
  int value = -1;
  size_t dim = 0;
  std::string what;  ///< "operand 0 (A) dimension 1"
};

/// The extent `value`'s dimension `dim` has, or -1 (dynamic, unranked).
int64_t extent(const Module& m, int value, size_t dim) {
  if (value < 0 || static_cast<size_t>(value) >= m.values.size()) return -1;
  const Type& t = m.values[static_cast<size_t>(value)].type;
  return t.shape.size() > dim ? t.shape[dim] : -1;
}

/// What an index k_whole states, and where in the op's types the
/// dimension it sizes appears (each place must agree with it).
///  - Entries whose operands are X and dY (a fused wgrad op, both K-major):
///    the index is the K extent, X's and dY's dimension 0.
///  - Entries whose operands are A and B (Tessera's matmul): the index is
///    the extent of A's dimension 1. That is what the compiler stamps
///    (TesseraTiling.cpp, MatmulOp::getTiledImplementation:
///    `tessera.full_k = lhs.getDimSize(1)`, after keeping K whole in the
///    tiled op): K (A dimension 1, B dimension 0 or 1 with transposeB) when
///    A is not transposed, M (A dimension 1, the result's dimension 0) when
///    transposeA is set. The value cross-checks the op's types; it is never
///    itself the proof that K is whole.
struct Stated {
  std::string sizes;  ///< what the value is a size of, in words
  std::vector<DimUse> uses;
};

std::optional<Stated> stated_dimension(const Op& op, const OpSpec& spec) {
  auto operand = [&](const std::string& role, size_t dim) {
    const int pos = spec.operand(role);
    DimUse u;
    if (pos >= 0 && static_cast<size_t>(pos) < op.operands.size()) u.value = op.operands[static_cast<size_t>(pos)];
    u.dim = dim;
    u.what = "operand " + std::to_string(pos) + " (" + role + ") dimension " + std::to_string(dim);
    return u;
  };
  Stated s;
  if (spec.operand("X") >= 0 && spec.operand("dY") >= 0) {
    s.sizes = "the K (token) extent";
    s.uses = {operand("X", 0), operand("dY", 0)};
    return s;
  }
  if (spec.operand("A") < 0 || spec.operand("B") < 0) return std::nullopt;
  const bool ta = flag(op, "transposeA"), tb = flag(op, "transposeB");
  if (!ta) {
    s.sizes = "the extent of A's dimension 1 (its K: A is not transposed)";
    s.uses = {operand("A", 1), operand("B", tb ? 1 : 0)};
  } else {
    s.sizes = "the extent of A's dimension 1 (its M: " + key_of(op, "transposeA") + " is set)";
    s.uses = {operand("A", 1)};
    if (!op.results.empty()) {
      DimUse r;
      r.value = op.results[0];
      r.dim = 0;
      r.what = "result 0 dimension 0";
      s.uses.push_back(r);
    }
  }
  return s;
}

/// The op's K as its types show it: the contracting dimension of each
/// operand (X, dY: dimension 0; A: 0 with transposeA, else 1; B: 1 with
/// transposeB, else 0). Two static extents that differ are a malformed
/// contraction: `why` says so.
std::vector<DimUse> k_uses(const Op& op, const OpSpec& spec) {
  std::vector<DimUse> out;
  auto add = [&](const std::string& role, size_t dim) {
    const int pos = spec.operand(role);
    if (pos < 0 || static_cast<size_t>(pos) >= op.operands.size()) return;
    out.push_back({op.operands[static_cast<size_t>(pos)], dim,
                   "operand " + std::to_string(pos) + " (" + role + ") dimension " + std::to_string(dim)});
  };
  if (spec.operand("X") >= 0 && spec.operand("dY") >= 0) {
    add("X", 0);
    add("dY", 0);
  } else if (spec.operand("A") >= 0 && spec.operand("B") >= 0) {
    add("A", flag(op, "transposeA") ? 0 : 1);
    add("B", flag(op, "transposeB") ? 1 : 0);
  }
  return out;
}

std::string type_of(const Module& m, int value) {
  return value >= 0 && static_cast<size_t>(value) < m.values.size() ? m.values[static_cast<size_t>(value)].type.text
                                                                    : std::string("?");
}

}  // namespace

bool flag(const Op& op, const std::string& meaning) {
  const Attr* a = op.attr(key_of(op, meaning));
  return a && is_true(*a);
}

KSplit k_split(const Module& m, const Op& op, const OpSpec& spec) {
  KSplit r;
  const std::string k_split_key = key_of(op, "split_k"), k_whole = key_of(op, "k_whole");
  r.declared_by_table = spec.attrs.count(k_whole) || spec.attrs.count(k_split_key);
  if (!r.declared_by_table) return r;
  if (op.is_refused(k_split_key) || op.is_refused(k_whole)) {
    r.state = KSplit::State::Refused;
    r.key = op.is_refused(k_split_key) ? k_split_key : k_whole;
    return r;
  }
  const Attr* sk = op.attr(k_split_key);
  const Attr* fk = op.attr(k_whole);
  auto unreadable = [&](const std::string& key, const std::string& evidence, const std::string& why) {
    r.state = KSplit::State::Unreadable;
    r.key = key;
    r.evidence = evidence;
    r.why = why;
    return r;
  };
  // The k_whole key (Tessera: tessera.full_k) is a unit attribute, a
  // boolean or an index: unit / true = K whole, false = not whole, an index
  // = the K extent the op reduces whole (Tessera's tiling stamps
  // `tessera.full_k = K : index`), cross-checked against the op's K.
  const bool fk_index = fk && fk->kind == Attr::Kind::Int && fk->index && fk->fits;
  // The op's K as its types show it: the static contracting extents of its
  // operands must agree (a K of 64 on one side and 32 on the other is no
  // contraction fusecert can read), whatever the attributes state.
  {
    const std::vector<DimUse> ks = k_uses(op, spec);
    for (size_t i = 0; i < ks.size(); ++i)
      for (size_t j = i + 1; j < ks.size(); ++j) {
        const int64_t a = extent(m, ks[i].value, ks[i].dim), b = extent(m, ks[j].value, ks[j].dim);
        if (a >= 0 && b >= 0 && a != b)
          return unreadable(k_whole,
                            op.name + " contracts K = " + std::to_string(a) + " (" + ks[i].what + ", " +
                                type_of(m, ks[i].value) + ") with K = " + std::to_string(b) + " (" + ks[j].what +
                                ", " + type_of(m, ks[j].value) + ")",
                            op.name + " contracts " + ks[i].what + " (" + std::to_string(a) + ", " +
                                type_of(m, ks[i].value) + ") with " + ks[j].what + " (" + std::to_string(b) + ", " +
                                type_of(m, ks[j].value) + "): the operands' K extents differ, so fusecert cannot "
                                "tell what K the op reduces");
      }
  }
  if (fk_index) {
    // Cross-checked against every place of the op's types where the
    // dimension it sizes appears (stated_dimension): a static extent that
    // differs contradicts the IR (an error); none static leaves the stated
    // value unchecked, so K whole is not shown (inconclusive, never legal).
    const std::optional<Stated> st = stated_dimension(op, spec);
    if (!st)
      return unreadable(k_whole, k_whole + " = " + fk->text + " on " + op.name + ": its entry names no K-major operand",
                        k_whole + " = " + fk->text + " on " + op.name +
                            ": the op's table entry names no operands (X, dY or A, B) whose types the value could "
                            "be checked against; fusecert cannot tell whether K is reduced whole");
    bool checked = false;
    for (const DimUse& u : st->uses) {
      const int64_t e = extent(m, u.value, u.dim);
      if (e < 0) continue;
      checked = true;
      if (e != fk->ival)
        return unreadable(k_whole,
                          k_whole + " = " + fk->text + " on " + op.name + " states " + st->sizes + ", but " + u.what +
                              " is " + std::to_string(e) + " (" + type_of(m, u.value) + ")",
                          k_whole + " = " + fk->text + " states " + st->sizes + " as " + std::to_string(fk->ival) +
                              ", but " + u.what + " is " + std::to_string(e) + " (" + type_of(m, u.value) +
                              "): the stated value contradicts the op's types, so fusecert cannot tell whether K "
                              "is reduced whole");
    }
    if (!checked) {
      r.state = KSplit::State::Unverified;
      r.key = k_whole;
      std::string where;
      for (const DimUse& u : st->uses)
        where += (where.empty() ? "" : ", ") + u.what + " (" + type_of(m, u.value) + ")";
      r.evidence = k_whole + " = " + fk->text + " on " + op.name + " states " + st->sizes +
                   ", but that dimension is dynamic wherever it appears: " + where;
      r.why = k_whole + " = " + fk->text + " states " + st->sizes + ", but that dimension is dynamic in " + where +
              ": the value cannot be checked against the IR, so K whole is not shown; the candidate is "
              "inconclusive (give the dimension a static extent, or state " + k_whole + " as a unit attribute)";
      return r;
    }
  }
  if (fk && !fk_index && fk->kind != Attr::Kind::Unit && fk->kind != Attr::Kind::Bool)
    return unreadable(k_whole, k_whole + " = " + fk->text + " on " + op.name + " is not a unit attribute or a boolean",
                      k_whole + " = " + fk->text +
                          " is not a unit attribute, true, false or an index: fusecert cannot tell whether K is "
                          "reduced whole");
  const bool sk_int = sk && sk->kind == Attr::Kind::Int && !sk->index && sk->fits;
  if (fk && fk->kind == Attr::Kind::Bool && fk->num == 0) {
    r.state = KSplit::State::NotWhole;
    r.key = k_whole;
    r.splits = sk_int && sk->ival > 1 ? static_cast<unsigned>(std::min<int64_t>(sk->ival, 1 << 30)) : 2;
    r.evidence = k_whole + " = false on " + op.name + ": the K reduction is not whole inside the op";
    return r;
  }
  // split_k is a count of partial sums: 1 is the whole K, more is a split;
  // anything else (0, a negative count, a value of another kind a table
  // allows) says nothing fusecert can read, never "whole".
  if (sk && (!sk_int || sk->ival < 1))
    return unreadable(k_split_key, k_split_key + " = " + sk->text + " on " + op.name + " is not a number of partial sums",
                      k_split_key + " = " + sk->text +
                          " is not a number of partial sums (1 or more): fusecert cannot tell whether K is reduced "
                          "whole");
  if (sk && sk->ival > 1) {
    r.state = KSplit::State::Split;
    r.key = k_split_key;
    r.splits = static_cast<unsigned>(std::min<int64_t>(sk->ival, 1 << 30));
    r.evidence = k_split_key + " = " + std::to_string(r.splits) + " on " + op.name;
    return r;
  }
  if (sk || fk) {
    r.state = KSplit::State::Whole;
    r.key = sk ? k_split_key : k_whole;
    r.evidence = sk ? k_split_key + " = " + sk->text + " on " + op.name : k_whole + " on " + op.name;
    return r;
  }
  return r;  // Undeclared
}

Epilogue epilogue(const Op& op, const OpSpec& spec) {
  Epilogue e;
  e.key = key_of(op, "epilogue");
  if (!spec.attrs.count(e.key)) return e;
  if (op.is_refused(e.key)) {
    e.state = Epilogue::State::Unreadable;
    e.why = op.name + ": attribute '" + e.key + "' was refused at the attribute boundary (input.attr.*): fusecert does not read it";
    return e;
  }
  const Attr* a = op.attr(e.key);
  if (!a) return e;
  if (a->kind != Attr::Kind::Symbol) {
    e.state = Epilogue::State::Unreadable;
    e.why = op.name + ": " + e.key + " = " + a->text + " does not name a function (a symbol @fn): fusecert cannot tell which epilogue the op computes";
    return e;
  }
  e.state = Epilogue::State::Named;
  e.callee = a->text;
  if (!e.callee.empty() && e.callee[0] == '@') e.callee = e.callee.substr(1);
  return e;
}

}  // namespace fusecert::ir
