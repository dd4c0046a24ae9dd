#include "cosim_option.h"

namespace ipusim::cli {

void add_cosim_options(CLI::App* cmd, std::optional<std::string>& rtl, std::string& waves) {
  cmd->add_option("--rtl", rtl,
                  "blocks that run as their Verilated RTL instead of their TLM model: sync, link, amp "
                  "separated by commas, or none; replaces the config's `cosim` (the same results, slower; "
                  "docs/cosim.md)");
  cmd->add_option("--waves", waves,
                  "write the RTL blocks' waveforms to FILE: FST (.fst, compact) or VCD (.vcd, quick to write); "
                  "one file per RTL instance when there are several (FILE's stem + .ipu0.sync + extension)");
}

}  // namespace ipusim::cli
