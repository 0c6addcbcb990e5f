// The pending-event set of a discrete-event simulation: a monotone radix heap.
//
// Order: events leave by time. At equal times, the events pending when the queue reaches that
// time (pops it first) leave by their order key (a 32-bit value given when scheduling, 0 by
// default), equal keys in the order they were scheduled (push(), post() or reschedule()); events
// scheduled at the floor itself after it was reached (zero delay) follow them, in scheduling
// order. So the order of simultaneous events is fixed by their keys, not by which of their
// causes ran first: a model that keys its events by what they belong to (a link, a queue pair)
// runs each of them in the same order however their sources are interleaved, as a parallel
// execution over several queues needs. Every run is deterministic.
//
// Monotonicity: a push may not be earlier than the time of the last popped event (the queue's
// floor(), initially zero); times are never negative. Violations are bugs (LOOM_ASSERT). This
// is what a simulator needs (nothing is scheduled in the past) and what the radix heap exploits.
//
// Structure: a radix heap with base-256 digits. Let `last` be the key (time in ps) of the last
// popped event. Keys equal to `last` sit in the `current` list, consumed from the front. Any
// other key k first differs from `last` at bit h = bit_width(k XOR last) - 1 and sits in
// bucket (level h / 8, digit = k's 8-bit digit at that level); that digit is larger than
// last's. Buckets are ordered: every key in (level, d) is smaller than every key in
// (level, d') for d < d' and than every key on a higher level. Per-level 256-bit masks find
// the lowest non-empty bucket in O(1), and each bucket records its smallest key as entries
// arrive.
// When `current` runs out, pop() takes that bucket, makes its minimum the new `last` and
// redistributes its entries, in their stored order, to lower levels (those equal to the
// minimum into `current`); entries elsewhere keep their bucket. A level-0 bucket holds a
// single key, so it becomes `current` whole, without copying; so does a bucket of one entry.
//
// The run (bottom level): a level-1 bucket holds keys that differ only in their low 8 bits
// (a 256 ps window). Distributing it over level-0 buckets would cost one move and one bucket
// take per key, and keys this close are nearly always distinct. Instead it is sorted by key
// (stably: insertion sort, or counting sort on the low digit when large) into `run`, an
// array consumed from the front. While the run lasts, `last` stays in its window: pushes
// into the window go to level-0 buckets (or `current`) as before, and the next key is the
// smaller of the run's front and the lowest level-0 bucket. At one key the run's entries
// come first (they were scheduled before the window was entered), then `current` (a taken
// level-0 bucket, then pushes at that key).
//
// Why ties come out in (order key, scheduling) order without sequence numbers: the bucket of an
// entry depends only on its key and `last`, so all entries with one key share a bucket. A push
// appends, and a redistribution moves all entries of a key together, keeping their order, into
// a bucket that held none of that key. So within each bucket the entries of one key are always
// in scheduling order. When `last` moves to a key, its entries (all in one list then) become
// `current` and are sorted stably by order key; later pushes at `last` append behind them. The
// run is sorted stably by (key, order key); when `last` reaches a key of the run's window whose
// level-0 bucket is not empty, the run's entries of that key (scheduled earlier) and the
// bucket's are merged into `current` and sorted together.
//
// Complexity: push O(1). An entry only ever moves to a lower level, so it is moved at most
// once per level below its first one: ceil(bit_width(when XOR floor) / 8) <= 8 times, at most
// 3 for delays below 16 us (2^24 ps; base-64 digits took up to 4 from 262 ns on), and one
// fewer when it reaches a run. pop is O(1) plus those moves, amortised (sorting a run of n
// entries is O(n): insertion sort only up to kInsertionSort entries, counting sort beyond).
// cancel and reschedule are O(1) amortised; taking a bucket that holds cancelled entries costs
// one more pass over it. next_time() is O(run + level-0 entries + the lowest higher bucket):
// for tests and rare look-ups, not the hot path. peek() is O(1).
//
// Cancellation is lazy: a cancelled (or rescheduled) entry stays in its list and is
// recognised by its slot's bit or generation. The list holding an entry can be computed from
// its key and the current `last` until that list is taken (a redistribution changes `last`
// only below the level of the bucket it takes), so cancel() counts the stale entry against
// its list, and only lists with a non-zero count are ever scanned for stale entries:
// cancellations elsewhere cost the hot path nothing. (An entry of the run's window counts
// against the level-0 bucket of its key, or `current` at `last`, whether it sits in the run or
// in that bucket; both are checked when `last` reaches the key.) When stale entries outnumber
// live ones by more than a small constant, all lists are compacted, so entries stay within
// about twice the live count.
//
// Memory: entries (48 bytes: time, order key and action) are stored by value in chunked lists drawn from
// one ChunkPool, so memory follows the number of entries, not the largest size each bucket
// ever had (with per-bucket vectors, every high bucket would in time hold capacity for all
// events as the clock crosses powers of two); the run and its sorting scratch are two vectors
// as large as the largest level-1 bucket taken. Slots (the identities behind EventIds: 32 bytes
// of action and time, plus a 4-byte generation in a dense array of its own, which is all that
// liveness checks read) are kept at most three quarters full and handed out in address order
// from a bitmap, so the hot path never writes to a random slot: firing an event only clears
// its bit. Once the queue has reached its working size, push, pop, cancel and reschedule
// allocate nothing.
//
// Posted events (post(): never cancelled or rescheduled) take no slot and have no id: their
// entries carry kNoSlot and are always live, so scheduling one writes only its entry.
//
// Event ids are (slot, generation). An id is pending while its slot's bit is set and the
// slot's generation still matches; the generation advances whenever the slot takes a new
// event or its event is rescheduled, so stale ids are detected and ignored. A slot has to be
// reused 2^32 times before an old id could match again.
//
// Movable, not copyable. Not thread-safe: one queue per thread (a Simulator owns one).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/chunk_pool.h"
#include "loom/core/error.h"
#include "loom/core/time.h"

