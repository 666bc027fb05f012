#include "verifier/smt/query.h"

#include <z3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "support/sha256.h"
#include "verifier/smt/cache.h"
#include "verifier/smt/values.h"
#include "verifier/smt/whitelist.h"

namespace fusecert::smt {

std::string Query::smt2() const {
  z3::solver s(ctx_);
  for (unsigned i = 0; i < asserts_.size(); ++i) s.add(asserts_[i]);
  return s.to_smt2();
}

namespace {

ModelValue render(z3::context& c, const z3::model& m, const z3::func_decl& d) {
  ModelValue mv;
  mv.name = d.name().str();
  z3::sort s = d.range();
  mv.sort = s.to_string();
  z3::expr v = m.get_const_interp(d);
  if (s.is_fpa()) {
    unsigned eb = Z3_fpa_get_ebits(c, s), sb = Z3_fpa_get_sbits(c, s);
    auto bits = fp_numeral_bits(v, eb, sb);
    if (bits) {
      mv.bits = hex_bits(*bits, eb + sb);
      mv.value = format_fp(decode_fp(*bits, eb, sb));
    } else {
      mv.value = v.to_string();
    }
  } else if (s.is_real() || s.is_int()) {
    if (v.is_numeral() || v.is_algebraic())
      mv.value = v.get_decimal_string(12);
    else
      mv.value = v.to_string();
  } else {
    mv.value = v.to_string();
  }
  return mv;
}

// Lock-free, so setting it from a signal handler is safe.
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free);

constexpr char kInterrupted[] = "interrupted: the solve was stopped before it answered (Ctrl-C)";

}  // namespace

void request_interrupt() { g_interrupt.store(true, std::memory_order_relaxed); }
void clear_interrupt() { g_interrupt.store(false, std::memory_order_relaxed); }
bool interrupt_requested() { return g_interrupt.load(std::memory_order_relaxed); }

std::string premises_smt2(const std::string& text) {
  z3::context c;
  z3::solver s(c);
  s.from_string(text.c_str());
  z3::expr_vector all = s.assertions();
  z3::solver p(c);
  for (unsigned i = 0; i + 1 < all.size(); ++i) p.add(all[i]);
  return p.to_smt2();
}

bool decided(const CheckResult& r) {
  return r.answer == Answer::Sat || (r.answer == Answer::Unsat && r.premises == Answer::Sat);
}

namespace {
CheckResult solve_one(const std::string& text, unsigned timeout_ms);
}  // namespace

CheckResult solve_smt2(const std::string& text, unsigned timeout_ms) {
  // Only declarations, definitions, assertions and a check-sat reach Z3
  // (verifier/smt/whitelist.h): Z3's from_string runs every command it
  // parses, set-option :regular-output-channel and echo included.
  if (auto why = whitelist_problem(text, CheckSats::at_most_one)) {
    CheckResult r;
    r.answer = Answer::Error;
    r.reason = "refused before solving: " + *why;
    return r;
  }
  const std::string key = support::sha256_hex(text + "\n;timeout=" + std::to_string(timeout_ms));
  if (auto hit = cache_lookup(key)) return *hit;
  CheckResult r = solve_one(text, timeout_ms);
  if (r.answer == Answer::Unsat) {
    // Non-vacuity: an unsat answer proves the claim only if the premises can
    // hold at all; contradictory premises make every claim "unsat".
    std::string ptext;
    try {
      ptext = premises_smt2(text);
    } catch (const z3::exception& e) {
      r.premises = Answer::Error;
      r.premises_reason = std::string("the premises could not be separated from the query: ") + e.msg();
    }
    // The premise text is Z3's own printing of whitelisted assertions; it
    // still passes the whitelist before any solver parses it.
    if (!r.premises) {
      if (auto why = whitelist_problem(ptext, CheckSats::at_most_one)) {
        r.premises = Answer::Error;
        r.premises_reason = "the premise query was refused before solving: " + *why;
      }
    }
    if (!r.premises) {
      CheckResult p = solve_one(ptext, timeout_ms);
      r.premises = p.answer;
      r.time_ms += p.time_ms;
      if (p.answer == Answer::Unsat)
        r.premises_reason = "vacuous: the premises alone are unsat, so the unsat answer proves nothing";
      else if (p.answer != Answer::Sat)
        r.premises_reason = "the premise check answered " + std::string(to_string(p.answer)) +
                            (p.reason.empty() ? "" : " (" + p.reason + ")");
    }
  }
  if (r.answer != Answer::Unsat || (r.premises && is_definite(*r.premises))) cache_store(key, r);
  return r;
}

