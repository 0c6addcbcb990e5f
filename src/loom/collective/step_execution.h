// The engine under the ring, tree, halving-doubling and hierarchical algorithms: every member
// runs, per channel, a few threads (NCCL's thread blocks), each executing a short program of
// steps once per pipeline chunk. A StepSchedule describes one chunk's program; the engine
// repeats it `chunks` times per channel, piece c*chunks + k being chunk k of channel c.
//
// A step runs in three parts:
//   1. wait until every receive slot in `recv_mask` holds an arrived, unconsumed transfer, and
//      (when `after_thread` is set) until that thread of the same member and channel has
//      completed step `after_step` of the same chunk; then consume one arrival per slot;
//   2. make its sends (zero to kMaxSends) ready at once;
//   3. complete when all of them have left the sender (on_sent; or arrived, when the caller
//      reports no on_sent); the thread then moves to its next step. A send's hop latency thus
//      delays its receiver only: along a ring, latencies add up per chain of hops, as in
//      NCCL's latency model, while each connection still carries one step at a time.
// A slot counts arrivals from one fixed peer connection, so FIFO order per connection matches
// the k-th arrival with the k-th receive. Sends go to the same thread index on the peer.
// A member is finished when all its threads completed their programs and it has received
// every transfer the schedule says it receives.
//
// Memory: per member and thread two 32-bit counters per slot plus a program counter; nothing
// per transfer. start() O(n * threads), on_done() O(threads) plus the steps it runs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/collective/collective.h"

namespace loom::collective {

constexpr std::uint32_t kMaxSends = 2;
constexpr std::uint32_t kNoThread = 0xffffffffu;

struct StepSend {
  std::uint32_t peer = 0;
  std::uint32_t slot = 0;    // receive slot at the peer's thread
  std::uint32_t block = 0;   // first block sent
  std::uint32_t blocks = 1;  // number of consecutive blocks
  DataAction action = DataAction::kCopy;
};

struct Step {
  std::uint32_t recv_mask = 0;  // bit s: wait for (and consume) one arrival on slot s
  std::uint32_t after_thread = kNoThread;
  std::uint32_t after_step = 0;
  std::uint32_t send_count = 0;
  std::array<StepSend, kMaxSends> sends{};

  Step& recv(std::uint32_t slot) {
    recv_mask |= 1u << slot;
    return *this;
  }
  Step& send(const StepSend& s) {
    sends[send_count++] = s;
    return *this;
  }
};

// One chunk's program of every member. Implementations are immutable after construction.
class StepSchedule {
 public:
  virtual ~StepSchedule() = default;
  virtual std::uint32_t threads() const = 0;  // per channel, <= 8
  virtual std::uint32_t slots() const = 0;    // receive slots per thread, <= 32
  virtual std::uint32_t length(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const = 0;
  // Step `index` (< length) of the program.
  virtual Step step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t index) const = 0;
  // Transfers `member` receives per chunk on `channel`, over all its threads.
  virtual std::uint32_t receives(std::uint32_t member, std::uint32_t channel) const = 0;
};

class StepExecution final : public Execution {
 public:
  // Requires validate(spec) to pass and `schedule` to describe spec.
  StepExecution(const CollectiveSpec& spec, std::unique_ptr<StepSchedule> schedule);

  void start(Progress& out) override;
  void on_sent(const Transfer& sent, Progress& out) override;
  void on_done(const Transfer& done, Progress& out) override;
  bool finished() const override { return finished_members_ == spec_.members; }

  // Bytes of state this execution holds (the benchmark reports it).
  std::size_t memory_bytes() const;

 private:
  struct Thread {
    std::uint32_t pc = 0;           // steps started, over all chunks
    std::uint32_t outstanding = 0;  // sends of the current step not yet arrived
  };
  struct Counter {
    std::uint32_t arrived = 0;
    std::uint32_t consumed = 0;
  };
  struct Member {
    std::uint32_t threads_done = 0;
    std::uint32_t received = 0;
    std::uint32_t expected = 0;
    bool reported = false;
  };

  std::size_t thread_index(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const {
    return (static_cast<std::size_t>(member) * spec_.channels + channel) * threads_ + thread;
  }
  // Runs the thread's steps as far as their dependencies allow; true if it started any.
  bool advance(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, Progress& out);
  // Runs every thread of (member, channel) until none moves.
  void advance_all(std::uint32_t member, std::uint32_t channel, Progress& out);
  bool ready(std::uint32_t member, std::uint32_t channel, std::uint32_t chunk, const Step& step) const;
  // Steps the thread has completed (started and all their sends arrived).
  std::uint32_t completed(std::size_t thread) const;
  // Makes `send` of step `pc` of the thread ready.
  void emit(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t chunk, std::uint32_t pc,
            const StepSend& send, Progress& out) const;
  void thread_done(std::uint32_t member, Progress& out);
  // The thread that made `t` (checked to be one of this execution's).
  std::size_t sender_thread(const Transfer& t) const;
  void release_sender(const Transfer& sent, Progress& out);
  void report_if_finished(std::uint32_t member, Progress& out);

  CollectiveSpec spec_;
  std::unique_ptr<StepSchedule> schedule_;
  std::uint32_t threads_;
  std::uint32_t slots_;
  std::vector<Thread> thread_state_;
  std::vector<Counter> counters_;  // per thread, slots_ each
  std::vector<Member> members_;
  std::uint32_t finished_members_ = 0;
  bool started_ = false;
  bool sent_reported_ = false;  // the caller reports on_sent (then on_done only delivers)
};

}  // namespace loom::collective
