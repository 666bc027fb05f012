// Dialect semantics as data (issue #15): one entry per op, read from a YAML
// table (rules/dialects/<dialect>.yaml, embedded at build time; format in
// docs/ir-checking.md, "Dialect tables"). An entry gives semantics — the
// op's role, the role of each operand and result, its element-wise body (a
// reference update) or none (opaque), its hyper-parameters and the kind of
// every attribute key it takes — never a verdict.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/scalar_fn.h"

namespace fusecert::ir {

/// What an op is, as far as the guards are concerned.
/// The StableHLO-style roles (elementwise ... return) say how a result
/// element depends on operand elements (verifier/ir/dependence.h).
enum class OpRole {
  Contraction, Optimizer, Fused, Add, Clip, Decay, Collective,
  Elementwise, Broadcast, Transpose, Reshape, Reduce, Constant, Return,
  /// result[i] = operand[start + i * stride] (stablehlo.slice: start_indices,
  /// limit_indices, strides)
  Slice,
  /// result[i] = operand[clamp(start, 0, extent - size) + i], the starts
  /// read from the operands after the first, the sizes from slice_sizes
  /// (stablehlo.dynamic_slice)
  DynamicSlice
};
std::string to_string(OpRole r);

/// The kind of an attribute value.
/// DotDims, Precisions, CmpDirection and CmpType are opaque attributes of an
/// unregistered dialect, read by the grammar of opaque_attrs.h.
enum class AttrKind {
  Unit, Bool, Int, Index, Float, String, Symbol, Dtype, Dict,
  Ints, Elements, DotDims, Precisions, CmpDirection, CmpType
};
std::string to_string(AttrKind k);

/// The kinds one key may take; for a dictionary, the kinds of its keys.
struct KeySpec {
  std::vector<AttrKind> kinds;
  std::map<std::string, KeySpec> entries;  ///< AttrKind::Dict only
};

/// What a collective computes (role collective).
enum class CollectiveKind { None, AllReduce, ReduceScatter };

struct OpSpec {
  std::string name;                       ///< full name, "tessera.adamw"
  OpRole role = OpRole::Optimizer;
  CollectiveKind collective = CollectiveKind::None;  ///< role collective: what it computes
  std::vector<std::string> operands;      ///< role of each operand ("W", "g", "m", ...)
  std::vector<std::string> results;       ///< role of each result ("W1", "m1", ...)
  std::string body;                       ///< reference update ("adamw", "sgd", "momentum"); empty = opaque
  std::vector<std::string> hyper;         ///< hyper-parameter keys the body reads
  std::map<std::string, KeySpec> attrs;   ///< every key the op takes (attrs_of merged in)
  /// What an elementwise op computes (`computes: add`): whether it sums its
  /// operands and what it is as a reduce body follow from it (scalar_fn.h:
  /// sums, exact_reduction, rounded_reduction). Unknown when the entry says
  /// nothing: then it is neither a sum nor a reduction fusecert models.
  ScalarFn computes = ScalarFn::Unknown;
  /// Operand position of role `r`, or -1.
  int operand(const std::string& r) const;
};

struct DialectTable {
  std::string dialect;                    ///< op-name prefix without the dot ("tessera")
  std::string source;                     ///< where it was read from (for diagnostics): the path as given
  /// SHA-256 of the YAML text of a table added at run time (`--dialect`),
  /// recorded in certificates; empty for a built-in table (the binary's).
  std::string sha256;
  /// The pass that lowers this dialect's ops to linalg ("--tessera-to-linalg"),
  /// named in the note on an opaque op; empty when the table names none.
  std::string lowering;
  std::map<std::string, std::string> dtypes;  ///< spelling -> f64 | f32 | bf16 | f16
  /// What each key means: a meaning fusecert reads (kMeanings) -> this
  /// dialect's spelling of it. A meaning the table does not list is spelt
  /// as fusecert's own name for it.
  std::map<std::string, std::string> keys;
  std::map<std::string, OpSpec> ops;      ///< by full name
  const OpSpec* find(const std::string& op_name) const;
  /// The dtype a spelling names ("fp32" -> "f32"), or nullopt.
  std::optional<std::string> dtype(const std::string& spelling) const;
  /// This dialect's spelling of `meaning` (one of kMeanings).
  std::string key(const std::string& meaning) const;
  /// The first entry of role `r`, or nullptr (for notes naming the op that
  /// would make a candidate legal, e.g. the dialect's decay pass).
  const OpSpec* first_of(OpRole r) const;
};

/// The meanings an attribute key can have for fusecert, by fusecert's own
/// name (which is also their spelling on ops no table lists, such as a
/// linalg.generic consumer): the K reduction kept whole (k_whole), the split
/// count (split_k), a transposed A (transposeA), the numeric policy
/// dictionary and its entries (numeric_policy, accum, storage), the
/// optimizer's keys (state_dtype, grad_clip_scope, routing, state_locality),
/// the hyper-parameters of the reference updates (lr, beta1, beta2, eps,
/// weight_decay, step, the momentum coefficient, grad_clip_scale), a collective's
/// (reduction, op, axis, ranks, scatter_dim), and the scalar function a fused
/// op's epilogue computes (epilogue).
const std::vector<std::string>& meanings();

/// The operand roles an entry of role `r` may give (`operands:`): the ones
/// fusecert reads (W, g, m, v, B, X, dY, A, x, ...). Any other is a load
/// error, so a misspelt `grad` never leaves the gradient unnamed.
const std::vector<std::string>& operand_roles(OpRole r);

/// Parses one table. Throws std::invalid_argument, "source:line:col: entry:
/// what", for anything it does not know or that contradicts itself (an
/// unknown role, kind, field or operand role; a key or entry given twice;
/// two meanings spelt alike; a body whose reference reads an operand the
/// entry does not name; a hyper-parameter that is no key of the entry): the
/// table is data, and a misspelt table must not mean "no semantics".
DialectTable parse_dialect_table(const std::string& yaml_text, const std::string& source);

/// Every table fusecert knows: the ones built in (rules/dialects/*.yaml).
class DialectTables {
 public:
  void add(DialectTable t);
  /// The entry for an op name, across every table; nullptr when none has it.
  const OpSpec* find(const std::string& op_name) const;
  /// The table whose dialect prefixes `op_name`; nullptr when none.
  const DialectTable* table_of(const std::string& op_name) const;
  const std::vector<DialectTable>& tables() const { return tables_; }
  /// The tables added at run time (`--dialect`), in the order given.
  std::vector<const DialectTable*> user_tables() const;

 private:
  std::vector<DialectTable> tables_;
};

/// The built-in tables (parsed once; thread-safe).
const DialectTables& builtin_dialects();

/// The tables in force: the built-in ones plus any a user added with
/// add_dialect_table (before any module is read; not thread-safe against
/// concurrent readers, so the command line adds them first).
const DialectTables& dialects();
/// Adds a user table (`--dialect FILE.yaml`), recording the SHA-256 of its
/// text. Throws std::invalid_argument, naming the file, for a malformed
/// table or a dialect already given.
void add_dialect_table(const std::string& yaml_text, const std::string& source);

struct Op;
/// The table entry of `op` among the tables in force, or nullptr.
const OpSpec* spec_of(const Op& op);
/// The table of `op`'s dialect among the tables in force, or nullptr.
const DialectTable* table_of(const Op& op);
/// The spelling of `meaning` on `op`: its dialect table's, or fusecert's own
/// name when no table lists the op's dialect.
std::string key_of(const Op& op, const std::string& meaning);

}  // namespace fusecert::ir