namespace loom {

// An event's action: a plain function called with the context pointer and the argument given
// when it was scheduled. No allocation, no virtual call, no std::function.
using EventFn = void (*)(void* context, std::uint64_t arg);

// Names a scheduled event. Default-constructed ids are invalid; ids of events that have fired
// or were cancelled are stale (valid() but no longer pending).
struct EventId {
  std::uint32_t slot = ~0u;
  std::uint32_t generation = 0;

  bool valid() const { return slot != ~0u; }
  friend bool operator==(const EventId&, const EventId&) = default;
};

class EventQueue {
 public:
  // What pop() hands back: the event's time and its action.
  struct Fired {
    Time time;
    EventFn fn;
    void* context;
    std::uint64_t arg;
    std::uint32_t order = 0;  // the order key it was scheduled with
  };

  EventQueue();

  // Adds an event at `when` (>= floor()) with its order key among simultaneous events (see
  // Order above). fn must not be null. O(1).
  EventId push(Time when, EventFn fn, void* context, std::uint64_t arg, std::uint32_t order = 0);
  // As push() for an event that will never be cancelled or rescheduled: it takes no slot, so
  // it costs no slot bookkeeping and has no id. Ordered with pushed events as if pushed. O(1).
  void post(Time when, EventFn fn, void* context, std::uint64_t arg, std::uint32_t order = 0);

  // Removes a pending event. Returns false (and changes nothing) if `id` is invalid, has fired,
  // was cancelled or was rescheduled. O(1) amortised.
  bool cancel(EventId id);

  // Moves a pending event to `when` (>= floor()), keeping its action and order key. It counts
  // as scheduled now, i.e. it runs after the events already scheduled at `when` with its order
  // key. Returns the new id (the old one becomes stale), or an invalid id if `id` was not pending. O(1) amortised.
  EventId reschedule(EventId id, Time when);

  // True while the event named by `id` is pending.
  bool contains(EventId id) const {
    return id.slot < slots_.size() && in_use(id.slot) && generations_[id.slot] == id.generation;
  }

  // Number of pending (not cancelled) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // Time of the last popped event: the earliest time a push may use.
  Time floor() const { return Time::ps(static_cast<std::int64_t>(last_)); }

  // Time of the earliest pending event. Requires !empty(). Does not change the queue's order
  // or floor. Not O(1): see the complexity note above.
  Time next_time() const;

  // Removes and returns the earliest pending event (ties in scheduling order). Requires
  // !empty().
  Fired pop();

  // Like pop() for an event due no later than `limit`: returns false and leaves floor()
  // unchanged if no pending event is that early.
  bool pop_due(Time limit, Fired& out);

