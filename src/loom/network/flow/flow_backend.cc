#include "loom/network/flow/flow_backend.h"

#include <algorithm>
#include <cmath>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::network::flow {

namespace {

constexpr double kBitPicosecondsPerByte = 8e12;  // bytes x this / (bit/s) = picoseconds

// The ECMP hash of QP `qp` of a transfer: QP 0 keeps the request's, the others are
// splitmix64-mixed from it so that they spread independently over equal-cost paths.
std::uint64_t qp_hash(std::uint64_t flow_hash, std::uint32_t qp) {
  return qp == 0 ? flow_hash : mix64(flow_hash + kGoldenGamma * qp);
}

std::vector<double> link_capacities(const topology::Topology& topology) {
  std::vector<double> capacities(topology.link_count());
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    capacities[l] = static_cast<double>(topology.link(l).bandwidth.bps());
  }
  return capacities;
}

}  // namespace

Time path_latency(const topology::Topology& topology, std::span<const topology::LinkId> path) {
  Time latency;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const topology::Link& link = topology.link(path[i]);
    latency += link.latency;
    if (i > 0) latency += topology.node(link.src).forwarding_latency;
  }
  return latency;
}

FlowBackend::FlowBackend(Simulator& simulator, const topology::Topology& topology,
                         const topology::Routing& routing, FlowParams params)
    : simulator_(simulator),
      topology_(topology),
      routes_(routing),
      params_((check_flow_params(params), params)),
      solver_(link_capacities(topology), SolverOptions{params.solver_threads, params.solver_parallel_threshold}),
      links_(topology.link_count()),
      first_hop_latency_(topology.link_count()),
      later_hop_latency_(topology.link_count()),
      link_stale_(topology.link_count(), 0),
      link_changes_(simulator, routing, &FlowBackend::on_link_change, this),
      routing_(routing) {
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    first_hop_latency_[l] = link.latency;
    later_hop_latency_[l] = link.latency + topology.node(link.src).forwarding_latency;
  }
}

Time FlowBackend::latency_of(std::span<const topology::LinkId> path) const {
  Time latency = first_hop_latency_[path.front()];
  for (std::size_t i = 1; i < path.size(); ++i) latency += later_hop_latency_[path[i]];
  return latency;
}

FlowBackend::~FlowBackend() = default;

Time FlowBackend::ideal_over(std::span<const topology::LinkId> path, Bytes bytes) const {
  LOOM_ASSERT(!path.empty(), "empty route between distinct nodes");
  // The solver's capacities are whole bit/s (the topology's, or a rate change's).
  double bottleneck = solver_.capacity(path.front());
  for (const topology::LinkId l : path) bottleneck = std::min(bottleneck, solver_.capacity(l));
  return path_latency(topology_, path) + serialization_time(wire_bytes(params_, bytes),
                                                        Bandwidth::bits_per_second(static_cast<std::uint64_t>(bottleneck)));
}

Time FlowBackend::ideal_time(const TransferRequest& request) const {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  path_.clear();
  routes_.route(request.src, request.dst, request.flow_hash, path_);
  return ideal_over(path_, request.bytes);
}

double FlowBackend::carried_bytes(topology::LinkId link) const {
  const LinkState& state = links_[link];
  const double elapsed = static_cast<double>((simulator_.now() - state.since).picoseconds());
  return state.carried + state.rate * elapsed / kBitPicosecondsPerByte;
}

void FlowBackend::carried_bytes(std::vector<double>& out) const {
  out.resize(links_.size());
  for (topology::LinkId l = 0; l < links_.size(); ++l) out[l] = carried_bytes(l);
}

