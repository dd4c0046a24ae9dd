#include "run_stop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "problem_json.h"

namespace ipusim::cli {
namespace {

// The signal handler's view: a lock-free atomic store is all it does.
std::atomic<bool>* g_interrupt = nullptr;

extern "C" void on_sigint(int) {
  if (g_interrupt) g_interrupt->store(true, std::memory_order_release);
}

constexpr size_t kListed = 8;  // tiles (or places) printed before summarising

std::string place(const platform::RunningTile& t) {
  std::string s = fmt::format("pc 0x{:08x}", t.pc);
  if (!t.function.empty()) s += " in " + t.function;
  return s;
}

}  // namespace

double timeout_seconds(const std::optional<std::string>& given) {
  if (!given) return 0;
  const std::string& text = *given;
  char* end = nullptr;
  const double s = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e9)
    throw std::invalid_argument(
        fmt::format("--timeout '{}': not a positive number of seconds (e.g. 2 or 0.5; leave the option out for "
                    "no timeout)",
                    text));
  return s;
}

RunInterrupts::RunInterrupts(platform::RunBudget& budget, double timeout) : budget_(budget) {
  g_interrupt = &budget.interrupt_flag();
  struct sigaction sa{};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C kills at once
  sigaction(SIGINT, &sa, nullptr);
  if (timeout > 0)
    watchdog_ = std::thread([this, timeout] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(timeout), [this] { return done_; })) return;
      timed_out_.store(true);
      budget_.interrupt();
    });
}

ElaborationDeadline::ElaborationDeadline(double timeout, std::string system) {
  if (timeout <= 0) return;
  watchdog_ = std::thread([this, timeout, system = std::move(system)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::duration<double>(timeout), [this] { return done_; })) return;
    std::fprintf(stderr, "ipusim: timeout: %s was still being elaborated after --timeout %g s; nothing ran\n",
                 system.c_str(), timeout);
    std::fflush(stderr);
    std::_Exit(kTimeoutStatus);
  });
}

ElaborationDeadline::~ElaborationDeadline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

RunInterrupts::~RunInterrupts() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  std::signal(SIGINT, SIG_DFL);
  g_interrupt = nullptr;
}


StopReason stop_reason(const platform::RunResult& result, bool timed_out) {
  if (!result.end.stopped()) return StopReason::None;
  // A console that could not be written wins over a budget, a timeout or Ctrl-C that
  // ended the same run: its status (5) and its line are the ones `ipusim run` gives.
  if (result.console_error) return StopReason::ConsoleError;
  if (result.end.kind == RunEndKind::Budget) return StopReason::Budget;
  return timed_out ? StopReason::Timeout : StopReason::Interrupt;
}

std::string stop_reason_text(StopReason reason, const platform::RunResult& result) {
  switch (reason) {
    case StopReason::None: return {};
    case StopReason::Budget: return result.end.stopped() ? result.end.stopped()->kind : "budget";  // "cycle budget", ...
    case StopReason::Timeout: return "timeout";
    case StopReason::Interrupt: return "interrupt";
    case StopReason::ConsoleError: return "console error";
  }
  return {};
}

int report_end(const platform::RunResult& result, StopReason reason, double timeout, std::FILE* err) {
  const RunEnd& end = result.end;
  switch (end.kind) {
    case RunEndKind::Fault:
      std::fprintf(err, "ipusim: fault: %s\n", to_text(*end.fault()).c_str());
      if (end.fault()->registers) std::fputs(registers_text(*end.fault()->registers).c_str(), err);
      return kFaultStatus;
    case RunEndKind::ExchangeError:
      for (const Problem& e : end.exchange_errors()) std::fprintf(err, "ipusim: exchange error: %s\n", to_text(e).c_str());
      return kFaultStatus;
    case RunEndKind::Deadlock:
      std::fprintf(err, "ipusim: fault: %s\n", to_text(*end.deadlock()).c_str());
      return kFaultStatus;
    case RunEndKind::Budget:
    case RunEndKind::Interrupted:
      return result.console_error ? kConsoleErrorStatus : report_stop(result, reason, timeout, err);
    case RunEndKind::Halted:
      return result.console_error ? kConsoleErrorStatus : result.exit_status();
    case RunEndKind::Aborted:
      // A model stopped the run (an RTL block's failed check): not the firmware's doing.
      if (const Problem* p = end.problem(); p && p->code == ProblemCode::Model) {
        std::fprintf(err, "ipusim: error: %s\n", to_text(*p).c_str());
        return kModelErrorStatus;
      }
      [[fallthrough]];
    default:  // a host's Abort, Paused, StreamWait: never Platform::run's
      throw std::logic_error(std::string("ipusim run: the run ended '") + kind_name(end.kind) + "', which no run without a host ends");
  }
}

