#include "mpi_world.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <fmt/format.h>

#include "loom/core/error.h"

#ifdef LOOM_HAVE_MPI
#include <mpi.h>
#endif

namespace loom::app {

namespace {

// The world size an MPI launcher announced in the environment (Open MPI, or any PMI launcher).
int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  }
  return 0;
}

}  // namespace

bool MpiWorld::built_with_mpi() {
#ifdef LOOM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiWorld::MpiWorld() {
  const int launched = launched_size();
  if (launched == 0) return;
#ifdef LOOM_HAVE_MPI
  MPI_Init(nullptr, nullptr);
  joined_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
#else
  if (launched > 1) {
    throw UserError(fmt::format(
        "started as one of {} MPI ranks, but this loom was built without MPI: install Open MPI "
        "(Debian: libopenmpi-dev openmpi-bin; scripts/install-deps.sh installs them) and build again",
        launched));
  }
#endif
}

MpiWorld::~MpiWorld() {
#ifdef LOOM_HAVE_MPI
  if (joined_ && std::uncaught_exceptions() > 0 && size_ > 1) MPI_Abort(MPI_COMM_WORLD, 2);
#endif
  leave();
}

void MpiWorld::leave() {
#ifdef LOOM_HAVE_MPI
  if (joined_) MPI_Finalize();
#endif
  joined_ = false;
}

std::vector<std::string> MpiWorld::gather(const std::string& text) const {
  if (size_ == 1) return {text};
#ifdef LOOM_HAVE_MPI
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(all.size());
    all.resize(all.size() + static_cast<std::size_t>(lengths[r]));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  }
  return texts;
#else
  return {text};
#endif
}

int run_on_ranks(MpiWorld& world, const std::function<int(bool& running)>& command) {
  bool running = false;
  try {
    return command(running);
  } catch (const std::exception& e) {
    if (world.size() == 1) throw;
    if (running) {
      fmt::print(stderr, "loom: MPI rank {}: {}\n", world.rank(), e.what());
      throw;
    }
    // Rank 0 says why before leaving: MPI_Finalize waits for every rank, so no rank's non-zero
    // exit (on which mpirun kills the job) comes before the message.
    const auto* user_error = dynamic_cast<const UserError*>(&e);
    if (world.rank() == 0 && user_error != nullptr) {
      fmt::print(stderr, "loom: {}\n", user_error->what());
      std::fflush(stderr);
    }
    world.leave();
    if (world.rank() == 0 && user_error == nullptr) throw;
    return 2;
  }
}

}  // namespace loom::app
