// demo_device.h: opening, loading and running for the multi-IPU demo.
#include "demo_device.h"

#include <cstdio>

namespace demo {

std::unique_ptr<ipudrv::Device> open_and_load(const Options& o, const std::string& elf_path, uint32_t min_ipus,
                                              std::initializer_list<const char*> symbols) {
  ipudrv::Elf elf = [&] {
    try {
      return ipudrv::Elf::from_file(elf_path);
    } catch (const ipudrv::ProgramError& e) {
      throw BadInput(e.what());
    }
  }();
  for (const char* s : symbols)
    if (!elf.symbol(s)) throw BadInput(elf_path + " has no symbol '" + s + "': not the firmware for this sub-command");
  std::unique_ptr<ipudrv::Device> dev;
  try {
    dev = ipudrv::open(o.locator);
  } catch (const ipudrv::UsageError& e) {  // a config the loader refused, no such board
    throw BadInput(e.what());
  }
  const ipudrv::DeviceInfo& info = dev->info();
  if (info.ipus < min_ipus)
    throw BadInput(info.locator + " has " + std::to_string(info.ipus) + " IPU(s); this needs " +
                   std::to_string(min_ipus));
  dev->load(elf);
  return dev;
}

ipudrv::RunResult run_to_halt(ipudrv::Device& dev, const char* what) {
  const ipudrv::RunResult r = dev.run();
  if (r.state != ipudrv::RunState::kHalted || r.exit_code != 0)
    throw ipudrv::Error(std::string(what) + ": the firmware " +
                        (r.state == ipudrv::RunState::kHalted ? "exited with " + std::to_string(r.exit_code)
                                                               : std::string("did not halt")));
  return r;
}

std::string config_path_of(const std::string& locator) {
  if (locator.rfind("unix:", 0) == 0) return "";
  return locator.rfind("config:", 0) == 0 ? locator.substr(7) : locator;
}

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

}  // namespace demo
