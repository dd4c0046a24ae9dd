// What an MPI launcher (mpirun, srun) tells each process it starts, read from the
// environment before MPI is initialised: whether this process is one rank of a job, and
// of how many. Plain C++, no MPI, so a build without MPI can tell that it was started as
// one rank of many and say it cannot take part (docs/distributed.md "Launching").
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ipusim::dist {

// Reads one environment variable (nullptr: unset); std::getenv by default, a table in tests.
using EnvLookup = std::function<const char*(const char*)>;

// The ranks the launcher started the job with: OMPI_COMM_WORLD_SIZE (Open MPI's mpirun),
// else PMI_SIZE (MPICH's Hydra, Slurm's PMI), else PMIX_SIZE; 0 when none is set or none
// is a whole number from 1 (a process started by no launcher).
uint32_t launcher_world_size(const EnvLookup& getenv = {});

// The variable launcher_world_size() took its figure from ("OMPI_COMM_WORLD_SIZE"), or ""
// when it found none: named in the error of a build without MPI.
std::string launcher_variable(const EnvLookup& getenv = {});

}  // namespace ipusim::dist
