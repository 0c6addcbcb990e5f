// RankExchange over MPI_COMM_WORLD: the ranks that `mpirun -np K` started (the process must
// have joined the job already, MPI_Init). A build without MPI (CMake found no MPI; Debian:
// libopenmpi-dev openmpi-bin) has no such exchange and says so.
#pragma once

#include <memory>

#include "loom/network/packet/parallel/rank_exchange.h"

namespace loom::network::packet::parallel {

// Whether this build links MPI.
bool built_with_mpi();

// The exchange among every rank of MPI_COMM_WORLD. UserError in a build without MPI.
std::unique_ptr<RankExchange> make_mpi_rank_exchange();

}  // namespace loom::network::packet::parallel
