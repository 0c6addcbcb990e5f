#include "loom/core/event_queue.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace loom {

namespace {
// Stable, in place, allocation-free: for the short ranges of runs and ties.
template <class T, class Less>
void insertion_sort(T* first, T* last, Less less) {
  for (T* i = first + (first != last ? 1 : 0); i < last; ++i) {
    if (!less(*i, *(i - 1))) continue;
    const T item = *i;
    T* j = i;
    do {
      *j = *(j - 1);
      --j;
    } while (j > first && less(item, *(j - 1)));
    *j = item;
  }
}
}  // namespace

EventQueue::EventQueue() {
  for (auto& level : minimum_) std::fill(std::begin(level), std::end(level), ~std::uint64_t{0});
}

bool EventQueue::cancel(EventId id) {
  if (!contains(id)) return false;
  free_slot(id.slot);
  --live_;
  --slotted_;
  note_stale(slots_[id.slot].key);
  return true;
}

EventId EventQueue::reschedule(EventId id, Time when) {
  if (!contains(id)) return EventId{};
  check_not_before_floor(when);
  // The slot stays with the event; only its generation moves on, which retires the old entry.
  Slot& record = slots_[id.slot];
  const std::uint64_t old_key = record.key;
  const std::uint32_t generation = ++generations_[id.slot];
  record.key = key_of(when);
  insert(Entry{record.key, record.fn, record.context, record.arg, id.slot, generation, record.order});
  note_stale(old_key);
  return EventId{id.slot, generation};
}

Time EventQueue::next_time() const {
  LOOM_ASSERT(live_ != 0, "next_time() on an empty event queue");
  bool found = false;
  std::uint64_t best = ~std::uint64_t{0};
  const auto consider = [&](const Entry& e) {
    if (stale_ != 0 && !live(e)) return;
    best = std::min(best, e.key);
    found = true;
  };
  pool_.for_each(current_, consider);
  std::for_each(static_cast<const Entry*>(run_next_), static_cast<const Entry*>(run_end_), consider);
  // The run and the level-0 buckets share one window below every higher bucket; the higher
  // buckets are ordered, so the first one holding a live entry holds their minimum.
  visit_buckets([&](unsigned level, unsigned digit) {
    if (level > 0 && found) return true;
    pool_.for_each(buckets_[level][digit], consider);
    return level > 0 && found;
  });
  LOOM_ASSERT(found, "event queue holds " + std::to_string(live_) + " events but no live entry");
  return Time::ps(static_cast<std::int64_t>(best));
}

std::vector<EventQueue::Entry> EventQueue::extract(EventFilter matches, void* filter_context) {
  compact();  // every entry left is live, so the buckets' minima are exact below
  std::vector<Entry> taken;
  const auto take = [&](const Entry& e) {
    const Fired event{Time::ps(static_cast<std::int64_t>(e.key)), e.fn, e.context, e.arg, e.order};
    if (!matches(filter_context, event)) return false;
    taken.push_back(e);
    return true;
  };
  pool_.erase_if(current_, take);
  run_.erase(std::remove_if(run_.begin(), run_.end(), take), run_.end());
  run_next_ = run_.data();
  run_end_ = run_next_ + run_.size();
  visit_buckets([&](unsigned level, unsigned digit) {
    Pool::List& bucket = buckets_[level][digit];
    if (pool_.erase_if(bucket, take) != 0) {
      if (bucket.empty()) {
        mark_empty(level, digit);
      } else {
        minimum_[level][digit] = smallest_key(bucket);
      }
    }
    return false;
  });
  return taken;
}

