#include "verifier/ir/locality.h"

#include <functional>
#include <memory>

#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "verifier/smt/query.h"

namespace fusecert::ir {

std::string to_string(Locality l) {
  switch (l) {
    case Locality::Coordinate: return "coordinate";
    case Locality::Row: return "row";
    case Locality::Column: return "column";
    case Locality::Block: return "block";
    case Locality::Tensor: return "tensor";
    case Locality::Layer: return "layer";
    case Locality::Global: return "global";
  }
  return "?";
}

std::optional<Locality> parse_locality(const std::string& s) {
  for (Locality l : {Locality::Coordinate, Locality::Row, Locality::Column, Locality::Block, Locality::Tensor,
                     Locality::Layer, Locality::Global})
    if (to_string(l) == s) return l;
  return std::nullopt;
}

int rank(Locality l) {
  switch (l) {
    case Locality::Coordinate: return 0;
    case Locality::Row:
    case Locality::Column: return 1;
    case Locality::Block: return 2;
    case Locality::Tensor: return 3;
    case Locality::Layer: return 4;
    case Locality::Global: return 5;
  }
  return 5;
}

namespace {

z3::expr encode(z3::context& c, const AffineExpr& e, const std::vector<z3::expr>& dims) {
  using K = AffineExpr::Kind;
  switch (e.kind) {
    case K::Dim:
      if (e.value < 0 || static_cast<size_t>(e.value) >= dims.size())
        throw std::invalid_argument("affine map refers to d" + std::to_string(e.value) + " outside the iteration space");
      return dims[static_cast<size_t>(e.value)];
    case K::Symbol: return c.int_const(("s" + std::to_string(e.value)).c_str());
    case K::Const: return c.int_val(static_cast<int64_t>(e.value));
    case K::Add: return encode(c, *e.lhs, dims) + encode(c, *e.rhs, dims);
    case K::Mul: return encode(c, *e.lhs, dims) * encode(c, *e.rhs, dims);
    case K::FloorDiv: return encode(c, *e.lhs, dims) / encode(c, *e.rhs, dims);
    case K::CeilDiv: return -((-encode(c, *e.lhs, dims)) / encode(c, *e.rhs, dims));
    case K::Mod: return z3::mod(encode(c, *e.lhs, dims), encode(c, *e.rhs, dims));
  }
  throw std::invalid_argument("unknown affine expression");
}

/// Iteration point `tag` (x or y) within the loop bounds.
std::vector<z3::expr> point(z3::context& c, smt::Query& q, const LocalityProblem& p, const char* tag) {
  std::vector<z3::expr> xs;
  for (size_t d = 0; d < p.reduction.size(); ++d) {
    z3::expr x = c.int_const((std::string(tag) + std::to_string(d)).c_str());
    z3::expr n = p.dim_sizes[d] >= 0 ? c.int_val(static_cast<int64_t>(p.dim_sizes[d]))
                                     : c.int_const(("n" + std::to_string(d)).c_str());
    if (p.dim_sizes[d] < 0) q.add(n >= 1);
    q.add(x >= 0 && x < n);
    xs.push_back(x);
  }
  return xs;
}

std::vector<z3::expr> apply(z3::context& c, const AffineMap& m, const std::vector<z3::expr>& xs) {
  std::vector<z3::expr> r;
  for (auto& e : m.results) r.push_back(encode(c, e, xs));
  return r;
}

z3::expr same(z3::context& c, const std::vector<z3::expr>& a, const std::vector<z3::expr>& b) {
  z3::expr all = c.bool_val(true);
  for (size_t i = 0; i < a.size(); ++i) all = all && a[i] == b[i];
  return all;
}

void key_expr(const AffineExpr& e, std::string& k) {
  k += "(" + std::to_string(static_cast<int>(e.kind)) + ":" + std::to_string(e.value);
  if (e.lhs) key_expr(*e.lhs, k);
  if (e.rhs) key_expr(*e.rhs, k);
  k += ")";
}
void key_map(const AffineMap& m, std::string& k) {
  k += "[";
  for (auto& e : m.results) key_expr(e, k);
  k += "]";
}
/// A canonical key of the problem: equal keys give equal query texts, so the
/// text (and, through the solver cache, the answer) is built once.
std::string key(const LocalityProblem& p, const std::string& what) {
  std::string k = what + "|";
  for (bool b : p.reduction) k += b ? 'r' : 'p';
  for (auto d : p.dim_sizes) k += "," + std::to_string(d);
  k += "|g";
  key_map(p.grad_map, k);
  for (auto& m : p.out_maps) key_map(m, k);
  for (bool b : p.full_tiles) k += b ? 'F' : 'f';
  for (auto d : p.grad_sizes) k += "," + std::to_string(d);
  return k;
}
std::shared_ptr<const std::string> memo(const std::string& k, const std::function<std::string()>& build) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const std::string>> table;
  {
    std::lock_guard<std::mutex> l(mu);
    if (auto it = table.find(k); it != table.end()) return it->second;
  }
  auto v = std::make_shared<const std::string>(build());
  std::lock_guard<std::mutex> l(mu);
  return table.emplace(k, v).first->second;
}

void check_shape(const LocalityProblem& p) {
  if (p.dim_sizes.size() != p.reduction.size())
    throw std::invalid_argument("locality problem: loop bounds and iterator kinds disagree");
  if (p.grad_map.results.empty()) throw std::invalid_argument("locality problem: the gradient map has no results");
  if (p.out_maps.empty()) throw std::invalid_argument("locality problem: the consumer has no outputs");
}

}  // namespace

