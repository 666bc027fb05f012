// `fusecert kernels evidence [--format text|json]`
// `fusecert kernels bench [--shapes NxHxBT,...] [--reps R] [--format text|json]
//                          [--torch FILE] [--previous FILE] [--previous-torch FILE]`
// `fusecert kernels evidence|bench --distributed [--ranks R]` (P3 over NCCL, JSON only)
// Runs the hardware evidence rows / the benchmark of the CUDA kernels by
// exec'ing the `fusecert-kernels` runner (built from kernels/ when nvcc is
// present; found next to this binary or through $FUSECERT_KERNELS_RUNNER).
// Arguments are validated here (usage errors exit 2 before the runner is
// looked up): --ranks 1..16 and only with --distributed; --reps >= 1;
// --shapes/--reps/--format text not with --distributed (its output is JSON).
// `evidence --distributed` adds P3's checker to the runner's JSON: the
// reduce-into-state steps the GPUs ran, written as IR (p3_checker_inputs.h),
// are certified here — the affine momentum state must be legal and AdamW's v
// on per-rank partials must be refused — under the key "checker".
// Exit: the runner's (0 pass, 1 a row failed, 2 usage, no runner or no GPU);
// 1 also when the checker does not answer as expected. Fail closed
// (kernels_evidence.h): evidence output that is missing, malformed, partial
// or disagrees with the runner's exit status, a runner that crashed or could
// not be run, is 2 with a `[kernels.runner]` error.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/fusecert/commands.h"
#include "tools/fusecert/kernels_evidence.h"
#include "tools/fusecert/p3_checker_inputs.h"
#include "verifier/cert/certify.h"

namespace fusecert::cli {

namespace {

struct KernelsArgs {
  std::string format = "text", shapes;
  std::string torch, previous, previous_torch;  // baseline documents, forwarded (bench only)
  int reps = 0, ranks = 0;  // 0: not given, the runner's default (20 reps, 2 ranks)
  bool distributed = false;
};

std::filesystem::path find_runner() {
  if (const char* env = std::getenv("FUSECERT_KERNELS_RUNNER")) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path() / "fusecert-kernels";
}

/// Runs the runner; with `capture`, its stdout is read into the outcome
/// instead of going to ours. Returns how it ended (kernels_evidence.h); a
/// runner that is not built is reported here (ran = false, why empty).
kernels::RunnerOutcome run_runner(const std::string& sub, const KernelsArgs& a, bool capture) {
  kernels::RunnerOutcome res;
  const std::filesystem::path runner = find_runner();
  if (runner.empty() || !std::filesystem::exists(runner)) {
    fail_with("fusecert kernels " + sub, "kernels.runner",
              "the CUDA kernels are not built (no fusecert-kernels runner at '" + runner.string() +
                  "'; configure with nvcc available, or set FUSECERT_KERNELS_RUNNER). They need "
                  "a CUDA GPU to run. Nothing was run.");
    return res;
  }
  // The options were validated by CLI11 (add_kernels_command): a value of 0
  // here only means "not given".
  std::vector<std::string> args = {runner.string(), sub};
  if (!a.distributed) args.insert(args.end(), {"--format", a.format});
  if (!a.shapes.empty()) args.insert(args.end(), {"--shapes", a.shapes});
  if (a.reps > 0) args.insert(args.end(), {"--reps", std::to_string(a.reps)});
  if (!a.torch.empty()) args.insert(args.end(), {"--torch", a.torch});
  if (!a.previous.empty()) args.insert(args.end(), {"--previous", a.previous});
  if (!a.previous_torch.empty()) args.insert(args.end(), {"--previous-torch", a.previous_torch});
  if (a.distributed) args.push_back("--distributed");
  if (a.ranks > 0) args.insert(args.end(), {"--ranks", std::to_string(a.ranks)});
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  int fds[2] = {-1, -1};
  if (capture && pipe(fds) != 0) {
    res.why = std::string("pipe: ") + std::strerror(errno);
    return res;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    res.why = std::string("fork: ") + std::strerror(errno);
    return res;
  }
  if (pid == 0) {
    if (capture) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
    }
    execv(argv[0], argv.data());
    fail_with("fusecert kernels " + sub, "kernels.runner", runner.string() + ": cannot run: " + std::strerror(errno));
    std::cerr.flush();
    _exit(127);
  }
  if (capture) {
    close(fds[1]);
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) res.out.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
  }
  int status = 0;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (w < 0) {
    res.why = std::string("waitpid: ") + std::strerror(errno);
    return res;
  }
  res.ran = true;
  if (WIFEXITED(status)) res.status = WEXITSTATUS(status);
  else res.signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
  return res;
}

