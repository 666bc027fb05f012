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

namespace fusecert::ir {

/// What an op is, as far as the guards are concerned.
enum class OpRole { Contraction, Optimizer, Fused, Add, Clip, Decay, Collective };
std::string to_string(OpRole r);

/// The kind of an attribute value.
enum class AttrKind { Unit, Bool, Int, Index, Float, String, Symbol, Dtype, Dict };
std::string to_string(AttrKind k);

/// The kinds one key may take; for a dictionary, the kinds of its keys.
struct KeySpec {
  std::vector<AttrKind> kinds;
  std::map<std::string, KeySpec> entries;  ///< AttrKind::Dict only
};

struct OpSpec {
  std::string name;                       ///< full name, "tessera.adamw"
  OpRole role = OpRole::Optimizer;
  std::vector<std::string> operands;      ///< role of each operand ("W", "g", "m", ...)
  std::vector<std::string> results;       ///< role of each result ("W1", "m1", ...)
  std::string body;                       ///< reference update ("adamw", "sgd", "momentum"); empty = opaque
  std::vector<std::string> hyper;         ///< hyper-parameter keys the body reads
  std::map<std::string, KeySpec> attrs;   ///< every key the op takes (attrs_of merged in)
  /// Operand position of role `r`, or -1.
  int operand(const std::string& r) const;
};

struct DialectTable {
  std::string dialect;                    ///< op-name prefix without the dot ("tessera")
  std::string source;                     ///< where it was read from (for diagnostics)
  std::map<std::string, std::string> dtypes;  ///< spelling -> f64 | f32 | bf16 | f16
  std::map<std::string, OpSpec> ops;      ///< by full name
  const OpSpec* find(const std::string& op_name) const;
  /// The dtype a spelling names ("fp32" -> "f32"), or nullopt.
  std::optional<std::string> dtype(const std::string& spelling) const;
};

/// Parses one table. Throws std::invalid_argument naming `source` and the
/// entry for anything it does not know (an unknown role, kind or field):
/// the table is data, and a misspelt table must not mean "no semantics".
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

 private:
  std::vector<DialectTable> tables_;
};

/// The built-in tables (parsed once; thread-safe).
const DialectTables& builtin_dialects();

}  // namespace fusecert::ir
