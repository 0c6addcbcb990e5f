// Lists of fixed-size chunks that share one pool: FIFO sequences whose memory follows what
// they hold, not the most they ever held.
//
// A List is a singly linked chain of chunks of kChunkSize items, appended at the tail and
// consumed at the head. Emptied chunks go back to the pool's free list and are reused by any
// list, so the pool holds at most about (items held / kChunkSize + non-empty lists) chunks at
// its peak and, once it has reached that, never allocates again. Chunks are allocated in slabs
// and never move, so a List holds plain pointers and push_back is a bounds check and a store.
// Items are visited chunk by chunk, nearly as cache-friendly as a vector.
//
// Complexity: push_back and pop_front O(1); first_least O(its limit); for_each, consume and
// erase_if O(items in the list). A List is a small value owned by the caller and may be moved
// by assignment; using it with another pool, or after its pool is gone, is a bug. The pool is movable (chunks stay
// where they are, so lists remain valid with the new owner) but not copyable. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

template <class T, std::uint32_t kChunkSize>
class ChunkPool {
  static_assert(std::is_trivially_copyable_v<T>, "items are moved as raw values");
  static_assert(kChunkSize > 0);

  struct Chunk {
    T items[kChunkSize];
    Chunk* next;
  };

 public:
  // An empty list holds no chunk. A non-empty one holds at least one item.
  struct List {
    Chunk* head = nullptr;
    Chunk* tail = nullptr;
    std::uint32_t head_offset = 0;         // items of the head chunk already consumed
    std::uint32_t tail_count = kChunkSize;  // items in the tail chunk; kChunkSize when empty

    bool empty() const { return head == nullptr; }
    bool single() const { return head == tail && head_offset + 1 == tail_count; }
  };

  ChunkPool() = default;
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;
  ChunkPool(ChunkPool&& other) noexcept
      : slabs_(std::move(other.slabs_)),
        free_(std::exchange(other.free_, nullptr)),
        chunk_count_(std::exchange(other.chunk_count_, 0)) {}
  ChunkPool& operator=(ChunkPool&& other) noexcept {
    slabs_ = std::move(other.slabs_);
    free_ = std::exchange(other.free_, nullptr);
    chunk_count_ = std::exchange(other.chunk_count_, 0);
    return *this;
  }

  void push_back(List& list, const T& item) {
    if (list.tail_count == kChunkSize) [[unlikely]] append_chunk(list);
    list.tail->items[list.tail_count++] = item;
  }

  // Requires !list.empty().
  const T& front(const List& list) const { return list.head->items[list.head_offset]; }

  // Requires !list.empty().
  void pop_front(List& list) {
    ++list.head_offset;
    if (list.head == list.tail) {
      if (list.head_offset == list.tail_count) clear(list);
    } else if (list.head_offset == kChunkSize) {
      Chunk* c = list.head;
      list.head = c->next;
      list.head_offset = 0;
      release(c);
    }
  }

  // Calls f(item) for each item, front to back.
  template <class F>
  void for_each(const List& list, F&& f) const {
    std::uint32_t offset = list.head_offset;
    for (const Chunk* c = list.head; c != nullptr; c = c->next, offset = 0) {
      const std::uint32_t count = c == list.tail ? list.tail_count : kChunkSize;
      for (std::uint32_t i = offset; i < count; ++i) f(c->items[i]);
    }
  }

  // The first of the least items under `less` when the list holds 1..limit items in one
  // chunk; nullptr otherwise. O(limit).
  template <class Less>
  const T* first_least(const List& list, std::uint32_t limit, Less&& less) const {
    if (list.empty() || list.head != list.tail || list.tail_count - list.head_offset > limit) return nullptr;
    const T* best = &list.head->items[list.head_offset];
    for (std::uint32_t i = list.head_offset + 1; i < list.tail_count; ++i) {
      if (less(list.head->items[i], *best)) best = &list.head->items[i];
    }
    return best;
  }

  // Empties the list, calling f(item) for each item front to back and recycling each chunk
  // once visited. f may push to other lists of this pool (not to `list`).
  template <class F>
  void consume(List& list, F&& f) {
    const List taken = list;
    list = List{};
    std::uint32_t offset = taken.head_offset;
    for (Chunk* c = taken.head; c != nullptr; offset = 0) {
      const std::uint32_t count = c == taken.tail ? taken.tail_count : kChunkSize;
      for (std::uint32_t i = offset; i < count; ++i) f(c->items[i]);
      Chunk* next = c->next;
      release(c);
      c = next;
    }
  }

  // Removes the items for which pred(item) is true, keeping the order of the others; frees
  // the chunks that are no longer needed. Returns the number removed.
  template <class P>
  std::size_t erase_if(List& list, P&& pred) {
    if (list.empty()) return 0;
    Chunk* write_chunk = list.head;
    std::uint32_t write_index = 0;
    std::size_t kept = 0;
    std::size_t removed = 0;
    std::uint32_t offset = list.head_offset;
    for (Chunk* c = list.head; c != nullptr; c = c->next, offset = 0) {
      const std::uint32_t count = c == list.tail ? list.tail_count : kChunkSize;
      for (std::uint32_t i = offset; i < count; ++i) {
        if (pred(c->items[i])) {
          ++removed;
          continue;
        }
        if (write_index == kChunkSize) {
          write_chunk = write_chunk->next;
          write_index = 0;
        }
        write_chunk->items[write_index++] = c->items[i];  // never ahead of the read cursor
        ++kept;
      }
    }
    if (kept == 0) {
      clear(list);
      return removed;
    }
    for (Chunk* c = write_chunk->next; c != nullptr;) {
      Chunk* next = c->next;
      release(c);
      c = next;
    }
    write_chunk->next = nullptr;
    list.tail = write_chunk;
    list.tail_count = write_index;
    list.head_offset = 0;
    return removed;
  }

  void clear(List& list) {
    for (Chunk* c = list.head; c != nullptr;) {
      Chunk* next = c->next;
      release(c);
      c = next;
    }
    list = List{};
  }

  // Chunks allocated so far (in use or free) and the bytes they occupy.
  std::size_t chunk_count() const { return chunk_count_; }
  std::size_t memory_bytes() const { return chunk_count_ * sizeof(Chunk); }

 private:
  void append_chunk(List& list) {
    if (free_ == nullptr) add_slab();
    Chunk* c = free_;
    free_ = c->next;
    c->next = nullptr;
    if (list.tail == nullptr) {
      list.head = c;
      list.head_offset = 0;
    } else {
      list.tail->next = c;
    }
    list.tail = c;
    list.tail_count = 0;
  }

  // Grows the pool geometrically (each slab as large as all before it, within bounds).
  void add_slab() {
    const std::size_t count = std::clamp<std::size_t>(chunk_count_, 16, 4096);
    slabs_.push_back(std::make_unique_for_overwrite<Chunk[]>(count));
    Chunk* slab = slabs_.back().get();
    for (std::size_t i = 0; i < count; ++i) release(&slab[i]);
    chunk_count_ += count;
  }

  void release(Chunk* c) {
    c->next = free_;
    free_ = c;
  }

  std::vector<std::unique_ptr<Chunk[]>> slabs_;
  Chunk* free_ = nullptr;
  std::size_t chunk_count_ = 0;
};

}  // namespace loom
