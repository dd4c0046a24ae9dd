#include "cosim/waves.h"

#include "cosim/wave_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

namespace ipusim::cosim {

Waves::Waves(std::string file) : file_(std::move(file)) {
  const auto dot = file_.rfind('.');
  const auto slash = file_.rfind('/');
  const std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash)
                              ? std::string()
                              : file_.substr(dot);
  if (ext == ".fst") {
    format_ = WaveFormat::Fst;
  } else if (ext == ".vcd") {
    format_ = WaveFormat::Vcd;
  } else {
    throw std::invalid_argument("the waveform file '" + file_ + "' must end in .fst (compact) or .vcd (quick to write)");
  }
  if (dot == 0 || (slash != std::string::npos && dot == slash + 1))
    throw std::invalid_argument("the waveform file '" + file_ + "' needs a name before " + ext);
  stem_ = file_.substr(0, dot);
  extension_ = ext;
  // Verilator's trace writers say nothing when they cannot open a file: refuse a folder
  // that cannot take one now, before anything is elaborated.
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : file_.substr(0, slash);
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::invalid_argument("the waveform file '" + file_ + "' cannot be written in '" + dir +
                                "': " + std::strerror(errno));
}

void Waves::add(const std::string& instance) {
  if (frozen_) throw std::logic_error("Waves::add('" + instance + "') after elaboration");
  if (!names_.insert(instance).second) throw std::logic_error("Waves::add: instance '" + instance + "' added twice");
  instances_.push_back(instance);
}

std::string Waves::path(const std::string& instance) const {
  if (!frozen_) throw std::logic_error("Waves::path('" + instance + "') before the platform's elaboration ended");
  if (!names_.count(instance)) throw std::logic_error("Waves::path: unknown instance '" + instance + "'");
  if (instances_.size() == 1) return file_;
  return stem_ + "." + instance + extension_;
}

size_t Waves::on_close(std::function<void()> closer) {
  closers_.push_back(std::move(closer));
  return closers_.size() - 1;
}

void Waves::forget(size_t id) {
  if (id < closers_.size()) closers_[id] = nullptr;
}

void Waves::close() {
  // Every file is closed even if one fails; the first failure is reported after.
  std::exception_ptr first;
  for (auto& c : closers_) {
    if (!c) continue;
    try {
      std::exchange(c, nullptr)();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  // A file closed earlier (an instance destroyed first, an AMP at the end of its run)
  // noted its failure too.
  if (frozen_)
    for (const std::string& path : paths())
      if (auto why = take_wave_write_failure(path); why && !write_error_)
        write_error_ = "writing the waveform '" + path + "' failed: " + *why + " (the file is removed)";
  if (first) std::rethrow_exception(first);
}

std::vector<std::string> Waves::paths() const {
  std::vector<std::string> out;
  for (const std::string& i : instances_) out.push_back(path(i));
  return out;
}

}  // namespace ipusim::cosim