void FlowBackend::start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) {
  LOOM_ASSERT(request.src != request.dst, "transfer from a node to itself");
  const std::uint32_t id = transfers_.acquire();
  LOOM_ASSERT(request.weight > 0, "transfer weight must be positive");
  transfers_[id] = Transfer{&handler, cookie, request.src, request.dst, request.bytes,
                            simulator_.now(), Time{}, simulator_.now(), 0, request.weight};
  if (request.bytes == 0) {
    transfers_[id].ideal = ideal_time(request);  // the route's latency
    deliveries_.add(transfers_[id].ideal, id);
    return;
  }
  const Bytes qps = std::min<Bytes>(params_.queue_pairs, request.bytes);
  bool all_solved = true;
  for (std::uint32_t qp = 0; qp < qps; ++qp) {
    const Bytes share = request.bytes / qps + (qp < request.bytes % qps ? 1 : 0);
    all_solved = add_stream(id, static_cast<double>(wire_bytes(params_, share)), qp_hash(request.flow_hash, qp)) &&
                 all_solved;
    // QP 0 takes the request's own route: the ideal time is measured on it (only records
    // show it).
    if (qp == 0 && params_.record_flows) transfers_[id].ideal = ideal_over(path_, request.bytes);
  }
  if (all_solved) {
    settle_links(simulator_.now());
  } else {
    request_solve();
  }
}

bool FlowBackend::add_stream(std::uint32_t transfer, double wire_bytes, std::uint64_t flow_hash) {
  const Transfer& t = transfers_[transfer];
  path_.clear();
  if (!routes_.route(t.src, t.dst, flow_hash, path_)) ++multipath_transfers_;
  if (!reserved_until_.empty()) check_reservations(path_);
  const MaxMinSolver::Added added = solver_.add_flow_solving_alone(path_, t.weight);
  const FlowIndex flow = added.flow;
  if (flow >= streams_.size()) streams_.resize(flow + 1);
  Stream& stream = streams_[flow];
  const Time now = simulator_.now();
  stream = Stream{transfer, wire_bytes, 0.0, now, latency_of(path_), flow_hash, EventId{}, stream.epoch};
  ++transfers_[transfer].pending_qps;
  if (!added.solved) return false;
  // On empty links: its rate is final until another flow joins one of them.
  stream.rate = solver_.rate(flow);
  schedule_drain(flow, stream, now + drain_time(stream));
  mark_links(path_);
  return true;
}

void FlowBackend::check_reservations(std::span<const topology::LinkId> path) {
  const Time now = simulator_.now();
  for (const topology::LinkId l : path) {
    if (reserved_until_[l] < now) continue;
    conflicts_.push_back(reserved_by_[l]);
    simulator_.stop();  // what follows is not the run's: the caller repeats it
  }
}

