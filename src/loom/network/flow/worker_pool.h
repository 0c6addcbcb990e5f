// A small fixed pool of threads that runs numbered tasks: run(count, task) calls
// task(i, worker) once for every i in [0, count), spread over the pool's threads and the
// calling thread, and returns when all calls have finished. `worker` (0..threads()-1) names
// the thread running the call, so a task can use per-thread scratch; worker 0 is the caller.
//
// Which thread runs which task is not deterministic: tasks must write disjoint data for the
// result to be. The first exception a task throws is rethrown by run() once every task has
// finished or been skipped.
//
// Cost: one wake-up of each pool thread per run(), then one short lock per task (tasks are
// meant to be coarse, such as a whole component). Not re-entrant: run() is called from one thread at a time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::network::flow {

class WorkerPool {
 public:
  using Task = std::function<void(std::size_t index, unsigned worker)>;

  // Starts threads - 1 pool threads (threads >= 1).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(threads_.size()) + 1; }
  void run(std::size_t count, const Task& task);

 private:
  void work(unsigned worker);
  void drain(unsigned worker);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const Task* task_ = nullptr;
  std::size_t count_ = 0;
  std::size_t next_ = 0;        // next task index to hand out (under mutex_)
  unsigned busy_ = 0;           // pool threads still working on the current run
  std::uint64_t generation_ = 0;  // counts run() calls, so threads see each one once
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> threads_;
};

}  // namespace loom::network::flow
