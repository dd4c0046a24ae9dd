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
# MPI (Debian's Open MPI: openmpi-bin, libopenmpi-dev): a system run over ranks under
# mpirun (docs/distributed.md). Optional: without it ipusim runs in one process, and says
# so when a launcher starts it as one of several ranks. Only ipusim_dist_ranks_mpi links it.
find_package(MPI COMPONENTS C QUIET)
option(IPUSIM_MPI "Run a system over MPI ranks under mpirun (on when MPI is found)" ${MPI_C_FOUND})
if(IPUSIM_MPI AND NOT MPI_C_FOUND)
  message(FATAL_ERROR "IPUSIM_MPI is ON but MPI was not found: install openmpi-bin and libopenmpi-dev "
                      "(scripts/deps.sh) or configure with -DIPUSIM_MPI=OFF")
endif()
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
