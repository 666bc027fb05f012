// Helpers shared by the proposition encoders: parameter lookup, discharging
// an obligation through verifier/smt, and the verdict rules.
#pragma once
#include <z3++.h>

#include <map>
#include <string>
#include <vector>

#include "verifier/core/result.h"
#include "verifier/core/spec.h"
#include "verifier/model/hyper.h"
#include "verifier/prover.h"
#include "verifier/smt/query.h"

namespace fusecert::verifier::props {

/// Value of parameter `name`; throws std::invalid_argument if the
/// proposition's spec declares no such parameter (fail closed).
double param(const std::map<std::string, Param>& ps, const std::string& name);
/// Integer parameter; throws if not a whole number within [lo, hi].
long iparam(const std::map<std::string, Param>& ps, const std::string& name, long lo, long hi);
/// The real parameter `name`, checked to lie in the interval from `lo` to `hi`
/// (closed or open at each end as `lo_closed` / `hi_closed` say); throws
/// std::invalid_argument naming the interval otherwise (a value outside a
/// parameter's meaning, e.g. a clip scale c = 2, proves nothing about clipping).
double rparam(const std::map<std::string, Param>& ps, const std::string& name, double lo, bool lo_closed, double hi,
              bool hi_closed);

/// Optimizer hyper-parameters from the parameters beta1, beta2, eps, lam, lr,
/// mu, step (each only if declared; defaults otherwise).
model::Hyper hyper_from(const std::map<std::string, Param>& ps);

/// Solves `q` and appends an Obligation (id, claim, scope, SMT-LIB2,
/// the expected answer and the solver's, time, model) to `out`; returns a reference to
/// it. Every obligation states its scope (theory, symbolic, fixed, and for a
/// sanity check why it holds by construction).
Obligation& discharge(PropositionResult& out, const std::string& id, const std::string& claim, Scope scope,
                      const smt::Query& q, smt::Answer expected, unsigned timeout_ms);

/// The same for a query already rendered to SMT-LIB2 text.
Obligation& discharge(PropositionResult& out, const std::string& id, const std::string& claim, Scope scope,
                      const std::string& smt2, smt::Answer expected, unsigned timeout_ms);

/// "beta1 = 0.9, beta2 = 0.999" for the named parameters, as given (for a scope's `fixed`).
std::string fixed_params(const std::map<std::string, Param>& ps, const std::vector<std::string>& names);

/// Looks a model value up by constant name; throws if absent.
const smt::ModelValue& model_value(const Obligation& ob, const std::string& name);
/// The double value of a model entry (decimal text, or decoded FP bits).
double model_double(const Obligation& ob, const std::string& name);

/// Counterexample skeleton from a sat obligation.
Counterexample counterexample_from(const Obligation& ob, const std::string& summary);

/// Fills result.witness figures from `values` using the spec's figure ranges;
/// figures the spec does not declare are an error (std::logic_error).
void set_witness(PropositionResult& out, const PropositionSpec& spec, const std::string& protocol,
                 const std::map<std::string, double>& values, bool params_overridden);

/// "%.6g".
/// Shortest decimal that reads back as the same double (std::to_chars): for
/// counterexample replays, whose two values may differ only past 6 digits.
std::string fmt_exact(double x);
std::string fmt(double x);

}  // namespace fusecert::verifier::props
