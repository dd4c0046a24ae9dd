#include "trace_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ipusim::fwtest {
namespace {

constexpr size_t kMaxErrors = 5;

bool parse_hex(std::string_view text, uint32_t& value) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

void add_error(PcTrace& trace, std::string message) {
  if (trace.errors.size() < kMaxErrors) trace.errors.push_back(std::move(message));
}

std::ifstream open_trace(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read trace " + path.string());
  return in;
}

}  // namespace

PcTrace read_qemu_trace(const std::filesystem::path& path, uint32_t platform_start) {
  PcTrace trace;
  auto in = open_trace(path);
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (line.rfind("Trace ", 0) != 0) continue;
    // The pc is the second '/'-separated field inside the brackets.
    size_t open = line.find('[');
    size_t slash1 = line.find('/', open);
    size_t slash2 = line.find('/', slash1 + 1);
    uint32_t pc = 0;
    if (open == std::string::npos || slash1 == std::string::npos ||
        slash2 == std::string::npos ||
        !parse_hex(std::string_view(line).substr(slash1 + 1, slash2 - slash1 - 1), pc)) {
      add_error(trace, fmt::format("{}:{}: unexpected qemu trace line: {}", path.string(),
                                   number, line));
      continue;
    }
    ++trace.total;
    if (pc < platform_start) trace.common_pcs.push_back(pc);
  }
  return trace;
}

PcTrace read_ipusim_trace(const std::filesystem::path& path, uint32_t platform_start,
                          const ElfImage& elf) {
  PcTrace trace;
  auto in = open_trace(path);
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string ipu, tile, thread, cycle, pc_text, symbol, insn_text;
    uint32_t pc = 0, insn = 0;
    if (!(fields >> ipu >> tile >> thread >> cycle >> pc_text >> symbol >> insn_text) ||
        symbol.size() < 3 || symbol.front() != '<' || symbol.back() != '>' ||
        pc_text.rfind("0x", 0) != 0 || insn_text.rfind("0x", 0) != 0 ||
        !parse_hex(pc_text, pc) || !parse_hex(insn_text, insn)) {
      add_error(trace, fmt::format("{}:{}: not 'ipu tile thread cycle 0xPC <symbol> 0xINSN disasm': {}",
                                   path.string(), number, line));
      continue;
    }
    ++trace.total;
    auto word = elf.word_at(pc);
    if (!word || *word != insn)
      add_error(trace, fmt::format("{}:{}: insn {} at pc {:#010x} but the ELF has {}",
                                   path.string(), number, insn_text, pc,
                                   word ? fmt::format("{:#010x}", *word) : "nothing there"));
    if (pc < platform_start) trace.common_pcs.push_back(pc);
  }
  return trace;
}

std::string first_divergence(const std::vector<uint32_t>& expected,
                             const std::vector<uint32_t>& actual) {
  size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] != actual[i]) {
      std::string context;
      for (size_t k = i >= 3 ? i - 3 : 0; k < i; ++k)
        context += fmt::format(" {:#010x}", expected[k]);
      return fmt::format(
          "common instruction #{} differs: qemu pc {:#010x}, ipusim pc {:#010x} (after{})", i,
          expected[i], actual[i], context.empty() ? " nothing" : context);
    }
  }
  if (expected.size() != actual.size())
    return fmt::format("one trace is a prefix of the other: qemu {} vs ipusim {} instructions; "
                       "the shorter ends after pc {:#010x}",
                       expected.size(), actual.size(),
                       n ? expected[n - 1] : 0u);
  return "";
}

}  // namespace ipusim::fwtest