std::string build_locality(const LocalityProblem& p);
std::string build_spread(const LocalityProblem& p, unsigned r);

std::string locality_query(const LocalityProblem& p) { return *locality_query_shared(p); }

std::shared_ptr<const std::string> locality_query_shared(const LocalityProblem& p) {
  check_shape(p);
  return memo(key(p, "locality"), [&] { return build_locality(p); });
}

std::string build_locality(const LocalityProblem& p) {
  z3::context c;
  smt::Query q(c);
  auto xs = point(c, q, p, "x");
  auto ys = point(c, q, p, "y");
  auto gx = apply(c, p.grad_map, xs), gy = apply(c, p.grad_map, ys);
  const size_t R = gx.size();
  std::vector<z3::expr> T, o;
  for (size_t r = 0; r < R; ++r) {
    T.push_back(c.int_const(("T" + std::to_string(r)).c_str()));
    o.push_back(c.int_const(("o" + std::to_string(r)).c_str()));
    q.add(T[r] >= 1);
    if (r < p.full_tiles.size() && p.full_tiles[r]) {
      // The tile spans the whole gradient dimension r: origin ≤ 0, end ≥ extent.
      z3::expr ext = r < p.grad_sizes.size() && p.grad_sizes[r] >= 0
                         ? c.int_val(static_cast<int64_t>(p.grad_sizes[r]))
                         : c.int_const(("g" + std::to_string(r)).c_str());
      q.add(o[r] <= 0 && o[r] + T[r] >= ext);
      q.add(gx[r] < ext && gy[r] < ext);
    }
  }
  auto in_tile = [&](const std::vector<z3::expr>& a) {
    z3::expr in = c.bool_val(true);
    for (size_t r = 0; r < R; ++r) in = in && o[r] <= a[r] && a[r] < o[r] + T[r];
    return in;
  };
  z3::expr bad = c.bool_val(false);
  for (auto& om : p.out_maps) {
    auto ox = apply(c, om, xs), oy = apply(c, om, ys);
    if (ox.size() == R) bad = bad || (in_tile(ox) && !in_tile(gx));               // home
    bad = bad || (same(c, ox, oy) && in_tile(gx) && !in_tile(gy));                 // share
  }
  q.add(bad);
  return q.smt2();
}

std::string spread_query(const LocalityProblem& p, unsigned r) {
  check_shape(p);
  if (r >= p.grad_map.results.size()) throw std::invalid_argument("spread_query: no such gradient dimension");
  return *memo(key(p, "spread" + std::to_string(r)), [&] { return build_spread(p, r); });
}

std::string build_spread(const LocalityProblem& p, unsigned r) {
  z3::context c;
  smt::Query q(c);
  auto xs = point(c, q, p, "x");
  auto ys = point(c, q, p, "y");
  auto gx = apply(c, p.grad_map, xs), gy = apply(c, p.grad_map, ys);
  z3::expr any = c.bool_val(false);
  for (auto& om : p.out_maps) any = any || same(c, apply(c, om, xs), apply(c, om, ys));
  q.add(any && gx[r] != gy[r]);
  return q.smt2();
}

namespace {

std::string dag_key(const DagLocalityProblem& p, const std::string& what) {
  std::string k = what + "|" + std::to_string(p.grad_rank) + "|";
  for (auto d : p.dim_sizes) k += std::to_string(d) + ",";
  for (const auto& r : p.reads) {
    k += "|" + std::to_string(r.output) + ":";
    key_map(r.grad, k);
    key_map(r.out, k);
  }
  return k;
}

void check_dag(const DagLocalityProblem& p) {
  if (p.reads.empty()) throw std::invalid_argument("locality problem: no output reads the gradient");
  for (const auto& r : p.reads)
    if (r.grad.results.size() != p.grad_rank)
      throw std::invalid_argument("locality problem: a read's gradient map is not of the gradient's rank");
  for (auto d : p.dim_sizes)
    if (d < 1) throw std::invalid_argument("locality problem: an iteration dimension of extent < 1");
}

/// x and y over every dimension, within bounds.
std::vector<z3::expr> dag_point(z3::context& c, smt::Query& q, const DagLocalityProblem& p, const char* tag) {
  std::vector<z3::expr> xs;
  for (size_t d = 0; d < p.dim_sizes.size(); ++d) {
    z3::expr x = c.int_const((std::string(tag) + std::to_string(d)).c_str());
    q.add(x >= 0 && x < c.int_val(static_cast<int64_t>(p.dim_sizes[d])));
    xs.push_back(x);
  }
  return xs;
}

}  // namespace