std::vector<std::uint32_t> FlowBackend::conflicts() const {
  std::vector<std::uint32_t> owners = conflicts_;
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

bool FlowBackend::may_reserve(std::span<const LinkUse> uses, std::uint32_t owner) const {
  const Time now = simulator_.now();
  for (const LinkUse& use : uses) {
    const topology::LinkId l = use.link;
    // A link that flows of the run have crossed (settled links carry bytes or a rate) is
    // likely to meet such flows again.
    if (!solver_.flows_on(l).empty() || links_[l].rate > 0 || links_[l].carried > 0) return false;
    if (!reserved_until_.empty() && reserved_until_[l] >= Time::zero() &&
        (reserved_until_[l] >= now || reserved_by_[l] != owner)) {
      return false;
    }
  }
  return true;
}

void FlowBackend::reserve(std::span<const LinkUse> uses, std::uint32_t owner) {
  if (reserved_until_.empty()) {
    reserved_until_.assign(links_.size(), Time::ps(-1));
    reserved_by_.assign(links_.size(), 0);
  }
  const Time now = simulator_.now();
  for (const LinkUse& use : uses) {
    // may_reserve() held: any earlier reservation has ended.
    reserved_until_[use.link] = now + use.offset;
    reserved_by_[use.link] = owner;
  }
}

std::vector<FlowBackend::LinkUse> FlowBackend::link_uses_since(Time start) {
  LOOM_ASSERT(!link_last_drain_.empty(), "link uses asked of a backend that does not record them");
  std::sort(drained_links_.begin(), drained_links_.end());
  std::vector<LinkUse> uses;
  uses.reserve(drained_links_.size());
  for (const topology::LinkId l : drained_links_) {
    uses.push_back({l, link_last_drain_[l] - start});
    link_last_drain_[l] = Time::max();
  }
  drained_links_.clear();
  return uses;
}

void FlowBackend::request_solve() {
  if (solve_pending_) return;
  solve_pending_ = true;
  simulator_.schedule_at<&FlowBackend::solve>(simulator_.now(), this);
}

void FlowBackend::mark_links(std::span<const LinkIndex> path) {
  for (const LinkIndex l : path) {
    if (link_stale_[l]) continue;
    link_stale_[l] = 1;
    stale_links_.push_back(l);
  }
}

Time FlowBackend::drain_time(const Stream& stream) const {
  LOOM_ASSERT(stream.rate > 0, "a draining flow has no rate");
  if (stream.remaining == std::floor(stream.remaining) && stream.rate == std::floor(stream.rate) &&
      stream.rate < 1.8e19) {
    return serialization_time(static_cast<Bytes>(stream.remaining),
                              Bandwidth::bits_per_second(static_cast<std::uint64_t>(stream.rate)));
  }
  return Time::ps(static_cast<std::int64_t>(std::ceil(stream.remaining * kBitPicosecondsPerByte / stream.rate)));
}

void FlowBackend::solve() {
  solve_pending_ = false;
  solver_.solve();
  const Time now = simulator_.now();
  for (const FlowIndex flow : solver_.solved_flows()) {
    Stream& stream = streams_[flow];
    const double rate = solver_.rate(flow);
    if (rate == stream.rate) continue;
    const double elapsed = static_cast<double>((now - stream.since).picoseconds());
    stream.remaining = std::max(0.0, stream.remaining - stream.rate * elapsed / kBitPicosecondsPerByte);
    stream.rate = rate;
    stream.since = now;
    schedule_drain(flow, stream, now + drain_time(stream));
    mark_links(solver_.path(flow));
  }
  settle_links(now);
}

void FlowBackend::schedule_drain(FlowIndex flow, Stream& stream, Time finish) {
  ++stream.epoch;  // a batched drain scheduled before is stale from here on
  if (solver_.alone(flow)) {
    // Alone on its links: the flows of a collective step drain together, so they share an
    // event. Its rate changes only if a flow joins one of its links, and then the epoch
    // moves on and the entry is skipped.
    simulator_.cancel(stream.drain);
    batched_drains_.add(finish - simulator_.now(), std::uint64_t{stream.epoch} << 32 | flow);
  } else if (simulator_.is_pending(stream.drain)) {
    stream.drain = simulator_.reschedule(stream.drain, finish);
  } else {
    stream.drain = simulator_.schedule_at<&FlowBackend::drain>(finish, this, flow);
  }
}

void FlowBackend::batched_drain_event(void* self, std::uint64_t epoch_and_flow) {
  auto* backend = static_cast<FlowBackend*>(self);
  const auto flow = static_cast<FlowIndex>(epoch_and_flow);
  if (backend->streams_[flow].epoch != static_cast<std::uint32_t>(epoch_and_flow >> 32)) return;
  backend->drain(flow);
}

void FlowBackend::settle_links(Time now) {
  for (const topology::LinkId l : stale_links_) {
    LinkState& state = links_[l];
    state.carried += state.rate * static_cast<double>((now - state.since).picoseconds()) / kBitPicosecondsPerByte;
    state.rate = solver_.load(l);
    state.since = now;
    link_stale_[l] = 0;
  }
  stale_links_.clear();
}

void FlowBackend::drain(std::uint64_t flow_arg) {
  const auto flow = static_cast<FlowIndex>(flow_arg);
  const Stream& stream = streams_[flow];
  Transfer& transfer = transfers_[stream.transfer];
  transfer.delivery = std::max(transfer.delivery, simulator_.now() + stream.latency);
  if (--transfer.pending_qps == 0) {
    deliveries_.add(transfer.delivery - simulator_.now(), stream.transfer);
  }
  mark_links(solver_.path(flow));
  if (!link_last_drain_.empty()) note_drain(solver_.path(flow));
  // A flow that shared no link leaves every other rate as it was: the solve it would request
  // has nothing to do but bring its links' rates to zero, which is done here instead.
  const bool alone = solver_.alone(flow);
  solver_.remove_flow(flow);
  // The epoch stays with the index (and moves on): entries of this flow still batched are
  // stale for the next flow that takes the index.
  const std::uint32_t epoch = stream.epoch + 1;
  streams_[flow] = Stream{};
  streams_[flow].epoch = epoch;
  if (alone && !solve_pending_) {
    settle_links(simulator_.now());
  } else {
    request_solve();
  }
}

std::vector<Statistic> FlowBackend::statistics() const {
  return {{"solver.solves", solver_.stats().solves}, {"solver.link_visits", solver_.stats().link_visits}};
}

void FlowBackend::on_link_change(void* self, topology::LinkId, bool up) {
  if (!up) static_cast<FlowBackend*>(self)->reroute_broken_streams();
}

void FlowBackend::note_drain(std::span<const LinkIndex> path) {
  const Time now = simulator_.now();
  for (const LinkIndex l : path) {
    if (link_last_drain_[l] == Time::max()) drained_links_.push_back(l);
    link_last_drain_[l] = now;
  }
}

void FlowBackend::set_link_rate(topology::LinkId link, Bandwidth rate) {
  if (!reserved_until_.empty()) check_reservations(std::span<const topology::LinkId>(&link, 1));
  solver_.set_capacity(link, static_cast<double>(rate.bps()));
  if (!solver_.flows_on(link).empty()) request_solve();
}

void FlowBackend::reroute_broken_streams() {
  const Time now = simulator_.now();
  std::vector<FlowIndex> broken;
  for (FlowIndex flow = 0; flow < streams_.size(); ++flow) {
    if (!solver_.live(flow)) continue;
    const auto path = solver_.path(flow);
    if (std::any_of(path.begin(), path.end(), [&](topology::LinkId l) { return !routing_.link_up(l); })) {
      broken.push_back(flow);
    }
  }
  for (const FlowIndex flow : broken) {
    const Stream old = streams_[flow];
    const double elapsed = static_cast<double>((now - old.since).picoseconds());
    const double remaining = std::max(0.0, old.remaining - old.rate * elapsed / kBitPicosecondsPerByte);
    simulator_.cancel(old.drain);
    mark_links(solver_.path(flow));
    solver_.remove_flow(flow);
    streams_[flow] = Stream{};
    streams_[flow].epoch = old.epoch + 1;  // a batched drain of the old route is stale
    --transfers_[old.transfer].pending_qps;
    add_stream(old.transfer, remaining, old.hash);  // Routing now avoids the down cable
  }
  if (!broken.empty()) request_solve();
}

void FlowBackend::deliver_event(void* self, std::uint64_t transfer) {
  static_cast<FlowBackend*>(self)->deliver(transfer);
}

void FlowBackend::deliver(std::uint64_t transfer_arg) {
  const auto id = static_cast<std::uint32_t>(transfer_arg);
  const Transfer transfer = transfers_[id];
  transfers_.release(id);
  if (params_.record_flows) {
    records_.push_back({transfer.src, transfer.dst, transfer.bytes, transfer.start, simulator_.now(),
                        transfer.ideal});
  }
  transfer.handler->on_transfer_complete(transfer.cookie);
}

}  // namespace loom::network::flow
