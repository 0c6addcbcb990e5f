#include "loom/system/class_refinement.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "loom/core/random.h"

namespace loom::system {

using workload::CommunicatorId;
using workload::NodeId;
using workload::NodeKind;

namespace {
constexpr std::uint32_t kNone = 0xffffffffu;

std::uint64_t combine(std::uint64_t h, std::uint64_t value) { return mix64(h ^ (value + kGoldenGamma)); }

// A rank's communication node: its program position and what decides when it ends.
struct Part {
  std::uint32_t position = 0;
  std::uint32_t operation = kNone;  // collective: its operation; kNone for a send or receive
  std::uint32_t member = 0;         // collective: its member index; else the partner's rank
  std::uint32_t timing = 0;         // collective: its operation's timing; else the partner's position
  Time transfer;                    // send or receive: the transfer's time alone on the fabric
};

// A member of an operation: its rank and the program position of its node.
struct Seat {
  std::uint32_t rank = kNone;
  std::uint32_t position = 0;
};

// Every rank's parts (CSR by rank), every operation's seats (member by member, operations of
// one communicator in sequence order), and each distinct timing's ends by member index.
struct Parts {
  std::vector<std::uint64_t> first;
  std::vector<Part> parts;
  std::vector<std::uint32_t> operation_base;  // per communicator, plus one past the end
  std::vector<std::uint64_t> seat_base;       // per communicator
  std::vector<std::uint32_t> members;         // per communicator
  std::vector<Seat> seats;
  std::vector<std::vector<std::pair<Time, bool>>> timings;  // (offset, ended at the start)
  std::string declined;
};

// Point-to-point nodes on one (source, destination, tag), as part indices in program order.
struct Channel {
  std::vector<std::uint64_t> sends, recvs;
};

// Each operation's seats and timing; a collective part's operation and timing indices.
void seat_operations(const workload::Workload& w, const RankSymmetry& s, const PartTimes& times,
                     const std::vector<std::vector<std::uint32_t>>& calls, Parts& p) {
  const CommunicatorId comms = w.communicator_count();
  p.operation_base.assign(std::size_t{comms} + 1, 0);
  p.seat_base.assign(comms, 0);
  p.members.assign(comms, 0);
  std::uint64_t seats = 0;
  for (CommunicatorId c = 0; c < comms; ++c) {
    const std::uint32_t operations = calls[c].empty() ? 0 : calls[c][0];
    for (std::size_t j = 0; j < calls[c].size(); ++j) {
      if (calls[c][j] == operations) continue;
      p.declined = fmt::format("rank {} calls communicator '{}' {} times, rank {} {} times",
                               w.communicator(c).ranks[j], w.communicator(c).name, calls[c][j],
                               w.communicator(c).ranks[0], operations);
      return;
    }
    p.operation_base[c + 1] = p.operation_base[c] + operations;
    p.members[c] = static_cast<std::uint32_t>(calls[c].size());
    p.seat_base[c] = seats;
    seats += std::uint64_t{operations} * calls[c].size();
  }
  p.seats.resize(seats);
  for (std::uint32_t r = 0; r + 1 < p.first.size(); ++r) {
    for (std::uint64_t i = p.first[r]; i < p.first[r + 1]; ++i) {
      Part& part = p.parts[i];
      if (part.operation == kNone) continue;
      const CommunicatorId c = part.operation;
      const std::uint32_t sequence = part.timing;
      p.seats[p.seat_base[c] + std::uint64_t{sequence} * calls[c].size() + part.member] = {r, part.position};
      part.operation = p.operation_base[c] + sequence;
    }
  }
  std::vector<std::uint32_t> timing_of(p.operation_base[comms]);
  std::unordered_map<const OperationTiming*, std::uint32_t> distinct;
  std::vector<std::shared_ptr<const OperationTiming>> held;
  for (CommunicatorId c = 0; c < comms && p.declined.empty(); ++c) {
    const std::size_t members = calls[c].size();
    for (std::uint32_t sequence = 0; sequence < p.operation_base[c + 1] - p.operation_base[c]; ++sequence) {
      const Seat& first = p.seats[p.seat_base[c] + std::uint64_t{sequence} * members];
      const NodeId node = s.program(first.rank)[first.position];
      std::shared_ptr<const OperationTiming> timing = times.operation(c, sequence, node);
      if (!timing) {
        p.declined = fmt::format("operation #{} on communicator '{}' ({}) cannot be timed apart from the run",
                                 sequence, w.communicator(c).name, w.label(w.node(node).label));
        return;
      }
      const auto [it, fresh] = distinct.try_emplace(timing.get(), static_cast<std::uint32_t>(p.timings.size()));
      if (fresh) {
        std::vector<std::pair<Time, bool>> ends(members);
        for (std::size_t i = 0; i < timing->ends.size(); ++i) {
          ends[timing->ends[i].member] = {timing->ends[i].offset, i < timing->at_start};
        }
        p.timings.push_back(std::move(ends));
        held.push_back(std::move(timing));
      }
      timing_of[p.operation_base[c] + sequence] = it->second;
    }
  }
  for (Part& part : p.parts) {
    if (part.operation != kNone) part.timing = timing_of[part.operation];
  }
}

// Pairs the k-th send and receive of every channel: each part learns its partner and the time.
void pair_transfers(const std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Channel>& channels,
                    Parts& p) {
  for (const auto& [key, channel] : channels) {
    const auto [src, dst, tag] = key;
    if (channel.sends.size() != channel.recvs.size()) {
      p.declined = fmt::format("rank {} sends {} times to rank {} with tag {}, which receives {} times", src,
                               channel.sends.size(), dst, tag, channel.recvs.size());
      return;
    }
    for (std::size_t k = 0; k < channel.sends.size(); ++k) {
      Part& send = p.parts[channel.sends[k]];
      Part& recv = p.parts[channel.recvs[k]];
      send.member = dst;
      send.timing = recv.position;
      recv.member = src;
      recv.timing = send.position;
      recv.transfer = send.transfer;
    }
  }
}

Parts collect(const workload::Workload& w, const RankSymmetry& s, const PartTimes& times) {
  Parts p;
  const std::uint32_t ranks = w.rank_count();
  std::vector<std::vector<std::uint32_t>> calls(w.communicator_count());  // per member: calls so far
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) calls[c].assign(w.communicator(c).ranks.size(), 0);
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Channel> channels;
  // The program positions of each class's communication nodes, from its representative: the
  // other members' compute nodes are not read (with shared programs a read rebuilds the node).
  std::vector<std::vector<std::uint32_t>> communication(s.class_count());
  for (std::uint32_t c = 0; c < s.class_count(); ++c) {
    const auto program = s.program(s.representatives()[c]);
    for (std::uint32_t position = 0; position < program.size(); ++position) {
      if (w.node(program[position]).kind != NodeKind::kCompute) communication[c].push_back(position);
    }
  }
  p.first.assign(std::size_t{ranks} + 1, 0);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    p.first[r] = p.parts.size();
    const auto program = s.program(r);
    for (const std::uint32_t position : communication[s.class_of(r)]) {
      const workload::Node node = w.node(program[position]);
      Part part;
      part.position = position;
      if (node.kind == NodeKind::kCollective) {
        // Communicator and call number for now; seat_operations makes them indices.
        part.member = static_cast<std::uint32_t>(w.member_index(node.communicator, r));
        part.operation = node.communicator;
        part.timing = calls[node.communicator][part.member]++;
      } else if (node.kind == NodeKind::kSend) {
        channels[{r, node.peer, node.tag}].sends.push_back(p.parts.size());
        part.transfer = times.transfer(program[position]);
      } else {
        channels[{node.peer, r, node.tag}].recvs.push_back(p.parts.size());
      }
      p.parts.push_back(part);
    }
  }
  p.first[ranks] = p.parts.size();
  pair_transfers(channels, p);
  if (p.declined.empty()) seat_operations(w, s, times, calls, p);
  return p;
}

