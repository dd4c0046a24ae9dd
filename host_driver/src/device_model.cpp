// The adapter between open_simulated_system() and the device model. The model's SimSystem
// (issue 4, device side) is not in this build yet: until it lands, a config locator is
// refused with a TransportError that says so. Integration replaces the body of
// model_system() with a SimSystem built from the config, wrapped in a SimulatedSystem.
#include "device_model.h"

#include <mutex>

#include "ipudrv/errors.h"

namespace ipudrv::detail {
namespace {

std::mutex g_factory_mutex;
SystemFactory g_test_factory;

std::shared_ptr<SimulatedSystem> model_system(const std::string& config_path) {
  throw TransportError("in-process device for '" + config_path +
                       "': this build has no device model (SimSystem)");
}

}  // namespace

std::shared_ptr<SimulatedSystem> open_simulated_system(const std::string& config_path) {
  SystemFactory factory;
  {
    std::lock_guard lock(g_factory_mutex);
    factory = g_test_factory;
  }
  return factory ? factory(config_path) : model_system(config_path);
}

void set_system_factory_for_tests(SystemFactory factory) {
  std::lock_guard lock(g_factory_mutex);
  g_test_factory = std::move(factory);
}

}  // namespace ipudrv::detail
