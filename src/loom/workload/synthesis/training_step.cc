#include "loom/workload/synthesis/training_step.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/workload/synthesis/layer_program.h"
#include "loom/workload/synthesis/pipeline_schedule.h"
#include "loom/workload/synthesis/training_groups.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;
constexpr NodeId kNone = 0xffffffffu;
constexpr Bytes kOptimizerBytesPerParameter = 30;

// A layer program with its labels interned.
struct Program {
  std::vector<Op> forward, recompute, backward;
  std::vector<LabelId> forward_labels, recompute_labels, backward_labels;

  Program(LayerProgram p, Workload& w) : forward(std::move(p.forward)), recompute(std::move(p.recompute)),
                                         backward(std::move(p.backward)) {
    for (const Op& op : forward) forward_labels.push_back(w.intern_label(op.name));
    for (const Op& op : recompute) recompute_labels.push_back(w.intern_label(op.name));
    for (const Op& op : backward) backward_labels.push_back(w.intern_label(op.name));
  }
};

// A unit of full sharding: parameters gathered together (a layer, the embedding, the last
// stage's copy of the word embedding).
struct Unit {
  std::uint64_t parameters = 0;
  std::uint16_t layer = kNoIndex;
};

struct Bucket {
  std::uint64_t parameters = 0;
  bool experts = false;  // routed-expert gradients (reduced over the expert-data-parallel group)
};

class Orchestrator {
 public:
  Orchestrator(const TransformerConfig& model, const ParallelPlan& plan, Workload& w)
      : model_(model), plan_(plan), w_(w),
        layer_(transformer_layer_program(model, plan), w),
        moe_layer_(transformer_layer_program(model, plan, model.experts > 0), w),
        embedding_(embedding_program(model, plan), w),
        logits_(logits_program(model, plan), w),
        groups_(add_training_groups(model, plan, w)) {
    labels_.recv_activation = w.intern_label("pp.recv_activation");
    labels_.recv_gradient = w.intern_label("pp.recv_gradient");
    labels_.send_activation = w.intern_label("pp.send_activation");
    labels_.send_gradient = w.intern_label("pp.send_gradient");
    labels_.dp_grads = w.intern_label(sharded() ? "dp.reduce_scatter_grads" : "dp.allreduce_grads");
    labels_.dp_params = w.intern_label("dp.allgather_params");
    labels_.embedding_grads = w.intern_label("pp.allreduce_embedding_grads");
    labels_.optimizer = w.intern_label("optimizer.step");
    if (plan.data_loading.bytes_per_rank > 0) labels_.data_load = w.intern_label("data.load");
  }

  // Nodes and dependencies build_rank(rank) would add, without adding them. Ranks of one stage
  // add the same number. O(nodes of the rank).
  RankCount count_rank(std::uint32_t rank) {
    counting_ = true;
    counted_ = {};
    build_rank(rank);
    counting_ = false;
    return counted_;
  }