/// The runner was not built (already reported), or `bad`: reports it; 2.
int refused(const std::string& sub, const kernels::RunnerOutcome& r, const std::optional<diag::Diagnostic>& bad) {
  if (!r.ran && r.why.empty()) return diag::code(diag::Exit::InputError);  // not built: said above
  // The runner's output was printed as it wrote it: one cut short of its
  // last newline still leaves the diagnostic on a line of its own.
  if (!r.out.empty() && r.out.back() != '\n') std::cout << '\n';
  std::cout.flush();
  report("fusecert kernels " + sub, *bad);
  return diag::code(diag::Exit::InputError);
}

/// `evidence` (one GPU): the runner's output, printed as it wrote it, is a
/// pass only when it is a complete evidence document that agrees with the
/// runner's exit status (kernels_evidence.h).
int run_evidence(const KernelsArgs& a) {
  const kernels::RunnerOutcome r = run_runner("evidence", a, true);
  std::cout << r.out << std::flush;
  if (!r.ran && r.why.empty()) return diag::code(diag::Exit::InputError);
  if (auto bad = kernels::check_evidence(a.format, r)) return refused("evidence", r, bad);
  return r.status;
}

/// `bench` (and `bench --distributed`): the runner's output goes through as
/// it writes it; a runner that crashed or ended outside its table is an error.
int run_bench(const KernelsArgs& a) {
  const kernels::RunnerOutcome r = run_runner("bench", a, false);
  if (!r.ran && r.why.empty()) return diag::code(diag::Exit::InputError);
  if (r.ran && r.signal == 0 && r.status == 2) return 2;  // its usage error or setup failure, as it said
  if (auto bad = kernels::check_ended(r)) return refused("bench", r, bad);
  return r.status;
}

/// P3's checker on the embedded reduce-into-state steps (P3 guard,
/// docs/ir-checking.md): every candidate of the affine input legal, every
/// reduced candidate of the AdamW-v input illegal with a failed P3
/// obligation, and each input holding at least one reduced candidate.
nlohmann::ordered_json p3_checker(unsigned timeout_ms, bool* as_expected) {
  using nlohmann::ordered_json;
  ordered_json inputs = ordered_json::array();
  bool all = true;
  for (const P3CheckerInput& in : kP3CheckerInputs) {
    const cert::InputReport r = cert::certify_text(in.text, in.name, timeout_ms);
    const bool want_legal = std::string(in.expected) == "legal";
    bool ok = r.parsed && !r.candidates.empty();
    int reduced = 0;
    ordered_json cands = ordered_json::array();
    for (const auto& c : r.candidates) {
      ordered_json obls = ordered_json::array();
      bool p3_failed = false;
      for (const auto& o : c.obligations)
        if (o.proposition == "P3") {
          obls.push_back({{"id", o.id}, {"expected", o.expected}, {"answer", o.answer}});
          p3_failed = p3_failed || !o.holds();
        }
      ordered_json jc{{"function", c.function}, {"verdict", c.verdict}, {"p3_obligations", obls}};
      if (c.counterexample) {
        ordered_json vals = ordered_json::object();
        for (const auto& v : c.counterexample->values) vals[v.name] = v.value;
        jc["counterexample"] = {{"obligation", c.counterexample->obligation},
                                {"summary", c.counterexample->summary}, {"values", vals}};
      }
      cands.push_back(jc);
      if (!obls.empty()) ++reduced;
      ok = ok && (want_legal ? c.verdict == "legal"
                             : (obls.empty() || (c.verdict == "illegal" && p3_failed)));
    }
    // The refused input must carry error diagnostics; the legal one none.
    ok = ok && reduced > 0 && r.has_errors() == !want_legal;
    all = all && ok;
    inputs.push_back({{"input", in.name}, {"step", in.what}, {"expected", in.expected},
                      {"candidates", cands}, {"as_expected", ok}});
  }
  *as_expected = all;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"tool", "fusecert certify (guard P3.reduce_into_state)"},
          {"solver", "z3 " + cert::z3_version()},
          {"date", date},
          {"inputs", inputs},
          {"refuses_adamw_v_on_partials", all},
          {"passed", all}};
}