// Each rank's key for one round: its parts' ends and, per operation, its members' classes and
// positions (an order-free sum), per transfer its partner's class and position.
std::vector<std::uint64_t> round_keys(const Parts& p, const std::vector<std::uint32_t>& class_of) {
  std::vector<std::uint64_t> operation_hash(p.operation_base.back(), 0);
  for (std::size_t c = 0; c + 1 < p.operation_base.size(); ++c) {
    const std::uint32_t operations = p.operation_base[c + 1] - p.operation_base[c];
    const std::uint64_t members = p.members[c];
    for (std::uint32_t k = 0; k < operations; ++k) {
      std::uint64_t h = 0;
      for (std::uint64_t i = 0; i < members; ++i) {
        const Seat& seat = p.seats[p.seat_base[c] + k * members + i];
        h += mix64(std::uint64_t{class_of[seat.rank]} << 32 | seat.position);  // an order-free sum
      }
      operation_hash[p.operation_base[c] + k] = h;
    }
  }
  std::vector<std::uint64_t> key(p.first.size() - 1, 0);
  for (std::size_t r = 0; r < key.size(); ++r) {
    std::uint64_t h = 0;
    for (std::uint64_t i = p.first[r]; i < p.first[r + 1]; ++i) {
      const Part& part = p.parts[i];
      h = combine(h, part.position);
      if (part.operation != kNone) {
        const auto& [offset, at_start] = p.timings[part.timing][part.member];
        h = combine(combine(combine(h, operation_hash[part.operation]), static_cast<std::uint64_t>(offset.picoseconds())),
                    at_start);
      } else {
        h = combine(combine(h, std::uint64_t{class_of[part.member]} << 32 | part.timing),
                    static_cast<std::uint64_t>(part.transfer.picoseconds()));
      }
    }
    key[r] = h;
  }
  return key;
}

// Classes split by (class, key): new class numbers in order of their lowest rank.
std::uint32_t split(std::vector<std::uint32_t>& class_of, const std::vector<std::uint64_t>& key) {
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> number;
  for (std::size_t r = 0; r < class_of.size(); ++r) {
    const std::pair<std::uint32_t, std::uint64_t> k{class_of[r], key[r]};
    class_of[r] = number.try_emplace(k, static_cast<std::uint32_t>(number.size())).first->second;
  }
  return static_cast<std::uint32_t>(number.size());
}

}  // namespace

RefinedClasses refine_classes(const workload::Workload& w, const RankSymmetry& found, const PartTimes& times) {
  RefinedClasses result;
  const Parts parts = collect(w, found, times);
  if (!parts.declined.empty()) {
    result.declined = parts.declined;
    return result;
  }
  std::vector<std::uint32_t> class_of(w.rank_count());
  for (std::uint32_t r = 0; r < w.rank_count(); ++r) class_of[r] = found.class_of(r);
  std::uint32_t classes = found.class_count();
  for (;;) {
    const std::uint32_t next = split(class_of, round_keys(parts, class_of));
    if (next == classes) break;
    classes = next;
    ++result.rounds;
  }
  result.classes = found.refined(std::vector<std::uint64_t>(class_of.begin(), class_of.end()));
  return result;
}

}  // namespace loom::system