  void build_rank(std::uint32_t rank) {
    const std::uint32_t s = plan_.stage_of(rank);
    const std::uint32_t m = plan_.micro_batches();
    const std::uint32_t v = plan_.virtual_stages;
    const std::vector<PipelineStep> steps = pipeline_order(plan_.schedule, plan_.pp, s, m, v);
    std::vector<std::size_t> last_backward(v, 0);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!steps[i].forward) last_backward[steps[i].chunk] = i;
    }
    rank_ = rank;
    // Each iteration starts after the previous one's optimizer (finish_iteration). The receive
    // chains run on across iterations: a receive with no dependency would be ready at time zero
    // and overtake the previous iteration's receives on their FIFO stream.
    prev_ = kNone;
    last_recv_[0] = last_recv_[1] = kNone;
    if (plan_.data_loading.bytes_per_rank > 0) {
      Node load;
      load.kind = NodeKind::kCompute;
      load.compute_kind = ComputeKind::kOther;
      load.label = labels_.data_load;
      load.duration = plan_.data_loading.duration(plan_.ranks());
      iteration_ = 0;
      prev_ = add(load, kNone);
    }
    for (iteration_ = 0; iteration_ < plan_.iterations; ++iteration_) {
      reductions_.clear();
      buckets_.clear();
      bucket_ = Bucket{};
      expert_bucket_ = Bucket{0, true};
      for (std::size_t i = 0; i < steps.size(); ++i) {
        run_step(steps[i], i == last_backward[steps[i].chunk] && !steps[i].forward);
      }
      finish_iteration();
    }
  }

 private:
  // Virtual stage index of chunk c on this rank's stage, and the rank holding virtual stage vs.
  std::uint32_t vstage(std::uint32_t chunk) const { return chunk * plan_.pp + plan_.stage_of(rank_); }
  std::uint32_t rank_of_vstage(std::uint32_t vs) const {
    const std::uint32_t tp_i = rank_ % plan_.tp;
    const std::uint32_t replica = (rank_ / plan_.tp) % plan_.replicas();
    return plan_.rank(tp_i, replica, vs % plan_.pp);
  }
  bool sharded() const { return plan_.effective_sharding() != Sharding::kNone; }
  bool fully_sharded() const { return plan_.effective_sharding() == Sharding::kFull; }

  // Adds `n` for the current rank and iteration, depending on those of a, b that exist.
  // Adds `n` for the current rank and iteration, depending on those of a, b, c that exist.
  NodeId add(Node& n, NodeId a, NodeId b = kNone, NodeId c = kNone) {
    n.rank = rank_;
    n.iteration = iteration_;
    NodeId deps[3];
    std::size_t count = 0;
    for (NodeId d : {a, b, c}) {
      if (d != kNone && std::find(deps, deps + count, d) == deps + count) deps[count++] = d;
    }
    return put(n, std::span<const NodeId>(deps, count));
  }

  // Adds the node, or in a counting pass only counts it (returning a stand-in id).
  NodeId put(const Node& n, std::span<const NodeId> deps) {
    if (!counting_) return w_.add_node(n, deps);
    counted_.add(deps.size(), n.kind == NodeKind::kCollective ? w_.communicator(n.communicator).ranks.size() : 0);
    return static_cast<NodeId>((counted_.nodes - 1) % kNone);
  }

  // Emits `ops` in program order; `extra` and `extra2` are additional dependencies of the first.
  void emit(const std::vector<Op>& ops, const std::vector<LabelId>& labels, std::uint16_t layer,
            std::uint16_t micro_batch, NodeId extra, NodeId extra2 = kNone) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      Node n;
      n.kind = op.kind;
      n.label = labels[i];
      n.layer = layer;
      n.micro_batch = micro_batch;
      if (op.kind == NodeKind::kCompute) {
        n.compute_kind = op.compute_kind;
        n.flops = op.flops;
        n.bytes = op.bytes;
        n.dtype = plan_.dtype;
      } else {
        n.op = op.op;
        n.communicator = op.group == CommunicatorKind::kExpert    ? groups_.ep[rank_]
                         : op.group == CommunicatorKind::kContext ? groups_.cp[rank_]
                                                                  : groups_.tp[rank_];
        n.bytes = op.bytes;
        n.dtype = plan_.dtype;
        n.stream = Streams::kTensor;
      }
      prev_ = add(n, prev_, extra, extra2);
      extra = extra2 = kNone;
    }
  }

  NodeId point_to_point(NodeKind kind, std::uint32_t peer, bool gradient, std::uint16_t micro_batch) {
    Node n;
    n.kind = kind;
    n.peer = peer;
    n.tag = gradient ? 1 : 0;
    n.bytes = plan_.micro_batch * (model_.sequence / plan_.cp) * model_.hidden * element_bytes(plan_.dtype);
    n.dtype = plan_.dtype;
    n.micro_batch = micro_batch;
    if (kind == NodeKind::kRecv) {
      n.stream = gradient ? Streams::kRecvGradient : Streams::kRecvActivation;
      n.label = gradient ? labels_.recv_gradient : labels_.recv_activation;
      NodeId& chain = last_recv_[gradient ? 1 : 0];
      chain = add(n, chain);
      return chain;
    }
    n.stream = gradient ? Streams::kSendGradient : Streams::kSendActivation;
    n.label = gradient ? labels_.send_gradient : labels_.send_activation;
    return add(n, prev_);
  }

  void run_step(const PipelineStep& step, bool last_backward_of_chunk) {
    const std::uint32_t vs = vstage(step.chunk);
    const std::uint32_t vstages = plan_.pp * plan_.virtual_stages;
    const bool first = vs == 0;
    const bool last = vs + 1 == vstages;
    const auto mb = static_cast<std::uint16_t>(step.micro_batch);
    const LayerRange layers = layers_of_vstage(plan_, model_.layers, vs);
    const std::uint32_t first_layer = layers.first;
    plan_units(step.forward, first, last, layers);
    if (step.forward) {
      NodeId input = kNone;
      if (!first && rank_of_vstage(vs - 1) != rank_) {
        input = point_to_point(NodeKind::kRecv, rank_of_vstage(vs - 1), false, mb);
      }
      if (first) {
        const NodeId ready = gather_parameters(mb);
        emit(embedding_.forward, embedding_.forward_labels, kNoIndex, mb, input, ready);
        input = kNone;
      }
      for (std::uint32_t l = 0; l < layers.count; ++l) {
        const Program& program = program_of(first_layer + l);
        const NodeId ready = gather_parameters(mb);
        emit(program.forward, program.forward_labels, static_cast<std::uint16_t>(first_layer + l), mb, input, ready);
        input = kNone;
      }
      if (last) {
        const NodeId ready = plan_.pp > 1 ? gather_parameters(mb) : kNone;
        emit(logits_.forward, logits_.forward_labels, kNoIndex, mb, ready);
      }
      if (!last && rank_of_vstage(vs + 1) != rank_) point_to_point(NodeKind::kSend, rank_of_vstage(vs + 1), false, mb);
      finish_units();
      return;
    }
    NodeId input = kNone;
    if (!last && rank_of_vstage(vs + 1) != rank_) {
      input = point_to_point(NodeKind::kRecv, rank_of_vstage(vs + 1), true, mb);
    }
    if (last) {
      const NodeId ready = plan_.pp > 1 ? gather_parameters(mb) : kNone;
      emit(logits_.backward, logits_.backward_labels, kNoIndex, mb, input, ready);
      input = kNone;
    }
    const bool tied_copy = last && plan_.pp > 1;
    if (last_backward_of_chunk && tied_copy) add_gradients(model_.vocab * model_.hidden / plan_.tp);
    for (std::uint32_t l = layers.count; l-- > 0;) {
      const auto layer = static_cast<std::uint16_t>(first_layer + l);
      const Program& program = program_of(layer);
      NodeId ready = gather_parameters(mb);
      emit(program.recompute, program.recompute_labels, layer, mb, input, ready);
      if (!program.recompute.empty()) input = ready = kNone;
      emit(program.backward, program.backward_labels, layer, mb, input, ready);
      input = kNone;
      if (last_backward_of_chunk) {
        add_gradients(model_.layer_parameters(layer) / plan_.tp);
        add_expert_gradients(model_.expert_parameters(layer) / plan_.ep);
      }
    }
    if (first) {
      const NodeId ready = gather_parameters(mb);
      emit(embedding_.backward, embedding_.backward_labels, kNoIndex, mb, ready);
      if (last_backward_of_chunk) add_gradients(model_.embedding_parameters() / plan_.tp);
    }
    if (last_backward_of_chunk) close_bucket();
    if (!first && rank_of_vstage(vs - 1) != rank_) point_to_point(NodeKind::kSend, rank_of_vstage(vs - 1), true, mb);
    finish_units();
  }

  const Program& program_of(std::uint32_t layer) const {
    return model_.is_moe_layer(layer) ? moe_layer_ : layer_;
  }

  // Full sharding: the units whose parameters one pass (a chunk's forward or backward for one
  // micro-batch) gathers, in the order the pass uses them.
  void plan_units(bool forward, bool first, bool last, LayerRange layers) {
    units_.clear();
    next_unit_ = 0;
    if (!fully_sharded()) return;
    const bool tied_copy = last && plan_.pp > 1;
    const Unit embedding{model_.embedding_parameters() / plan_.tp, kNoIndex};
    const Unit tied{model_.vocab * model_.hidden / plan_.tp, kNoIndex};
    if (forward && first) units_.push_back(embedding);
    if (!forward && tied_copy) units_.push_back(tied);
    for (std::uint32_t i = 0; i < layers.count; ++i) {
      const std::uint32_t l = forward ? layers.first + i : layers.first + layers.count - 1 - i;
      units_.push_back({model_.layer_parameters(l) / plan_.tp, static_cast<std::uint16_t>(l)});
    }
    if (forward && tied_copy) units_.push_back(tied);
    if (!forward && first) units_.push_back(embedding);
  }
  void finish_units() {
    LOOM_ASSERT(next_unit_ == units_.size() && prefetched_ == kNone, "a planned parameter gather was not used");
  }

  // Full sharding: makes the next unit's parameters available. Without prefetch (or for the
  // pass's first unit) its all-gather is issued after prev_ and becomes prev_, and kNone is
  // returned. With prefetch the unit's gather was issued before the previous unit's ops, and is
  // returned for the unit's first op to wait for; the following unit's gather is issued now,
  // before this unit's ops (after prev_ and this unit's gather).
  NodeId gather_parameters(std::uint16_t micro_batch) {
    if (!fully_sharded() || groups_.dp[rank_] == kNone) {
      next_unit_ = units_.size();
      return kNone;
    }
    LOOM_ASSERT(next_unit_ < units_.size(), "more parameter gathers than planned units");
    const Unit& unit = units_[next_unit_++];
    const NodeId ready = prefetched_;
    prefetched_ = kNone;
    if (ready == kNone) prev_ = all_gather_unit(unit, micro_batch, prev_, kNone);
    if (plan_.prefetch && next_unit_ < units_.size()) {
      prefetched_ = all_gather_unit(units_[next_unit_], micro_batch, prev_, ready);
    }
    return ready;
  }

  NodeId all_gather_unit(const Unit& unit, std::uint16_t micro_batch, NodeId after, NodeId after2) {
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = CollectiveOp::kAllGather;
    n.communicator = groups_.dp[rank_];
    n.bytes = unit.parameters * element_bytes(plan_.dtype);
    n.dtype = plan_.dtype;
    n.stream = Streams::kData;
    n.label = labels_.dp_params;
    n.layer = unit.layer;
    n.micro_batch = micro_batch;
    return add(n, after, after2);
  }

  // Gradients of `parameters` are complete (after prev_): fill buckets (full sharding: one
  // bucket per unit).
  void add_gradients(std::uint64_t parameters) { fill(bucket_, parameters); }
  void add_expert_gradients(std::uint64_t parameters) { fill(expert_bucket_, parameters); }
  void fill(Bucket& bucket, std::uint64_t parameters) {
    bucket.parameters += parameters;
    if (fully_sharded() || bucket.parameters * element_bytes(plan_.grad_dtype) >= plan_.dp_bucket_bytes) close(bucket);
  }

  void close_bucket() {
    close(bucket_);
    close(expert_bucket_);
  }
  void close(Bucket& bucket) {
    if (bucket.parameters == 0) return;
    buckets_.push_back(bucket);
    if (plan_.overlap_grad_reduce) reduce(bucket);
    bucket.parameters = 0;
  }

  CommunicatorId group_of(const Bucket& bucket) const {
    return bucket.experts ? groups_.expert_dp[rank_] : groups_.dp[rank_];
  }

  void reduce(const Bucket& bucket) {
    if (group_of(bucket) == kNone) return;
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = sharded() ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce;
    n.communicator = group_of(bucket);
    n.bytes = bucket.parameters * element_bytes(plan_.grad_dtype);
    n.dtype = plan_.grad_dtype;
    n.stream = Streams::kData;
    n.label = labels_.dp_grads;
    reductions_.push_back(add(n, prev_));
  }

  void finish_iteration() {
    if (!plan_.overlap_grad_reduce) {
      for (const Bucket& b : buckets_) reduce(b);
    }
    std::uint64_t parameters = 0;  // the optimizer's share: divided by the bucket's group size
    for (const Bucket& b : buckets_) {
      const CommunicatorId group = group_of(b);
      const std::uint64_t size = group == kNone ? 1 : w_.communicator(group).ranks.size();
      parameters += sharded() ? b.parameters / size : b.parameters;
    }
    if (groups_.embedding[rank_] != kNone) {
      Node n;
      n.kind = NodeKind::kCollective;
      n.op = CollectiveOp::kAllReduce;
      n.communicator = groups_.embedding[rank_];
      n.bytes = model_.vocab * model_.hidden / plan_.tp * element_bytes(plan_.grad_dtype);
      n.dtype = plan_.grad_dtype;
      n.stream = Streams::kData;
      n.label = labels_.embedding_grads;
      reductions_.push_back(add(n, prev_));
    }
    Node opt;
    opt.kind = NodeKind::kCompute;
    opt.compute_kind = ComputeKind::kElementwise;
    opt.label = labels_.optimizer;
    opt.bytes = parameters * kOptimizerBytesPerParameter;
    opt.rank = rank_;
    opt.iteration = iteration_;
    reductions_.push_back(prev_);
    prev_ = put(opt, reductions_);
    // The parameter all-gathers share one stream, so the last to be issued finishes last.
    if (sharded() && !fully_sharded()) {
      const NodeId step = prev_;
      for (const Bucket& b : buckets_) {
        if (group_of(b) == kNone) continue;
        Node n;
        n.kind = NodeKind::kCollective;
        n.op = CollectiveOp::kAllGather;
        n.communicator = group_of(b);
        n.bytes = b.parameters * element_bytes(plan_.dtype);
        n.dtype = plan_.dtype;
        n.stream = Streams::kData;
        n.label = labels_.dp_params;
        prev_ = add(n, step);
      }
    }
  }

  const TransformerConfig& model_;
  const ParallelPlan& plan_;
  Workload& w_;
  Program layer_, moe_layer_, embedding_, logits_;
  struct {
    LabelId recv_activation, recv_gradient, send_activation, send_gradient, dp_grads, dp_params, embedding_grads,
        optimizer, data_load;
  } labels_{};
  const TrainingGroups groups_;

  bool counting_ = false;
  RankCount counted_;
  std::uint32_t rank_ = 0;
  std::uint32_t iteration_ = 0;
  NodeId prev_ = kNone;            // the rank's last node in program order
  NodeId last_recv_[2] = {kNone, kNone};
  std::vector<NodeId> reductions_;
  std::vector<Bucket> buckets_;
  std::vector<Unit> units_;  // full sharding: the current pass's gathered units
  std::size_t next_unit_ = 0;
  NodeId prefetched_ = kNone;  // the next unit's gather, issued ahead
  Bucket bucket_;
  Bucket expert_bucket_{0, true};
};

}  // namespace

