// The MPI job this process is one rank of: `mpirun -np K loom ...` starts K processes, and the
// commands that can share their work (`loom sweep`) ask this for their rank and exchange results.
//
// Loom links MPI when the build found it (CMake's find_package(MPI), Debian's libopenmpi-dev);
// without it, or when no MPI launcher started the process, the world is one rank and every call
// is local. A process that an MPI launcher started in a build without MPI is refused: each rank
// would otherwise do all the work, into the same files.
//
// Thread-safety: one MpiWorld per process, used from the thread that made it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace loom::app {

class MpiWorld {
 public:
  // Joins the MPI job when an MPI launcher started this process (it sets OMPI_COMM_WORLD_SIZE or
  // PMI_SIZE), else a world of one. UserError when launched as several ranks without MPI built in.
  MpiWorld();
  // Leaves the job unless leave() did; while an exception unwinds, aborts it instead so that the
  // other ranks do not wait forever for this one.
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  // Whether an MPI launcher started this process (and it joined the job: even as one rank).
  bool joined() const { return joined_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ranks on this machine (this one included): they share its cores.
  int local_size() const { return local_size_; }

  // Every rank's `text` in rank order, at rank 0; other ranks get an empty list. Collective.
  std::vector<std::string> gather(const std::string& text) const;

  // Leaves the job once this rank has taken part in every collective call; errors after it end
  // this rank alone.
  void leave();

  // Whether this build can join MPI jobs.
  static bool built_with_mpi();

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  bool joined_ = false;
};

// Runs `command` on this rank of `world` and returns its exit code. `command` sets `running`
// once its setup (reading and checking the inputs, alike on every rank) is done. An exception
// before that is every rank's: rank 0 says why once (a UserError) and every rank returns 2
// (rank 0 rethrows any other error). During the run it is this rank's alone: it says so and
// rethrows, and MpiWorld aborts the job, whose other ranks would wait for this one forever.
// In a world of one rank the exception simply leaves.
int run_on_ranks(MpiWorld& world, const std::function<int(bool& running)>& command);

}  // namespace loom::app
