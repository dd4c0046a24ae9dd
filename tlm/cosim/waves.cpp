#include "cosim/waves.h"

#include <stdexcept>

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

std::vector<std::string> Waves::paths() const {
  std::vector<std::string> out;
  for (const std::string& i : instances_) out.push_back(path(i));
  return out;
}

}  // namespace ipusim::cosim