namespace {

// Every rank of a stage adds the same nodes; iterations after the first add the same number as
// the second (only the first's heads have nothing before them), so one and two iterations of
// one rank per stage give the count of any number. `scratch` receives the communicators and
// labels the counting orchestrator declares. O(nodes of two iterations of pp ranks).
WorkloadCounts count_with(const TransformerConfig& model, const ParallelPlan& plan, Workload& scratch) {
  ParallelPlan probe = plan;
  Orchestrator orchestrator(model, probe, scratch);  // reads probe.iterations as it counts
  StageCounts counts(plan.ranks());
  const std::uint64_t ranks_per_stage = std::uint64_t{plan.tp} * plan.replicas();
  for (std::uint32_t stage = 0; stage < plan.pp; ++stage) {
    probe.iterations = 1;
    const RankCount one = orchestrator.count_rank(plan.rank(0, 0, stage));
    probe.iterations = 2;
    const RankCount two = plan.iterations > 1 ? orchestrator.count_rank(plan.rank(0, 0, stage)) : one;
    counts.add(one, two, plan.iterations, ranks_per_stage);
  }
  return counts.total();
}

}  // namespace

WorkloadCounts count_training(const TransformerConfig& model, const ParallelPlan& plan) {
  validate(plan, model);
  Workload scratch(plan.ranks());
  return count_with(model, plan, scratch);
}

