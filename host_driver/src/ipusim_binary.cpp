// find_ipusim_binary (ipusim_binary.h). The build tree's and the install prefix's paths
// are compiled in (host_driver/CMakeLists.txt); the library is the build tree's when the
// file it was loaded from lies in the build tree's lib/.
#include "ipusim_binary.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "ipudrv/errors.h"

namespace ipudrv::detail {
namespace {

namespace fs = std::filesystem;

bool executable_file(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The directory this library was loaded from (linked statically: the executable's).
std::string library_dir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&find_ipusim_binary), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path file = fs::canonical(fs::path(info.dli_fname), ec);
  return ec ? std::string() : file.parent_path().string();
}

bool same_dir(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec);
}

}  // namespace

std::string find_ipusim_binary(const std::string& why) {
  if (const char* env = std::getenv("IPUSIM_BIN")) {
    if (executable_file(env)) return env;
    throw UsageError(why + ": IPUSIM_BIN='" + env + "' is not an executable file (it names the ipusim the driver starts)");
  }
  std::vector<std::string> looked;
  if (same_dir(library_dir(), IPUDRV_BUILD_LIB_DIR)) {
    if (executable_file(IPUDRV_BUILD_IPUSIM)) return IPUDRV_BUILD_IPUSIM;
    looked.push_back(std::string("the build tree's ") + IPUDRV_BUILD_IPUSIM + " (not built?)");
  }
  // Installed: beside this library (an install prefix moved, or given at install time),
  // else where the build's install prefix puts it.
  const std::string here = library_dir();
  if (!here.empty()) {
    const std::string beside = here + "/" + IPUDRV_LIB_TO_IPUSIM;
    if (executable_file(beside)) return beside;
    looked.push_back(beside);
  }
  if (executable_file(IPUDRV_INSTALLED_IPUSIM)) return IPUDRV_INSTALLED_IPUSIM;
  looked.push_back(std::string("the installed ") + IPUDRV_INSTALLED_IPUSIM);
  if (const char* path = std::getenv("PATH")) {
    const std::string dirs = path;
    for (size_t at = 0; at <= dirs.size();) {
      const size_t end = std::min(dirs.find(':', at), dirs.size());
      const std::string dir = dirs.substr(at, end - at);
      const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ipusim";
      if (executable_file(candidate)) return candidate;
      at = end + 1;
    }
  }
  looked.push_back("ipusim on PATH");
  std::string where;
  for (const auto& l : looked) where += (where.empty() ? "" : ", ") + l;
  throw UsageError(why + ": no ipusim executable found (looked at " + where + "; IPUSIM_BIN=PATH names one)");
}

}  // namespace ipudrv::detail