namespace {
CheckResult solve_one(const std::string& text, unsigned timeout_ms) {
  CheckResult r;
  auto t0 = std::chrono::steady_clock::now();
  if (interrupt_requested()) {
    r.answer = Answer::Timeout;
    r.reason = kInterrupted;
    return r;
  }
  try {
    z3::context c;
    z3::solver s(c);
    // The limit is our own watchdog calling Z3_interrupt, not Z3's "timeout"
    // parameter: Z3 4.8.12's thread-pool scoped_timer can deadlock (both
    // threads on its mutex) when a short timer fires as the check ends —
    // `certify --timeout-ms 1` hung forever (tests/failclosed certify_timeout;
    // Z3Prover/z3#5370, #5990). An interrupted check answers unknown; the
    // watchdog records whether the deadline or the user (Ctrl-C) stopped it.
    // Z3 would otherwise install its own SIGINT handler during check and
    // answer "unknown (interrupted from keyboard)": Ctrl-C is the caller's
    // (request_interrupt), and reaches Z3 through the watchdog below.
    s.set("ctrl_c", false);
    s.from_string(text.c_str());
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    // The watchdog interrupts Z3 at the deadline, or within 25 ms of a
    // request_interrupt(), whichever comes first — and again every 10 ms
    // until the check returns: Z3_interrupt only reaches a check that is
    // running, so one issued before s.check() starts (the deadline of
    // `validate --timeout-ms 1` passes while the query is set up) was lost
    // and the check ran unbounded.
    enum class Stopped { no, deadline, user } stopped = Stopped::no;  // written under mu
    std::thread watchdog([&] {
      const auto deadline = t0 + std::chrono::milliseconds(timeout_ms);
      std::unique_lock<std::mutex> lk(mu);
      while (!done) {
        auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(stopped == Stopped::no ? 25 : 10);
        if (timeout_ms > 0 && stopped == Stopped::no) next = std::min(next, deadline);
        if (cv.wait_until(lk, next, [&] { return done; })) return;
        if (stopped != Stopped::no) {
          c.interrupt();
          continue;
        }
        const bool user = interrupt_requested();
        if (user || (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline)) {
          stopped = user ? Stopped::user : Stopped::deadline;
          c.interrupt();
        }
      }
    });
    struct Stop {  // stops and joins the watchdog right after check, and on a throw
      std::mutex& mu; std::condition_variable& cv; bool& done; std::thread& t;
      void operator()() {
        { std::lock_guard<std::mutex> lk(mu); done = true; }
        cv.notify_all();
        if (t.joinable()) t.join();
      }
      ~Stop() { (*this)(); }
    } stop{mu, cv, done, watchdog};
    z3::check_result cr = s.check();
    stop();
    // The limit is a deadline on the whole solve, from context creation
    // through parsing to the answer: an answer that arrives after it is
    // discarded as a timeout. Without this, whether `--timeout-ms 1` fires
    // depended on when the watchdog thread was first scheduled (on a fast,
    // busy CI machine a 10 ms check finished first and a candidate came out
    // legal; tests/failclosed certify_timeout).
    const double spent = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (timeout_ms > 0 && spent > timeout_ms && cr != z3::unknown) {
      r.answer = Answer::Timeout;
      r.reason = "timeout: the answer arrived after the " + std::to_string(timeout_ms) + " ms deadline";
    } else if (cr == z3::sat) {
      r.answer = Answer::Sat;
      z3::model m = s.get_model();
      for (unsigned i = 0; i < m.num_consts(); ++i) r.model.push_back(render(c, m, m.get_const_decl(i)));
      std::sort(r.model.begin(), r.model.end(),
                [](const ModelValue& a, const ModelValue& b) { return a.name < b.name; });
    } else if (cr == z3::unsat) {
      r.answer = Answer::Unsat;
    } else {
      r.reason = s.reason_unknown();
      bool limit = r.reason.find("timeout") != std::string::npos ||
                   r.reason.find("canceled") != std::string::npos ||
                   r.reason.find("interrupted") != std::string::npos ||
                   r.reason.find("resource") != std::string::npos;
      r.answer = limit ? Answer::Timeout : Answer::Unknown;
      if (stopped == Stopped::user) {
        r.answer = Answer::Timeout;
        r.reason = kInterrupted;
      } else if (stopped == Stopped::deadline) {
        r.answer = Answer::Timeout;
        r.reason = "timeout: no answer within the " + std::to_string(timeout_ms) + " ms deadline";
      }
    }
  } catch (const z3::exception& e) {
    r.answer = Answer::Error;
    r.reason = e.msg();
  }
  r.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}
}  // namespace

}  // namespace fusecert::smt
