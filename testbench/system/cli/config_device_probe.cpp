// The device side of config_property_test: opens an in-process device on a config
// (ipudrv::open("config:PATH")), loads an ELF on every tile and runs it to its end under a
// budget, as a host program would. Exit 0: the device accepted the config and the run
// ended normally; 1: an ipudrv::Error (what() on stderr); 3: any other exception, which a
// device must never throw for a config.
//   config_device_probe CONFIG ELF
#include <ipudrv/device.h>
#include <ipudrv/elf.h>
#include <ipudrv/errors.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONFIG ELF\n", argv[0]);
    return 2;
  }
  try {
    auto dev = ipudrv::open(std::string("config:") + argv[1]);
    dev->set_console([](const ipudrv::ConsoleLine&) {});
    dev->load(ipudrv::Elf::from_file(argv[2]));
    ipudrv::RunOptions run;
    run.max_cycles = 2000000;
    run.timeout = std::chrono::seconds(20);
    dev->run(run);
  } catch (const ipudrv::Error& e) {
    std::fprintf(stderr, "config_device_probe: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "config_device_probe: not an ipudrv::Error: %s\n", e.what());
    return 3;
  }
  return 0;
}