std::size_t EventQueue::shift(Time delta, EventFilter matches, void* filter_context) {
  std::vector<Entry> moved = extract(matches, filter_context);
  // Entries of one key were in one list in scheduling order: a stable sort keeps it.
  std::stable_sort(moved.begin(), moved.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  if (!moved.empty()) check_not_before_floor(Time::ps(static_cast<std::int64_t>(moved.front().key)) + delta);
  for (Entry e : moved) {
    e.key = key_of(Time::ps(static_cast<std::int64_t>(e.key)) + delta);
    if (e.slot != kNoSlot) slots_[e.slot].key = e.key;
    insert(e);
  }
  return moved.size();
}

std::size_t EventQueue::remove(EventFilter matches, void* filter_context) {
  const std::vector<Entry> removed = extract(matches, filter_context);
  for (const Entry& e : removed) {
    if (e.slot != kNoSlot) {
      free_slot(e.slot);
      --slotted_;
    }
    --live_;
  }
  return removed.size();
}

void EventQueue::reserve(std::size_t events) {
  if (events > slot_limit_) grow_slots(events);
}

void EventQueue::grow_slots(std::size_t events) {
  std::size_t words = std::max<std::size_t>(in_use_.size(), 1);
  while (words * 64 / 4 * 3 < events) words *= 2;
  LOOM_ASSERT(words * 64 < std::size_t{1} << 32, "more than 2^32 slots for simultaneous events");
  cursor_ = in_use_.size() % words;  // the search continues in the new, empty words
  in_use_.resize(words, 0);
  slots_.resize(words * 64, Slot{});
  generations_.resize(words * 64, 0);
  slot_limit_ = words * 64 / 4 * 3;
}

std::size_t EventQueue::memory_bytes() const {
  return pool_.memory_bytes() +
         (run_.capacity() + sort_scratch_.capacity() + tie_scratch_.capacity()) * sizeof(Entry) +
         slots_.capacity() * sizeof(Slot) +
         generations_.capacity() * sizeof(std::uint32_t) + in_use_.capacity() * sizeof(std::uint64_t);
}

bool EventQueue::settle_slow(std::uint64_t limit) {
  for (;;) {
    // At last_, the run's entries were scheduled before those in current_.
    while (run_next_ != run_end_ && run_next_->key == last_) {
      if (stale_current_ == 0 || live(*run_next_)) {
        head_in_run_ = true;
        return last_ <= limit;
      }
      pop_run_front();
      --stale_current_;
      --stale_;
    }
    while (!current_.empty()) {
      if (stale_current_ == 0 || live(pool_.front(current_))) {
        head_in_run_ = false;
        return last_ <= limit;
      }
      pool_.pop_front(current_);
      --stale_current_;
      --stale_;
    }
    if (!(run_next_ != run_end_ ? advance_in_window(limit) : refill(limit))) return false;
  }
}

bool EventQueue::advance_in_window(std::uint64_t limit) {
  while (run_next_ != run_end_) {
    // The next key: the run's front, or a level-0 bucket's key if that is not larger (the
    // bucket shares last_'s window, so its key is last_'s high bits and its digit).
    std::uint64_t key = run_next_->key;
    unsigned digit = digit_of(key, 0);
    if ((level_mask_ & 1u) != 0) {
      const unsigned lowest = lowest_digit(0);
      if (lowest <= digit) {
        digit = lowest;
        key = (last_ & ~std::uint64_t{kDigits - 1}) | lowest;
      }
    }
    Pool::List& bucket = buckets_[0][digit];
    const std::uint32_t stale = stale_in_[0][digit];
    if (stale != 0) {
      // Every stale entry of this key is counted here, in the run or the bucket: if none of
      // the key's entries is live, drop them all without moving last_.
      bool any = false;
      for (const Entry* e = run_next_; e != run_end_ && e->key == key && !any; ++e) any = live(*e);
      pool_.for_each(bucket, [&](const Entry& e) { any = any || live(e); });
      if (!any) {
        while (run_next_ != run_end_ && run_next_->key == key) pop_run_front();
        if (!bucket.empty()) {
          pool_.clear(bucket);
          mark_empty(0, digit);
        }
        stale_ -= stale;
        stale_in_[0][digit] = 0;
        continue;
      }
    }
    if (key > limit) return false;
    last_ = key;
    stale_current_ = stale;
    stale_in_[0][digit] = 0;
    if (!bucket.empty()) {
      // The run's entries of this key were scheduled before the bucket's: merged in front of
      // them and sorted together by order key.
      for (; run_next_ != run_end_ && run_next_->key == key; pop_run_front()) pool_.push_back(current_, *run_next_);
      pool_.consume(bucket, [this](const Entry& e) { pool_.push_back(current_, e); });
      mark_empty(0, digit);
      order_current();
    }
    return true;
  }
  return refill(limit);
}

void EventQueue::build_run(Pool::List& taken, std::uint32_t stale) {
  LOOM_ASSERT(run_next_ == run_end_ && current_.empty(), "run built while entries are due");
  run_.clear();
  if (stale == 0) {
    pool_.consume(taken, [this](const Entry& e) { run_.push_back(e); });
  } else {
    pool_.consume(taken, [this](const Entry& e) {
      if (live(e)) {
        run_.push_back(e);
      } else {
        --stale_;
      }
    });
  }
  // The keys differ only in their low digit: sorting by it sorts them, stably; then each
  // group of equal keys is sorted stably by order key.
  const std::size_t n = run_.size();
  if (n <= kInsertionSort) {
    insertion_sort(run_.data(), run_.data() + n, before);
  } else {
    std::uint32_t start[kDigits] = {};
    for (const Entry& e : run_) ++start[digit_of(e.key, 0)];
    std::uint32_t position = 0;
    for (std::uint32_t& s : start) position += std::exchange(s, position);
    sort_scratch_.resize(n);
    for (const Entry& e : run_) sort_scratch_[start[digit_of(e.key, 0)]++] = e;
    run_.swap(sort_scratch_);
    for (std::size_t i = 0; i + 1 < n;) {
      std::size_t end = i + 1;
      while (end < n && run_[end].key == run_[i].key) ++end;
      if (end - i > 1) insertion_sort(run_.data() + i, run_.data() + end, before);
      i = end;
    }
  }
  run_next_ = run_.data();
  run_end_ = run_next_ + n;
}

bool EventQueue::refill(std::uint64_t limit) {
  while (level_mask_ != 0) {
    const auto level = static_cast<unsigned>(std::countr_zero(level_mask_));
    const unsigned digit = lowest_digit(level);
    Pool::List& source = buckets_[level][digit];
    std::uint64_t minimum = minimum_[level][digit];
    const std::uint32_t stale = stale_in_[level][digit];
    if (stale != 0) {
      // The recorded minimum may belong to a cancelled entry: find the live one. The cancelled
      // entries themselves are dropped below, as the bucket is taken.
      minimum = ~std::uint64_t{0};
      pool_.for_each(source, [&](const Entry& e) {
        if (live(e)) minimum = std::min(minimum, e.key);
      });
      if (minimum == ~std::uint64_t{0}) {
        pool_.clear(source);
        stale_ -= stale;
        stale_in_[level][digit] = 0;
        mark_empty(level, digit);
        continue;
      }
      minimum_[level][digit] = minimum;
    }
    if (minimum > limit) {
      if (stale != 0) {  // not due yet: drop the cancelled entries now, not at every look
        stale_ -= purge(source);
        stale_in_[level][digit] = 0;
      }
      return false;
    }
    last_ = minimum;
    Pool::List taken = source;
    source = Pool::List{};
    stale_in_[level][digit] = 0;
    mark_empty(level, digit);
    if (level == 0) {
      // A level-0 bucket holds one key (last_'s higher digits and this digit): all of it is
      // due now. current_ is empty here; settle_slow() skips its cancelled entries.
      current_ = taken;
      stale_current_ = stale;
      order_current();
      return true;
    }
    if (taken.single()) {  // a lone entry is live (a lone cancelled one was cleared above)
      current_ = taken;
      return true;
    }
    if (level == 1) {
      build_run(taken, stale);
      return true;
    }
    // The entries agree with the minimum on this level's digit and above, so relative to the
    // new last_ each one lands on a lower level (or in current_).
    if (stale == 0) {
      pool_.consume(taken, [this](const Entry& e) { insert(e); });
    } else {
      pool_.consume(taken, [this](const Entry& e) {
        if (live(e)) {
          insert(e);
        } else {
          --stale_;
        }
      });
    }
    order_current();  // the minimum's entries landed there
    return true;
  }
  return false;
}

void EventQueue::order_current() {
  if (current_.empty() || current_.single()) return;
  bool sorted = true;
  std::uint32_t previous = 0;
  pool_.for_each(current_, [&](const Entry& e) {
    sorted = sorted && e.order >= previous;
    previous = e.order;
  });
  if (sorted) return;  // the common case: one order key, or already in order
  tie_scratch_.clear();
  pool_.consume(current_, [this](const Entry& e) { tie_scratch_.push_back(e); });
  const auto by_order = [](const Entry& a, const Entry& b) { return a.order < b.order; };
  if (tie_scratch_.size() <= kInsertionSort) {
    insertion_sort(tie_scratch_.data(), tie_scratch_.data() + tie_scratch_.size(), by_order);
  } else {
    std::stable_sort(tie_scratch_.begin(), tie_scratch_.end(), by_order);
  }
  for (const Entry& e : tie_scratch_) pool_.push_back(current_, e);
}

void EventQueue::note_stale(std::uint64_t key) {
  ++stale_;
  const std::uint64_t differing = key ^ last_;
  if (differing == 0) {
    ++stale_current_;
  } else {
    const unsigned level = level_of(differing);
    ++stale_in_[level][digit_of(key, level)];
  }
  if (stale_ > live_ + kStaleSlack) compact();
}

std::size_t EventQueue::purge(Pool::List& list) {
  return pool_.erase_if(list, [this](const Entry& e) { return !live(e); });
}

std::uint64_t EventQueue::smallest_key(const Pool::List& list) const {
  std::uint64_t minimum = ~std::uint64_t{0};
  pool_.for_each(list, [&minimum](const Entry& e) { minimum = std::min(minimum, e.key); });
  return minimum;
}

void EventQueue::compact() {
  purge(current_);
  run_.erase(run_.begin(), run_.begin() + (run_next_ - run_.data()));
  run_.erase(std::remove_if(run_.begin(), run_.end(), [this](const Entry& e) { return !live(e); }), run_.end());
  run_next_ = run_.data();
  run_end_ = run_next_ + run_.size();
  visit_buckets([this](unsigned level, unsigned digit) {
    Pool::List& bucket = buckets_[level][digit];
    purge(bucket);
    if (bucket.empty()) {
      mark_empty(level, digit);
    } else {
      minimum_[level][digit] = smallest_key(bucket);  // it may have been a cancelled key
    }
    return false;
  });
  stale_ = 0;
  stale_current_ = 0;
  for (auto& level : stale_in_) std::fill(std::begin(level), std::end(level), 0u);
}

}  // namespace loom
