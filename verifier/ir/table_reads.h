// Typed reads of what a table op says (issue #15): the facts more than one
// consumer needs from an op a dialect table lists — the K-whole guard
// (verifier/guards/k_whole.cpp) and translation validation (verifier/tv) —
// read once, here, through the op's entry: keys by meaning (ir::key_of, so
// a dialect that spells them its own way reads the same), values by their
// kind, operands by their role. A key the attribute boundary refused
// (Op::refused) is never read; a value the kind allows but that says
// nothing fusecert can use (split_k = 0, an index that is not the op's K)
// is Unreadable, never a default.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"

namespace fusecert::ir {

/// What a contraction-like op (role contraction or fused) says of its K
/// (token) reduction through the keys meaning k_whole and split_k.
struct KSplit {
  enum class State {
    Undeclared,  ///< its entry names neither key (the IR's structure says), or the op carries neither
    Whole,       ///< k_whole unit / true / the op's K as an index, or split_k = 1
    Split,       ///< split_k = N > 1: N partial sums
    NotWhole,    ///< k_whole = false: the reduction completes outside the op
    Refused,     ///< the boundary refused one of the keys (input.attr.*): not read
    Unreadable,  ///< a value that says nothing fusecert can use, or one the op's types contradict (`why`)
    Unverified,  ///< an index k_whole whose dimension is dynamic wherever it appears: not checkable (`why`)
  };
  State state = State::Undeclared;
  bool declared_by_table = false;  ///< the entry names the k_whole or the split_k key
  unsigned splits = 1;   ///< Split: N; NotWhole: split_k when > 1, else 2
  std::string key;       ///< the spelling of the key the state was read from
  std::string evidence;  ///< what was read, naming the op ("split_k = 4 on tessera.matmul")
  std::string why;       ///< Unreadable: the error, naming the key, the value and what it contradicts
};

/// The K-split fact of `op` (entry `spec`) in module `m`. The static K
/// extents of the contracting dimensions of both operands (X, dY: dimension
/// 0; A: 0 with transposeA, else 1; B: 1 with transposeB, else 0) must
/// agree. An index k_whole is cross-checked against every static place of
/// the dimension it sizes: for X, dY entries the K extent; for A, B entries
/// the extent of A's dimension 1 (what Tessera's tiling stamps: K, or M
/// when transposeA is set). A static place that differs is Unreadable (an
/// error); none static is Unverified (inconclusive).
KSplit k_split(const Module& m, const Op& op, const OpSpec& spec);

/// What a fused op's epilogue key (meaning `epilogue`) says: the scalar
/// function that replaces the entry's reference body.
struct Epilogue {
  enum class State {
    None,        ///< the entry names no epilogue key, or the op does not carry it
    Named,       ///< `callee` (without the '@')
    Unreadable,  ///< refused at the boundary, or a value that is no symbol (`why`): never "no epilogue"
  };
  State state = State::None;
  std::string key;     ///< the spelling of the key
  std::string callee;  ///< Named
  std::string why;     ///< Unreadable
};

/// The epilogue of `op` (entry `spec`).
Epilogue epilogue(const Op& op, const OpSpec& spec);

/// Whether `op`'s key meaning `meaning` is a boolean true or a unit
/// attribute (transposeA), read through its spelling.
bool flag(const Op& op, const std::string& meaning);

}  // namespace fusecert::ir