  // A look ahead for prefetching: the event pop() would return next, when finding it takes at
  // most kPeekEntries entries (it is due at floor(), a run is under way, or the lowest
  // non-empty bucket is that small), else false. Changes nothing. Only a hint: while
  // cancelled events are pending it may name one of them, and among events of one time not
  // yet reached it may name another than the first by order key.
  bool peek(Fired& out) const {
    const Entry* e = nullptr;
    const bool run = run_next_ != run_end_;
    if (run && run_next_->key == last_) {
      e = run_next_;
    } else if (!current_.empty()) {
      e = &pool_.front(current_);
    } else if (run) {
      // Within the run's window: its front, unless a level-0 bucket holds a smaller key.
      e = run_next_;
      if ((level_mask_ & 1u) != 0) {
        const unsigned lowest = lowest_digit(0);
        if (lowest < digit_of(e->key, 0)) e = &pool_.front(buckets_[0][lowest]);
      }
    } else if (level_mask_ != 0) {
      const auto level = static_cast<unsigned>(std::countr_zero(level_mask_));
      const Pool::List& list = buckets_[level][lowest_digit(level)];
      // A level-0 bucket holds one key: its front is due first; elsewhere the earliest key is.
      e = level == 0 ? &pool_.front(list) : pool_.first_least(list, kPeekEntries, before);
    }
    if (e == nullptr) return false;
    out = Fired{Time::ps(static_cast<std::int64_t>(e->key)), e->fn, e->context, e->arg, e->order};
    return true;
  }

  // Moves every pending event that `matches` selects by `delta` (negative too, as long as no
  // moved event lands before floor()), keeping its id (slot and generation), action and order
  // key. Moved events count as scheduled now at their new times (Order above: after events of
  // equal time and order key already pending; at floor(), after everything due then); among
  // themselves they keep their order. Returns how many moved. O(pending events)
  // plus a sort of the moved ones: for rare whole-queue operations (packet fast-forward
  // shifting a partition's events), not for the hot path.
  using EventFilter = bool (*)(void* filter_context, const Fired& event);
  std::size_t shift(Time delta, EventFilter matches, void* filter_context);
  // Removes every pending event that `matches` selects (posted ones too), as cancel() would.
  // Returns how many. O(pending events): for rare whole-queue operations (packet fast-forward
  // replacing a partition's state with a copy of another's).
  std::size_t remove(EventFilter matches, void* filter_context);

  // Pre-sizes slot storage for `events` simultaneous events.
  void reserve(std::size_t events);

  // Bytes of heap memory held (entries, free chunks and slots).
  std::size_t memory_bytes() const;

 private:
  struct Entry {
    std::uint64_t key;
    EventFn fn;
    void* context;
    std::uint64_t arg;
    std::uint32_t slot;
    std::uint32_t generation;
    std::uint32_t order;
  };
  // Due first: the earlier key, then the smaller order key.
  static bool before(const Entry& a, const Entry& b) {
    return a.key < b.key || (a.key == b.key && a.order < b.order);
  }
  // The identity behind an EventId (its generation, counting the events the slot has held and
  // their reschedules, is in generations_): the action is kept for reschedule(), the key for
  // finding the list a cancelled entry sits in; pop() reads the copy in the entry.
  struct Slot {
    EventFn fn;
    void* context;
    std::uint64_t arg;
    std::uint64_t key;
    std::uint32_t order;
  };
  static constexpr unsigned kDigitBits = 8;
  static constexpr unsigned kDigits = 1u << kDigitBits;
  static constexpr unsigned kMaskWords = kDigits / 64;
  static constexpr unsigned kLevels = 8;  // ceil(63 / 8): keys are non-negative int64
  static_assert(kMaskWords == 4, "mark_empty tests the four mask words of a level");
  using Pool = ChunkPool<Entry, 32>;
  // Cancelled entries are purged when they exceed the live ones by this many.
  static constexpr std::size_t kStaleSlack = 64;
  static constexpr std::uint32_t kNoSlot = ~0u;  // the slot of a posted event
  static constexpr std::uint32_t kPeekEntries = 8;
  // Runs up to this long are sorted by insertion, longer ones by counting sort.
  static constexpr std::size_t kInsertionSort = 16;

