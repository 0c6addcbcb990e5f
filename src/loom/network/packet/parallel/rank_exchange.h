// The messages between the ranks of one packet simulation partitioned over processes
// (rank_sync.h): what every rank sends every other at a window's boundary, and what all ranks
// agree on. An interface, so that the executor does not depend on MPI (mpi_rank_exchange.h
// implements it over MPI_COMM_WORLD).
//
// Messages are byte strings written and read with ByteWriter / ByteReader: trivially copyable
// values in this machine's layout (every rank runs the same binary on the same kind of machine).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "loom/core/error.h"

namespace loom::network::packet::parallel {

class RankExchange {
 public:
  virtual ~RankExchange() = default;
  virtual std::uint32_t rank() const = 0;
  virtual std::uint32_t size() const = 0;
  // Collective: sends outgoing[r] to rank r (outgoing.size() == size(); this rank's own entry is
  // not sent) and returns what each rank sent this one, by rank (this rank's entry empty).
  virtual std::vector<std::string> exchange(const std::vector<std::string>& outgoing) = 0;
  // Collective: every rank's `text`, by rank, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& text) = 0;
};

class ByteWriter {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  template <class T>
  void put_all(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  // A byte string of any length (get_text reads it back).
  void put_text(std::string_view text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_.append(text);
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    LOOM_ASSERT(at_ + sizeof(T) <= bytes_.size(), "a rank's message ends early");
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  // A string put_text wrote; a view into the message.
  std::string_view get_text() {
    const auto n = get<std::uint64_t>();
    LOOM_ASSERT(at_ + n <= bytes_.size(), "a rank's message ends early");
    const std::string_view text = bytes_.substr(at_, n);
    at_ += n;
    return text;
  }
  template <class T>
  std::vector<T> get_all() {
    const auto n = get<std::uint64_t>();
    LOOM_ASSERT(at_ + n * sizeof(T) <= bytes_.size(), "a rank's message ends early");
    std::vector<T> values(n);
    std::memcpy(values.data(), bytes_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return values;
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace loom::network::packet::parallel