TrainingSample sample_training(const TransformerConfig& model, const ParallelPlan& plan, std::uint32_t first) {
  TrainingSample out{Workload(plan.ranks()), count_training(model, plan), {}};
  for (std::uint32_t stage = 0; stage < plan.pp; ++stage) out.built_ranks.push_back(plan.rank(0, 0, stage));
  for (std::uint32_t r = 0; r < std::min(first, plan.ranks()); ++r) out.built_ranks.push_back(r);
  std::sort(out.built_ranks.begin(), out.built_ranks.end());
  out.built_ranks.erase(std::unique(out.built_ranks.begin(), out.built_ranks.end()), out.built_ranks.end());
  Orchestrator orchestrator(model, plan, out.workload);
  for (std::uint32_t r : out.built_ranks) orchestrator.build_rank(r);
  return out;
}

Workload synthesize_training(const TransformerConfig& model, const ParallelPlan& plan, NodeStorage storage) {
  validate(plan, model);
  Workload w(plan.ranks(), storage);
  // Exact capacity first: the arrays never grow by doubling (at 10^7 nodes that is half the
  // memory).
  const WorkloadCounts counts = count_training(model, plan);
  w.reserve(counts.nodes, counts.dependencies);
  Orchestrator orchestrator(model, plan, w);
  for (std::uint32_t r = 0; r < plan.ranks(); ++r) orchestrator.build_rank(r);
  w.seal();
  return w;
}

}  // namespace loom::workload::synthesis