int report_stop(const platform::RunResult& result, StopReason reason, double timeout, std::FILE* err) {
  const std::string text = to_text(*result.end.stopped());
  int status = kInterruptStatus;
  if (reason == StopReason::Timeout) {
    std::fprintf(err, "ipusim: timeout: --timeout %s s expired: %s\n", fmt::format("{}", timeout).c_str(), text.c_str());
    status = kTimeoutStatus;
  } else if (reason == StopReason::Interrupt) {
    std::fprintf(err, "ipusim: interrupted: %s\n", text.c_str());
  } else {
    std::fprintf(err, "ipusim: budget: %s\n", text.c_str());
    status = kBudgetStatus;
  }
  const auto& running = result.end.running;
  if (running.size() <= kListed) {
    for (const platform::RunningTile& t : running)
      std::fprintf(err, "ipusim: still running: ipu %u tile %u thread %u %s, cycle %llu\n", t.ipu, t.tile, t.thread,
                   place(t).c_str(), static_cast<unsigned long long>(t.cycle));
    return status;
  }
  // Many tiles (a whole chip in one loop): where they are, largest group first.
  std::map<std::tuple<std::string, uint32_t>, std::vector<const platform::RunningTile*>> groups;
  for (const platform::RunningTile& t : running) groups[{t.function, t.pc}].push_back(&t);
  std::vector<const std::vector<const platform::RunningTile*>*> order;
  for (const auto& [key, tiles] : groups) order.push_back(&tiles);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->size() > b->size(); });
  std::fprintf(err, "ipusim: still running: %zu tiles at %zu place(s):\n", running.size(), order.size());
  for (size_t i = 0; i < std::min(order.size(), kListed); ++i) {
    const platform::RunningTile& first = *order[i]->front();
    std::fprintf(err, "ipusim:   %zu tile(s) at %s (the first: ipu %u tile %u thread %u)\n", order[i]->size(),
                 place(first).c_str(), first.ipu, first.tile, first.thread);
  }
  if (order.size() > kListed) std::fprintf(err, "ipusim:   and %zu more place(s)\n", order.size() - kListed);
  std::fprintf(err, "ipusim:   (--json lists every tile under \"running\")\n");
  return status;
}

void add_end_json(nlohmann::ordered_json& j, const platform::RunResult& result, StopReason reason,
                  const StopOptions& options) {
  const RunEnd& end = result.end;
  const auto text_or_null = [](const Problem* p) {
    return p ? nlohmann::ordered_json(to_text(*p)) : nlohmann::ordered_json(nullptr);
  };
  j["fault"] = text_or_null(end.fault());
  j["deadlock"] = text_or_null(end.deadlock());
  j["exchange_errors"] = nlohmann::ordered_json::array();
  for (const Problem& e : end.exchange_errors()) j["exchange_errors"].push_back(to_text(e));
  j["error"] = end.problem() ? problem_json(*end.problem()) : nlohmann::ordered_json(nullptr);
  j["stop_reason"] = reason == StopReason::None ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(stop_reason_text(reason, result));
  const auto limit = [](uint64_t v) { return v ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  j["limits"] = {{"max_cycles", limit(options.max_cycles)},
                 {"max_instructions", limit(options.max_instructions)},
                 {"timeout_seconds", !options.timeout ? nlohmann::ordered_json(nullptr)
                                                             : nlohmann::ordered_json(timeout_seconds(options.timeout))}};
  nlohmann::ordered_json running = nlohmann::ordered_json::array();
  for (const platform::RunningTile& t : end.running)
    running.push_back({{"ipu", t.ipu}, {"tile", t.tile}, {"thread", t.thread}, {"pc", t.pc}, {"cycle", t.cycle},
                       {"function", t.function.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.function)}});
  j["running"] = running;
}

}  // namespace ipusim::cli
