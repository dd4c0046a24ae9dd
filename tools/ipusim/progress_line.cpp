#include "progress_line.h"

#include <unistd.h>

#include <fmt/format.h>

namespace ipusim::cli {

ProgressLine::ProgressLine(std::FILE* out, Mode mode)
    : out_(out),
      enabled_(mode == Mode::On || (mode == Mode::Auto && ::isatty(::fileno(out)) == 1)),
      delay_seconds_(mode == Mode::Auto ? 1.0 : 0.0) {}

std::string ProgressLine::text(const platform::RunProgress& p) {
  return fmt::format("ipusim: {} supersteps, {:.3f} us simulated, {:.1f} MIPS, {:.1f} s", p.supersteps,
                     p.simulated_seconds * 1e6, p.mips(), p.host_seconds);
}

void ProgressLine::update(const platform::RunProgress& p) {
  if (!enabled_ || p.host_seconds < delay_seconds_) return;
  const std::string line = text(p);
  // Pad over the rest of a longer previous line; the cursor stays at its end.
  const size_t pad = shown_ > line.size() ? shown_ - line.size() : 0;
  fmt::print(out_, "\r{}{:{}}", line, "", pad);
  std::fflush(out_);
  shown_ = line.size();
}

void ProgressLine::clear() {
  if (shown_ == 0) return;
  fmt::print(out_, "\r{:{}}\r", "", shown_);
  std::fflush(out_);
  shown_ = 0;
}

}  // namespace ipusim::cli
