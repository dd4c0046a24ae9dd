# Every third-party dependency comes from Debian's packages (scripts/deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc)
# elfutils' libdw (+ libelf): the ISS's source map reads tile ELFs' DWARF (libdw-dev).
pkg_check_modules(libdw REQUIRED IMPORTED_TARGET GLOBAL libdw)
# zstd compresses checkpoints' sections (libzstd-dev; tlm/checkpoint).
pkg_check_modules(libzstd REQUIRED IMPORTED_TARGET GLOBAL libzstd)
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(Threads REQUIRED)
if(IPUSIM_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(IPUSIM_BENCH)
  find_package(benchmark REQUIRED)
endif()

# SystemC as one imported target; SC_CPLUSPLUS is set project-wide.
add_library(ipusim::systemc INTERFACE IMPORTED)
target_link_libraries(ipusim::systemc INTERFACE PkgConfig::SYSTEMC)
