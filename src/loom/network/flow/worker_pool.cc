#include "loom/network/flow/worker_pool.h"

#include <utility>

#include "loom/core/error.h"

namespace loom::network::flow {

WorkerPool::WorkerPool(unsigned threads) {
  LOOM_ASSERT(threads >= 1, "a worker pool needs at least one thread");
  threads_.reserve(threads - 1);
  for (unsigned worker = 1; worker < threads; ++worker) {
    threads_.emplace_back([this, worker] { work(worker); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void WorkerPool::run(std::size_t count, const Task& task) {
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    count_ = count;
    next_ = 0;
    busy_ = static_cast<unsigned>(threads_.size());
    failure_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  task_ = nullptr;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void WorkerPool::work(unsigned worker) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain(worker);
    std::lock_guard lock(mutex_);
    if (--busy_ == 0) done_.notify_one();
  }
}

void WorkerPool::drain(unsigned worker) {
  for (;;) {
    std::size_t index;
    {
      std::lock_guard lock(mutex_);
      if (next_ >= count_ || failure_) return;
      index = next_++;
    }
    try {
      (*task_)(index, worker);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
  }
}

}  // namespace loom::network::flow
