// ModelSession: the sessions that open the process's one DeviceModel (device_model.h),
// and the static owner that stops the model's threads at exit.
#include "host_if/model_session.h"

#include <mutex>
#include <stdexcept>

#include "host_if/device_model.h"
#include "platform/memory_estimate.h"
#include "platform/netlist.h"

namespace ipusim::host_if {

namespace {

// The process's one model. At exit it stops and joins the model thread and the ticker,
// then keeps the model: SystemC 2.3.4 cannot elaborate again in this process, so
// destroying it buys nothing; tearing a big system down is slow (SystemC unregisters
// ports one by one: about a second for a POD16) and would run module destructors after
// main() with the kernel paused mid-simulation; and a session closed later in static
// destruction (a Device in another static) still reaches a model that is there.
class ModelOwner {
 public:
  ~ModelOwner() {
    if (!model_) return;
    model_->stop();
    static_cast<void>(model_.release());  // kept on purpose (above); the process is ending
  }
  DeviceModel* get() const { return model_.get(); }
  void set(std::unique_ptr<DeviceModel> model) { model_ = std::move(model); }

 private:
  std::unique_ptr<DeviceModel> model_;
};

std::mutex g_open_mutex;
ModelOwner g_model;
// What the process's failed elaboration said, if one failed. Its modules are abandoned,
// not destroyed (ElaborationError), and stay registered with SystemC: another
// elaboration would build next to them (duplicate names, unbound ports), so none is tried.
std::string g_failed_elaboration;

}  // namespace

std::unique_ptr<ModelSession> ModelSession::open(const config::SystemConfig& config, const ModelOptions& options) {
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (DeviceModel* model = g_model.get()) {
    if (model->open) throw ModelUnavailable("ModelSession::open: a simulated system is already open in this process");
    if (model->waves() != options.waves)
      throw ModelUnavailable("ModelSession::open: this process elaborated its system with " +
                             (model->waves().empty() ? std::string("no waveforms") : "waveforms to '" + model->waves() + "'") +
                             ", and waveforms are chosen when a system is elaborated: another process must");
    if (!(model->config() == config)) {
      // The same system on the other ISS engine: say so (the engine is an elaboration choice).
      config::SystemConfig same_engine = config;
      same_engine.board.chip.tile.iss = model->config().board.chip.tile.iss;
      const std::optional<IssCore> held = model->config().board.chip.tile.iss, wanted = config.board.chip.tile.iss;
      if (same_engine == model->config() && held && wanted)
        throw ModelUnavailable("ModelSession::open: this process elaborated '" + config.name() + "' with the ISS engine " +
                               std::string(to_string(*held)) + ", and the engine is chosen when a system is "
                               "elaborated: " + std::string(to_string(*wanted)) + " needs another process");
      throw ModelUnavailable("ModelSession::open: this process already elaborated the system '" + model->config().name() +
                             "'; SystemC elaborates once per process, so a different config ('" + config.name() +
                             "') needs another process");
    }
    model->set_console(options.console);
  } else {
    if (!g_failed_elaboration.empty())
      throw ModelUnavailable("an earlier elaboration in this process failed: " + g_failed_elaboration +
                             "; SystemC cannot elaborate again next to its abandoned modules, so another process must");
    if (options.host_threads == 0) throw std::invalid_argument("ModelSession: host_threads must be at least 1");
    // Before anything is built: a system that cannot fit fails now, not out of memory
    // half-way through its netlist. A host maps every tile's SRAM.
    platform::check_fits_memory(config,
                                platform::estimate_memory(config, platform::kShortProgram, std::nullopt, options.host_threads),
                                platform::memory_limits(options.max_memory, options.max_memory_source),
                                options.max_memory_hint);
    try {
      g_model.set(std::make_unique<DeviceModel>(config, options));  // throws what elaboration throws
    } catch (const platform::ElaborationError& e) {
      g_failed_elaboration = "config '" + config.name() + "': " + e.what();
      throw;
    }
  }
  g_model.get()->open = true;
  return std::unique_ptr<ModelSession>(new ModelSession(*g_model.get()));
}

ModelSession::~ModelSession() {
  // The next session's console is the model's own again, whatever this one's driver left.
  if (model_.boards() > 0) model_.board(0).set_console_handler({});
  for (uint32_t b = 0; b < model_.boards(); ++b) model_.board(b).write32(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);
  wait_idle();
  for (uint32_t b = 0; b < model_.boards(); ++b) model_.board(b).detach_host();
  std::lock_guard<std::mutex> lock(g_open_mutex);
  model_.open = false;
}

uint32_t ModelSession::boards() const { return model_.boards(); }
const config::SystemConfig& ModelSession::config() const { return model_.config(); }
DeviceLink& ModelSession::link(uint32_t board) { return host_interface(board); }

uint16_t ModelSession::serve_gdb(uint16_t port) { return model_.serve_gdb(port); }
void ModelSession::set_core_dir(const std::string& dir) { model_.set_core_dir(dir); }

HostInterface& ModelSession::host_interface(uint32_t board) {
  if (board >= model_.boards())
    throw std::out_of_range("ModelSession: board " + std::to_string(board) + " (the system has " +
                            std::to_string(model_.boards()) + ")");
  return model_.board(board);
}

void ModelSession::wait_idle() { model_.run_on_model([] {}); }

}  // namespace ipusim::host_if
