#include "verifier/ir/table_reads.h"

#include <algorithm>

namespace fusecert::ir {

namespace {

bool is_true(const Attr& a) { return a.kind == Attr::Kind::Unit || (a.kind == Attr::Kind::Bool && a.num != 0); }

/// The K extent of the entry's K-major operand, or -1 when the entry names
/// none or its type has no static K.
int64_t k_extent(const Module& m, const Op& op, const OpSpec& spec, std::string& type_text) {
  int pos = spec.operand("X");
  bool k_major = true;
  if (pos < 0) {
    pos = spec.operand("A");
    k_major = flag(op, "transposeA");
  }
  if (pos < 0 || static_cast<size_t>(pos) >= op.operands.size()) return -1;
  const Type& t = m.values.at(static_cast<size_t>(op.operands[static_cast<size_t>(pos)])).type;
  type_text = t.text;
  const size_t d = k_major ? 0 : 1;
  return t.shape.size() > d ? t.shape[d] : -1;
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
  if (fk_index) {
    std::string type_text;
    const int64_t k = k_extent(m, op, spec, type_text);
    if (k >= 0 && fk->ival != k)
      return unreadable(k_whole,
                        k_whole + " = " + fk->text + " on " + op.name + ", but its K (token) extent is " +
                            std::to_string(k) + " (" + type_text + ")",
                        k_whole + " = " + fk->text + " states a K extent of " + std::to_string(fk->ival) +
                            ", but the contraction reduces K = " + std::to_string(k) + " (" + type_text +
                            "): fusecert cannot tell whether K is reduced whole");
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