  static std::uint64_t key_of(Time t) { return static_cast<std::uint64_t>(t.picoseconds()); }
  bool in_use(std::uint32_t slot) const { return (in_use_[slot / 64] >> (slot % 64)) & 1; }
  bool live(const Entry& e) const {
    return e.slot == kNoSlot || (in_use(e.slot) && generations_[e.slot] == e.generation);
  }
  void free_slot(std::uint32_t slot) { in_use_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64)); }
  // Takes the next free slot at or after the cursor. Slots are handed out in address order
  // (wrapping around), so scheduling writes slot records almost sequentially, and firing only
  // clears a bit: no random access into the slot records on the hot path.
  std::uint32_t allocate_slot() {
    if (slotted_ >= slot_limit_) [[unlikely]] grow_slots(slotted_ + 1);
    for (;;) {
      const std::uint64_t free_bits = ~in_use_[cursor_];
      if (free_bits != 0) {
        const int bit = std::countr_zero(free_bits);
        in_use_[cursor_] |= std::uint64_t{1} << bit;
        return static_cast<std::uint32_t>(cursor_ * 64 + static_cast<std::size_t>(bit));
      }
      if (++cursor_ == in_use_.size()) cursor_ = 0;
    }
  }
  // Doubles the slot capacity until `events` fit within its three quarters.
  void grow_slots(std::size_t events);
  void check_not_before_floor(Time when) const {
    LOOM_ASSERT(when.picoseconds() >= 0 && key_of(when) >= last_,
                "event scheduled at " + to_string(when) + ", before the queue's floor " +
                    to_string(floor()));
  }
  static unsigned level_of(std::uint64_t differing) {
    return (static_cast<unsigned>(std::bit_width(differing)) - 1) / kDigitBits;
  }
  static unsigned digit_of(std::uint64_t key, unsigned level) {
    return static_cast<unsigned>(key >> (level * kDigitBits)) & (kDigits - 1);
  }
  [[gnu::always_inline]] void insert(const Entry& e) {
    const std::uint64_t differing = e.key ^ last_;
    if (differing == 0) {
      pool_.push_back(current_, e);
      return;
    }
    const unsigned level = level_of(differing);
    const unsigned digit = digit_of(e.key, level);
    Pool::List& list = buckets_[level][digit];
    std::uint64_t& minimum = minimum_[level][digit];
    if (list.empty()) {  // the masks change only for a bucket's first entry
      minimum = e.key;
      digit_mask_[level][digit / 64] |= std::uint64_t{1} << (digit % 64);
      level_mask_ |= 1u << level;
    } else if (e.key < minimum) {
      minimum = e.key;
    }
    pool_.push_back(list, e);
  }
  // Resets the bookkeeping of a bucket that has just become empty.
  void mark_empty(unsigned level, unsigned digit) {
    minimum_[level][digit] = ~std::uint64_t{0};
    std::uint64_t* mask = digit_mask_[level];
    mask[digit / 64] &= ~(std::uint64_t{1} << (digit % 64));
    if ((mask[0] | mask[1] | mask[2] | mask[3]) == 0) level_mask_ &= ~(1u << level);
  }
  // The lowest non-empty bucket of a non-empty level.
  unsigned lowest_digit(unsigned level) const {
    const std::uint64_t* mask = digit_mask_[level];
    unsigned word = 0;
    while (mask[word] == 0) ++word;
    return word * 64 + static_cast<unsigned>(std::countr_zero(mask[word]));
  }
  // Calls f(level, digit) for each non-empty bucket, lowest first, until f returns true; f may
  // empty the bucket it is given.
  template <class F>
  void visit_buckets(F&& f) const {
    for (std::uint32_t levels = level_mask_; levels != 0; levels &= levels - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(levels));
      for (unsigned word = 0; word < kMaskWords; ++word) {
        for (std::uint64_t digits = digit_mask_[level][word]; digits != 0; digits &= digits - 1) {
          if (f(level, word * 64 + static_cast<unsigned>(std::countr_zero(digits)))) return;
        }
      }
    }
  }
  // Makes the head (the run's front at last_, else the front of `current_`) a live entry with
  // key <= limit, and records where it is; false if there is none.
  bool settle(std::uint64_t limit) {
    if (stale_current_ == 0) {
      const bool run = run_next_ != run_end_;
      if (run && run_next_->key == last_) {
        head_in_run_ = true;
        return last_ <= limit;
      }
      if (!current_.empty()) {
        head_in_run_ = false;
        return last_ <= limit;
      }
      // Nothing left at last_, no level-0 bucket and nothing cancelled: the run's front is next.
      if (run && stale_ == 0 && (level_mask_ & 1u) == 0) {
        if (run_next_->key > limit) return false;
        last_ = run_next_->key;
        head_in_run_ = true;
        return true;
      }
    }
    return settle_slow(limit);
  }
  bool settle_slow(std::uint64_t limit);
  // Redistributes the lowest non-empty bucket if its live minimum is <= limit.
  bool refill(std::uint64_t limit);
  // With the run non-empty (and nothing left at last_): moves last_ to the next key of the
  // window if it is <= limit.
  bool advance_in_window(std::uint64_t limit);
  // Replaces the (empty) run by the live entries of a taken level-1 bucket, sorted by key.
  void build_run(Pool::List& taken, std::uint32_t stale);
  // Sorts current_, the entries of a key last_ has just reached, stably by order key.
  void order_current();
  void pop_run_front() { ++run_next_; }
  Fired take_head();
  // Removes cancelled entries from a list; returns how many.
  std::size_t purge(Pool::List& list);
  std::uint64_t smallest_key(const Pool::List& list) const;
  // Counts a cancelled or rescheduled entry of key `key` against the list holding it.
  void note_stale(std::uint64_t key);
  void compact();
  // Takes the pending entries `matches` selects out of the lists (shift, remove).
  std::vector<Entry> extract(EventFilter matches, void* filter_context);

  Pool pool_;
  Pool::List current_;                       // entries with key == last_ (after the run's)
  std::vector<Entry> run_;                   // the sorted run of last_'s 256 ps window
  Entry* run_next_ = nullptr;                // the part not yet popped: [run_next_, run_end_)
  Entry* run_end_ = nullptr;
  std::vector<Entry> sort_scratch_;          // counting sort's output, swapped into run_
  std::vector<Entry> tie_scratch_;           // order_current()'s buffer
  bool head_in_run_ = false;                 // where settle() found the head
  Pool::List buckets_[kLevels][kDigits];
  // Smallest key pushed into each bucket since it was last empty (cancelled entries included).
  std::uint64_t minimum_[kLevels][kDigits];
  std::uint64_t digit_mask_[kLevels][kMaskWords] = {};  // bit d: buckets_[level][d] non-empty
  std::uint32_t level_mask_ = 0;             // bit l set iff some bit of digit_mask_[l] is
  std::uint64_t last_ = 0;                   // key of the last popped event
  std::size_t live_ = 0;                     // pending events
  std::size_t slotted_ = 0;                  // ... of them pushed (holding a slot)
  std::size_t stale_ = 0;  // cancelled or rescheduled entries still in the lists
  std::size_t stale_current_ = 0;  // ... of them at key last_ (in current_ or the run)
  std::uint32_t stale_in_[kLevels][kDigits] = {};  // ... of them in each bucket
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> generations_;   // per slot
  std::vector<std::uint64_t> in_use_;  // bit per slot: holds a pending event
  std::size_t cursor_ = 0;             // word of in_use_ where the search for a free slot starts
  std::size_t slot_limit_ = 0;         // live events allowed before the slots grow
};

