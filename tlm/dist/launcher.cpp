#include "dist/launcher.h"

#include <charconv>
#include <cstdlib>

namespace ipusim::dist {
namespace {

// The launchers' variables, the most specific first (Open MPI also sets PMIX_SIZE).
constexpr const char* kSizeVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};

uint32_t parse_size(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  const char* end = text;
  while (*end != '\0') ++end;
  uint32_t value = 0;
  const auto [ptr, ec] = std::from_chars(text, end, value);
  return ec == std::errc() && ptr == end ? value : 0;
}

const char* lookup(const EnvLookup& getenv, const char* name) {
  return getenv ? getenv(name) : std::getenv(name);
}

}  // namespace

uint32_t launcher_world_size(const EnvLookup& getenv) {
  for (const char* name : kSizeVariables)
    if (const uint32_t size = parse_size(lookup(getenv, name)); size > 0) return size;
  return 0;
}

std::string launcher_variable(const EnvLookup& getenv) {
  for (const char* name : kSizeVariables)
    if (parse_size(lookup(getenv, name)) > 0) return name;
  return "";
}

}  // namespace ipusim::dist
