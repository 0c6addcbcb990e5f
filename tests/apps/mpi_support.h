// Running the `loom` binary under mpirun from a test (LOOM_MPIEXEC, defined when the build found
// MPI), and checking a refusal that every rank reached but rank 0 alone said.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "apps/loom_binary.h"

namespace cli_support {

// `loom ARGS` under `mpirun -np ranks` (0: one process, without mpirun; always one process in a
// build without MPI).
inline Result run_loom_on_ranks(int ranks, const std::string& args) {
  std::string before;
#ifdef LOOM_MPIEXEC
  if (ranks > 0) before = std::string(LOOM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " ";
#else
  static_cast<void>(ranks);
#endif
  return run_loom(args, before);
}

// The run exited 2 and said `message` on stderr exactly once.
inline void expect_refused_once(const Result& r, const std::string& message, const std::string& context) {
  EXPECT_EQ(r.exit_code, 2) << context << "\n" << r.err;
  const std::size_t at = r.err.find(message);
  ASSERT_NE(at, std::string::npos) << context << "\n" << r.err;
  EXPECT_EQ(r.err.find(message, at + 1), std::string::npos) << "said twice: " << r.err;
}

}  // namespace cli_support