/// `evidence --distributed`: the runner's JSON plus the checker section.
int run_distributed_evidence(const KernelsArgs& a) {
  const kernels::RunnerOutcome r = run_runner("evidence", a, true);
  if (!r.ran && r.why.empty()) return diag::code(diag::Exit::InputError);
  if (auto bad = kernels::check_distributed(r)) {  // fail closed: a "pass" nobody can read is no pass
    std::cout << r.out << std::flush;  // as the runner wrote it (a setup failure's {"error"})
    return refused("evidence", r, bad);
  }
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(r.out);
  bool checker_ok = false;
  doc["checker"] = p3_checker(30000, &checker_ok);
  const bool runner_ok = r.status == 0 && doc["passed"].get<bool>();
  doc["passed"] = runner_ok && checker_ok;
  std::cout << doc.dump(2) << "\n" << std::flush;
  return runner_ok && checker_ok ? 0 : 1;
}

}  // namespace

void add_kernels_command(CLI::App& app, int& exit_code) {
  auto* k = app.add_subcommand(
      "kernels", "hardware evidence and benchmark of the fused wgrad+optimizer CUDA kernels");
  k->require_subcommand(1);
  auto args = std::make_shared<KernelsArgs>();
  // An unknown subcommand name (`fusecert kernels foo`) lands in this hidden
  // positional, whose callback refuses it by name (option callbacks run
  // before CLI11's generic "A subcommand is required").
  k->add_option_function<std::string>(
       "subcommand",
       [](const std::string& name) {
         throw CLI::ValidationError("unknown subcommand '" + name +
                                    "' of `fusecert kernels` (expected evidence or bench)");
       })
      ->group("");

  // Options shared by both subcommands; `--distributed` writes JSON only, so an
  // explicit `--format text` with it is refused rather than silently ignored.
  const auto add_common = [&args, &exit_code](CLI::App* sub, const char* name,
                                               const char* distributed_help) {
    auto* format = sub->add_option("--format", args->format, "text or json")
                       ->check(CLI::IsMember({"text", "json"}));
    auto* dist = sub->add_flag("--distributed", args->distributed, distributed_help);
    sub->add_option("--ranks", args->ranks,
                    "processes = GPUs for --distributed, 1..16 (default 2)")
        ->check(CLI::Range(1, 16))
        ->needs(dist);
    sub->callback([args, format, name, &exit_code] {
      if (args->distributed && format->count() > 0 && args->format != "json")
        throw CLI::ValidationError("--format",
                                   "--distributed writes JSON only; drop --format or use --format json");
      exit_code = std::string(name) == "bench"  ? run_bench(*args)
                  : args->distributed             ? run_distributed_evidence(*args)
                                                  : run_evidence(*args);
    });
    return dist;
  };

  auto* ev = k->add_subcommand("evidence", "run the four evidence rows on the GPU (P1, P8, P6)");
  add_common(ev, "evidence", "P3 on several GPUs: reduce-into-state over NCCL reduce-scatter (JSON)");

  auto* b = k->add_subcommand("bench", "time the fused kernel against cuBLAS + optimizer");
  auto* bdist = add_common(
      b, "bench", "P3 benchmark: reduce-into-state vs data-parallel, per-rank memory and time (JSON)");
  b->add_option("--shapes", args->shapes, "comma-separated NxHxBT (default: the 9 spec shapes)")
      ->excludes(bdist);
  b->add_option("--reps", args->reps, "timed runs per measurement (median), 1..1000000 (default 20)")
      ->check(CLI::Range(1, 1000000))
      ->excludes(bdist);
  // The runner reads and checks these documents (a malformed one is its usage error).
  b->add_option("--torch", args->torch,
                "this batch's PyTorch baseline (bench/kernels/torch_baseline.py JSON): ratio vs PyTorch")
      ->check(CLI::ExistingFile)
      ->excludes(bdist);
  b->add_option("--previous", args->previous,
                "the previous run's bench JSON: its unfused times printed beside this run's")
      ->check(CLI::ExistingFile)
      ->excludes(bdist);
  b->add_option("--previous-torch", args->previous_torch,
                "the previous run's PyTorch baseline JSON, printed beside this run's")
      ->check(CLI::ExistingFile)
      ->excludes(bdist);
}

}  // namespace fusecert::cli
