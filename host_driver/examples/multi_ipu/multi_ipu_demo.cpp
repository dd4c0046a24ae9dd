// multi_ipu_demo: the kernels across IPUs driven by a host program through ipudrv
// (docs/host_driver.md, "Multi-IPU demo").
//
//   multi_ipu_demo allreduce|pipeline|link_bw [LOCATOR] [--elf PATH]
//                  [--micro-batches N] [--seed S] [--chunk C]
//     LOCATOR          config:PATH (default config:configs/m2000.yaml, the model in this
//                      process) or unix:PATH (a running `ipusim serve`)
//     --elf            the firmware (default: the build's ipu_allreduce.elf, pipeline.elf
//                      or mb_link_bw.elf)
//     --micro-batches  pipeline: 1 .. 8 (default 4)
//     --seed           pipeline: the seed of the host's inputs (default 2024)
//     --chunk          allreduce: floats per tile chunk (each IPU's vector is C x tiles),
//                      0 = the kernel's default, the largest that fits the SRAM; the
//                      kernel refuses one that does not fit (exit 1, its message on the console)
// Exit status: 0 every result equals the host reference, 1 a mismatch or a device error,
// 2 bad input (arguments, config, ELF).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.h"

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s allreduce|pipeline|link_bw [config:PATH | unix:PATH] [--elf PATH] "
               "[--micro-batches N] [--seed S] [--chunk C]\n",
               argv0);
  return demo::kBadInput;
}

bool parse_u32(const char* text, uint32_t& out) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 0);
  if (!*text || *end || v > 0xffffffffUL) return false;
  out = uint32_t(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines in order with the firmware's console
  if (argc < 2) return usage(argv[0]);
  const std::string sub = argv[1];
  demo::Options o;
  o.locator = "config:" IPUSIM_SOURCE_DIR "/configs/m2000.yaml";
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--elf" && i + 1 < argc) {
      o.elf = argv[++i];
    } else if (a == "--micro-batches" && i + 1 < argc) {
      if (!parse_u32(argv[++i], o.micro_batches)) return usage(argv[0]);
    } else if (a == "--seed" && i + 1 < argc) {
      if (!parse_u32(argv[++i], o.seed)) return usage(argv[0]);
    } else if (a == "--chunk" && i + 1 < argc) {
      if (!parse_u32(argv[++i], o.chunk)) return usage(argv[0]);
    } else if (!a.empty() && a[0] != '-') {
      o.locator = a;
    } else {
      return usage(argv[0]);
    }
  }
  try {
    if (sub == "allreduce") return demo::run_allreduce(o);
    if (sub == "pipeline") return demo::run_pipeline(o);
    if (sub == "link_bw") return demo::run_link_bw(o);
    return usage(argv[0]);
  } catch (const demo::BadInput& e) {
    std::fprintf(stderr, "multi_ipu_demo %s: %s\n", sub.c_str(), e.what());
    return demo::kBadInput;
  } catch (const std::exception& e) {  // ipudrv::Error, or the config loader's for link_bw
    std::fprintf(stderr, "multi_ipu_demo %s: error: %s\n", sub.c_str(), e.what());
    return demo::kMismatch;
  }
}
