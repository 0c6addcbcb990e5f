#include "loom/network/packet/parallel/mpi_rank_exchange.h"

#include <fmt/format.h>

#include "loom/core/error.h"

#ifdef LOOM_HAVE_MPI
#include <mpi.h>
#endif

namespace loom::network::packet::parallel {

#ifdef LOOM_HAVE_MPI

namespace {

// Offsets of `lengths` laid end to end; their sum in `total`.
std::vector<int> offsets_of(const std::vector<int>& lengths, std::size_t& total) {
  std::vector<int> offsets(lengths.size());
  total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[r]);
  }
  LOOM_ASSERT(total < (std::size_t{1} << 31), "a message between MPI ranks of 2 GiB or more");
  return offsets;
}

std::vector<std::string> split(const std::string& all, const std::vector<int>& lengths, const std::vector<int>& offsets) {
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  }
  return parts;
}

class MpiRankExchange final : public RankExchange {
 public:
  MpiRankExchange() {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<std::uint32_t>(rank);
    size_ = static_cast<std::uint32_t>(size);
  }
  std::uint32_t rank() const override { return rank_; }
  std::uint32_t size() const override { return size_; }

  std::vector<std::string> exchange(const std::vector<std::string>& outgoing) override {
    LOOM_ASSERT(outgoing.size() == size_, "one message per rank expected");
    std::vector<int> send_lengths(size_), receive_lengths(size_);
    std::string sent;
    for (std::uint32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      send_lengths[r] = static_cast<int>(outgoing[r].size());
      sent += outgoing[r];
    }
    MPI_Alltoall(send_lengths.data(), 1, MPI_INT, receive_lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::size_t send_total = 0, receive_total = 0;
    const std::vector<int> send_offsets = offsets_of(send_lengths, send_total);
    const std::vector<int> receive_offsets = offsets_of(receive_lengths, receive_total);
    std::string received(receive_total, '\0');
    MPI_Alltoallv(sent.data(), send_lengths.data(), send_offsets.data(), MPI_CHAR, received.data(),
                  receive_lengths.data(), receive_offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    return split(received, receive_lengths, receive_offsets);
  }

  std::vector<std::string> all_gather(const std::string& text) override {
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(size_);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::size_t total = 0;
    const std::vector<int> offsets = offsets_of(lengths, total);
    std::string all(total, '\0');
    MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                   MPI_COMM_WORLD);
    return split(all, lengths, offsets);
  }

 private:
  std::uint32_t rank_ = 0, size_ = 1;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<RankExchange> make_mpi_rank_exchange() { return std::make_unique<MpiRankExchange>(); }

#else

bool built_with_mpi() { return false; }

std::unique_ptr<RankExchange> make_mpi_rank_exchange() {
  throw UserError(
      "a packet simulation over MPI ranks: this loom was built without MPI; install Open MPI (Debian: "
      "libopenmpi-dev openmpi-bin; scripts/install-deps.sh installs them) and build again");
}

#endif

}  // namespace loom::network::packet::parallel
