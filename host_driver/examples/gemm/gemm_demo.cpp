// gemm_demo: the README's main demo (gemm_demo_run.h).
//
//   gemm_demo [LOCATOR] [--elf PATH] [--threads N]
//     LOCATOR    config:PATH (default config:configs/m2000.yaml: the model in this
//                process) or unix:PATH (a running `ipusim serve`)
//     --elf      the firmware (default: the build's gemm_host.elf)
//     --threads  host threads for the reference (default: every core); the model's own
//                come from IPUSIM_THREADS (docs/host_driver.md)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "gemm_demo_run.h"

int main(int argc, char** argv) {
  std::string locator = "config:" IPUSIM_SOURCE_DIR "/configs/m2000.yaml";
  std::string elf = IPUSIM_FIRMWARE_DIR "/gemm_host.elf";
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--elf" && i + 1 < argc) {
      elf = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      threads = unsigned(std::max(1, std::atoi(argv[++i])));
    } else if (!a.empty() && a[0] != '-') {
      locator = a;
    } else {
      std::fprintf(stderr, "usage: %s [config:PATH | unix:PATH] [--elf PATH] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  return run_gemm_demo(locator, elf, threads);
}
