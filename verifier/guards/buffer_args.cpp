// P7 guard, distinct buffer arguments: a bufferized function read as the
// tensor program it computes (verifier/ir/unbufferize.h) computes that
// program only when no two of its memref arguments share an element. A
// caller may pass one buffer twice (W and the gradient buffer, m and v);
// then a write through one argument changes what another reads, and the
// tensor reading, which gives every argument its own value, is another
// program. The IR shows the fact only as kNoAliasArgAttr on every written
// argument; otherwise it is the assumption `buffer_args = distinct`, and
// without it no guard reasons about the tensor reading: inconclusive.
#include <string>

#include "verifier/guards/assumptions.h"
#include "verifier/guards/guards.h"

namespace fusecert::guards {

namespace {
std::string numbered(const std::vector<unsigned>& args) {
  std::string s = args.size() == 1 ? "argument" : "arguments";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", #" : " #") + std::to_string(args[i]);
  return s;
}
}  // namespace

bool guard_buffer_args(GuardContext& g) {
  const ir::Func& f = g.m.funcs[g.c.func];
  if (!f.buffer_args) return true;
  const ir::BufferArgs& a = *f.buffer_args;
  const std::string id = "P7.buffer_args";
  const std::string claim = "no two of the " + std::to_string(a.count) + " buffer arguments of @" + f.name +
                            " share an element, so it computes the tensor program it is read as";
  const std::string written = "buffer " + numbered(a.written);
  if (a.noalias) {
    g.structural(id, claim, "holds", "shown: every written " + written + " carries " + ir::kNoAliasArgAttr);
    return true;
  }
  if (g.use_assumption("buffer_args", "P7", id, f.loc,
                       "@" + f.name + " writes " + written + ", and the IR does not show that no other argument "
                       "shares its elements")) {
    g.structural(id, claim, "holds", "assumed buffer_args = distinct (" + assumption_source("buffer_args") + ")");
    return true;
  }
  g.structural(id, claim, "missing",
               "@" + f.name + " writes " + written + "; no " + ir::kNoAliasArgAttr +
                   " on each written one, and no assumption buffer_args");
  auto& d = g.warning("P7", id, f.loc,
                      "@" + f.name + " is read as the tensor program it computes only if its " +
                          std::to_string(a.count) + " buffer arguments are distinct buffers: it writes " + written +
                          ", and a caller may pass one buffer twice; the IR does not show it and nothing assumes "
                          "it, so no guard runs and the candidate is inconclusive");
  d.notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
  d.notes.push_back({f.loc, "assume it with --assume buffer_args=distinct (or buffer_args: distinct under ir.assume: "
                            "in .fusecert.yaml), or state it as " + std::string(ir::kNoAliasArgAttr) +
                            " on every written buffer argument"});
  return false;
}

}  // namespace fusecert::guards