std::shared_ptr<const std::string> dag_locality_query(const DagLocalityProblem& p) {
  check_dag(p);
  return memo(dag_key(p, "dag-locality"), [&] {
    z3::context c;
    smt::Query q(c);
    auto xs = dag_point(c, q, p, "x");
    auto ys = dag_point(c, q, p, "y");
    const size_t R = p.grad_rank;
    std::vector<z3::expr> T, o;
    for (size_t r = 0; r < R; ++r) {
      T.push_back(c.int_const(("T" + std::to_string(r)).c_str()));
      o.push_back(c.int_const(("o" + std::to_string(r)).c_str()));
      q.add(T[r] >= 1);
    }
    auto in_tile = [&](const std::vector<z3::expr>& a) {
      z3::expr in = c.bool_val(true);
      for (size_t r = 0; r < R; ++r) in = in && o[r] <= a[r] && a[r] < o[r] + T[r];
      return in;
    };
    z3::expr bad = c.bool_val(false);
    for (const auto& a : p.reads) {
      auto ox = apply(c, a.out, xs), gx = apply(c, a.grad, xs);
      if (ox.size() == R) bad = bad || (in_tile(ox) && !in_tile(gx));  // home
      for (const auto& b : p.reads) {
        if (b.output != a.output) continue;
        auto oy = apply(c, b.out, ys), gy = apply(c, b.grad, ys);
        bad = bad || (same(c, ox, oy) && in_tile(gx) && !in_tile(gy));  // share
      }
    }
    q.add(bad);
    return q.smt2();
  });
}

std::string dag_spread_query(const DagLocalityProblem& p, unsigned r) {
  check_dag(p);
  if (r >= p.grad_rank) throw std::invalid_argument("dag_spread_query: no such gradient dimension");
  return *memo(dag_key(p, "dag-spread" + std::to_string(r)), [&] {
    z3::context c;
    smt::Query q(c);
    auto xs = dag_point(c, q, p, "x");
    auto ys = dag_point(c, q, p, "y");
    z3::expr any = c.bool_val(false);
    for (const auto& a : p.reads)
      for (const auto& b : p.reads)
        if (a.output == b.output)
          any = any || (same(c, apply(c, a.out, xs), apply(c, b.out, ys)) &&
                        apply(c, a.grad, xs)[r] != apply(c, b.grad, ys)[r]);
    q.add(any);
    return q.smt2();
  });
}

Locality classify(const std::vector<bool>& spreads) {
  if (spreads.size() != 2) {
    bool anyv = false;
    for (bool b : spreads) anyv = anyv || b;
    return anyv ? Locality::Tensor : Locality::Block;
  }
  if (spreads[0] && spreads[1]) return Locality::Tensor;
  if (spreads[1]) return Locality::Row;
  if (spreads[0]) return Locality::Column;
  return Locality::Block;
}

LocalityProblem problem_for(Locality l, const std::vector<int64_t>& shape) {
  using K = AffineExpr::Kind;
  auto D = AffineExpr::dim;
  int64_t M = shape.size() > 0 ? shape[0] : -1, N = shape.size() > 1 ? shape[1] : -1;
  LocalityProblem p;
  AffineMap out;
  out.results = {D(0), D(1)};
  switch (l) {
    case Locality::Coordinate:
      p.reduction = {false, false};
      p.dim_sizes = {M, N};
      p.grad_map.results = {D(0), D(1)};
      break;
    case Locality::Row:
      p.reduction = {false, false, true};
      p.dim_sizes = {M, N, N};
      p.grad_map.results = {D(0), D(2)};
      break;
    case Locality::Column:
      p.reduction = {false, false, true};
      p.dim_sizes = {M, N, M};
      p.grad_map.results = {D(2), D(1)};
      break;
    case Locality::Block: {
      p.reduction = {false, false, true};
      p.dim_sizes = {M, N, 128};
      AffineExpr base = AffineExpr::bin(K::Add, D(0),
                                        AffineExpr::bin(K::Mul, AffineExpr::bin(K::Mod, D(0), AffineExpr::cst(128)),
                                                        AffineExpr::cst(-1)));
      p.grad_map.results = {AffineExpr::bin(K::Add, base, D(2)), D(1)};
      break;
    }
    case Locality::Tensor:
    case Locality::Layer:
    case Locality::Global:
      p.reduction = {false, false, true, true};
      p.dim_sizes = {M, N, M, N};
      p.grad_map.results = {D(2), D(3)};
      break;
  }
  p.grad_sizes = {M, N};
  p.grad_map.num_dims = static_cast<unsigned>(p.reduction.size());
  out.num_dims = p.grad_map.num_dims;
  p.out_maps = {out};
  return p;
}

}  // namespace fusecert::ir
