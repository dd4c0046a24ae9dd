// The adapter between open_system_backend() and the device model: the config loaded
// into validated structs, a host_if::ModelSession elaborated from it (once per process; the
// model runs on its own thread), wrapped in a SystemBackend.
//
// Model options come from the environment, so a host program needs no model-specific
// API: IPUSIM_THREADS (host threads computing tiles; default: the machine's cores, which
// changes nothing but speed), IPUSIM_CONSOLE (stdout, the default; stderr; none) and
// IPUSIM_MAX_MEMORY (the memory limit, for hosts that open devices by enumerate(),
// DeviceRef::open or the C API, which take no OpenOptions) and IPUSIM_ISS (the tiles' ISS
// engine when OpenOptions::iss is unset: jit, interp or lockstep; iss/core_choice.h).
#include "system_backend.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "cosim/waves.h"
#include "host_if/model_session.h"
#include "iss/core_choice.h"
#include "platform/memory_estimate.h"
#include "ipudrv/errors.h"
#include "config/config_loader.h"

namespace ipudrv::detail {
namespace {

std::mutex g_factory_mutex;
SystemFactory g_test_factory;

class ModelBackend final : public SystemBackend {
 public:
  explicit ModelBackend(std::unique_ptr<ipusim::host_if::ModelSession> system) : system_(std::move(system)) {}
  size_t board_count() const override { return system_->boards(); }
  ipusim::host_if::DeviceLink& board_link(size_t board) override { return system_->link(uint32_t(board)); }
  void set_core_dir(const std::string& dir) override { system_->set_core_dir(dir); }
  uint16_t serve_gdb(uint16_t port) override {
    try {
      return system_->serve_gdb(port);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }

 private:
  std::unique_ptr<ipusim::host_if::ModelSession> system_;
};

ipusim::host_if::ModelOptions options_from_environment() {
  ipusim::host_if::ModelOptions options;
  options.host_threads = std::max(1u, std::thread::hardware_concurrency());
  if (const char* t = std::getenv("IPUSIM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(t, &end, 10);
    if (end == t || *end != '\0' || n < 1 || n > 1024)
      throw UsageError(std::string("IPUSIM_THREADS: '") + t + "' is not a thread count from 1 to 1024");
    options.host_threads = unsigned(n);
  }
  if (const char* c = std::getenv("IPUSIM_CONSOLE")) {
    const std::string v = c;
    if (v == "stdout") options.console = stdout;
    else if (v == "stderr") options.console = stderr;
    else if (v == "none") options.console = nullptr;
    else throw UsageError("IPUSIM_CONSOLE: '" + v + "' is not stdout, stderr or none");
  }
  if (const char* m = std::getenv("IPUSIM_MAX_MEMORY")) {
    try {
      options.max_memory = ipusim::platform::parse_memory_size(m, "IPUSIM_MAX_MEMORY");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    options.max_memory_source = "IPUSIM_MAX_MEMORY";
  }
  options.max_memory_hint = "OpenOptions::max_memory or IPUSIM_MAX_MEMORY=SIZE sets another limit";
  return options;
}

// The tiles' ISS engine: `iss` ("jit", "interp" or "lockstep"; `prefix` names the option it came from),
// else the environment's or the build's default.
ipusim::IssCore iss_core(const std::optional<std::string>& iss, const std::string& prefix) {
  if (iss) {
    if (const std::optional<ipusim::IssCore> core = ipusim::parse_iss_core(*iss)) return *core;
    throw UsageError(prefix + "iss '" + *iss + "' is not " + std::string(ipusim::kIssCoreNames));
  }
  try {
    return ipusim::iss::default_core();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::shared_ptr<SystemBackend> model_system(const std::string& config_path, std::optional<uint64_t> max_memory,
                                            const std::string& max_memory_option,
                                            const std::optional<std::string>& rtl, const std::string& waves,
                                            const std::optional<std::string>& iss) {
  ipusim::config::SystemConfig config;
  try {
    config = ipusim::config::load_system(config_path);
  } catch (const ipusim::config::ConfigError& e) {
    throw UsageError(e.what());
  }
  const std::string option_prefix = max_memory_option.empty() ? "OpenOptions::" : "--";
  if (rtl) {
    try {
      config.cosim = ipusim::config::CosimConfig::parse_rtl_list(*rtl);
    } catch (const std::invalid_argument& e) {
      throw UsageError(option_prefix + "rtl '" + *rtl + "': " + e.what());
    }
    if (const std::string why = ipusim::config::cosim_unfit(config); !why.empty())
      throw UsageError(option_prefix + "rtl '" + *rtl + "': " + why);
  }
  config.board.chip.tile.iss = iss_core(iss, option_prefix);
  if (!waves.empty()) {
    try {
      ipusim::cosim::Waves check(waves);
    } catch (const std::invalid_argument& e) {
      throw UsageError(option_prefix + "waves: " + e.what());
    }
    if (!config.cosim.any_rtl())
      throw UsageError(option_prefix + "waves '" + waves + "': no block runs as RTL (choose some with " + option_prefix +
                       "rtl or the config's `cosim`)");
  }
  try {
    ipusim::host_if::ModelOptions options = options_from_environment();
    options.waves = waves;
    if (max_memory) {
      options.max_memory = max_memory;
      options.max_memory_source = max_memory_option.empty() ? "OpenOptions::max_memory" : max_memory_option;
    }
    if (!max_memory_option.empty()) options.max_memory_hint = max_memory_option + " SIZE sets another limit";
    try {
      return std::make_shared<ModelBackend>(ipusim::host_if::ModelSession::open(config, options));
    } catch (const ipusim::host_if::ModelUnavailable& e) {
      // Another process will elaborate it: refuse here, as it would, a system too large
      // for the machine (its own address space starts empty: RLIMIT_AS less this
      // process's is not its limit).
      auto limits = ipusim::platform::memory_limits(options.max_memory, options.max_memory_source);
      std::erase_if(limits, [](const ipusim::platform::MemoryLimit& l) { return l.address_space; });
      ipusim::platform::check_fits_memory(
          config, ipusim::platform::estimate_memory(config, ipusim::platform::kShortProgram, std::nullopt, options.host_threads),
          limits, options.max_memory_hint);
      throw ModelUnavailable("in-process device for '" + config_path + "': " + e.what());
    }
  } catch (const ModelUnavailable&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw UsageError("in-process device for '" + config_path + "': " + e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError("in-process device for '" + config_path + "': " + e.what());
  }
}

}  // namespace

std::shared_ptr<SystemBackend> open_system_backend(const std::string& config_path, std::optional<uint64_t> max_memory,
                                                   const std::string& max_memory_option,
                                                   const std::optional<std::string>& rtl, const std::string& waves,
                                                   const std::optional<std::string>& iss) {
  SystemFactory factory;
  {
    std::lock_guard lock(g_factory_mutex);
    factory = g_test_factory;
  }
  return factory ? factory(config_path) : model_system(config_path, max_memory, max_memory_option, rtl, waves, iss);
}

void set_system_factory_for_tests(SystemFactory factory) {
  std::lock_guard lock(g_factory_mutex);
  g_test_factory = std::move(factory);
}

}  // namespace ipudrv::detail