inline EventId EventQueue::push(Time when, EventFn fn, void* context, std::uint64_t arg,
                                std::uint32_t order) {
  check_not_before_floor(when);
  LOOM_ASSERT(fn != nullptr, "event pushed without an action");
  const std::uint32_t slot = allocate_slot();
  const std::uint32_t generation = ++generations_[slot];
  const std::uint64_t key = key_of(when);
  slots_[slot] = Slot{fn, context, arg, key, order};
  insert(Entry{key, fn, context, arg, slot, generation, order});
  ++live_;
  ++slotted_;
  return EventId{slot, generation};
}

inline void EventQueue::post(Time when, EventFn fn, void* context, std::uint64_t arg,
                             std::uint32_t order) {
  check_not_before_floor(when);
  LOOM_ASSERT(fn != nullptr, "event posted without an action");
  insert(Entry{key_of(when), fn, context, arg, kNoSlot, 0, order});
  ++live_;
}

inline EventQueue::Fired EventQueue::take_head() {
  Entry e;
  if (head_in_run_) {
    e = *run_next_;
    pop_run_front();
  } else {
    e = pool_.front(current_);
    pool_.pop_front(current_);
  }
  if (e.slot != kNoSlot) {
    free_slot(e.slot);
    --slotted_;
  }
  --live_;
  return Fired{Time::ps(static_cast<std::int64_t>(e.key)), e.fn, e.context, e.arg, e.order};
}

inline EventQueue::Fired EventQueue::pop() {
  LOOM_ASSERT(live_ != 0, "pop() on an empty event queue");
  settle(~std::uint64_t{0});
  return take_head();
}

inline bool EventQueue::pop_due(Time limit, Fired& out) {
  if (live_ == 0 || limit.picoseconds() < 0 || !settle(key_of(limit))) return false;
  out = take_head();
  return true;
}

}  // namespace loom
