#include "loom/workload/simai/simai_text.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/workload/simai/simai_pipeline.h"

namespace loom::workload::simai {
namespace {

using collective::CollectiveOp;

enum class Group : std::uint8_t { kDefault, kExpert, kDataOutsideExpert };

struct Comm {
  std::optional<CollectiveOp> op;  // empty: NONE
  Group group = Group::kDefault;
  Bytes bytes = 0;
};

struct Line {
  std::string name;
  std::uint32_t line = 0;
  Time fwd, ig, wg, update;
  Comm fwd_comm, ig_comm, wg_comm;
};

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::uint64_t number(std::string_view word, std::string_view what, std::string_view where) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size()) {
    throw UserError(fmt::format("{}: {} is '{}', expected a whole number >= 0", where, what, excerpt(word)));
  }
  return value;
}

// Bounds that keep every later product in range (picoseconds and bit counts fit in 63 bits).
constexpr std::uint64_t kMaxNanoseconds = 3'600'000'000'000;  // one hour per compute field
constexpr std::uint64_t kMaxMessageBytes = 1ull << 48;        // 256 TiB per message

Bytes sized(std::uint64_t bytes, std::string_view what, std::string_view where) {
  if (bytes > kMaxMessageBytes) {
    throw UserError(fmt::format("{}: {} is {} bytes, expected at most {} (256 TiB)", where, what, bytes,
                                kMaxMessageBytes));
  }
  return bytes;
}

Comm parse_comm(std::string_view type, std::string_view size, std::string_view where) {
  Comm c;
  if (type == "NONE") return c;
  std::string_view base = type;
  if (base.ends_with("_DP_EP")) {
    c.group = Group::kDataOutsideExpert;
    base.remove_suffix(6);
  } else if (base.ends_with("_EP")) {
    c.group = Group::kExpert;
    base.remove_suffix(3);
  }
  static constexpr std::pair<std::string_view, CollectiveOp> kOps[] = {
      {"ALLREDUCE", CollectiveOp::kAllReduce},   {"ALLGATHER", CollectiveOp::kAllGather},
      {"REDUCESCATTER", CollectiveOp::kReduceScatter}, {"ALLTOALL", CollectiveOp::kAllToAll},
      {"BROADCAST", CollectiveOp::kBroadcast}};
  for (const auto& [text, op] : kOps) {
    if (base == text) c.op = op;
  }
  if (!c.op) {
    throw UserError(fmt::format("{}: unknown comm type '{}', expected NONE or ALLREDUCE, ALLGATHER, REDUCESCATTER, "
                                "ALLTOALL, BROADCAST with an optional _EP or _DP_EP suffix",
                                where, excerpt(type)));
  }
  c.bytes = sized(number(size, "the comm size", where), "the comm size", where);
  return c;
}

Header parse_header(std::string_view line, std::string_view name, const Options& options, WarningLog& log) {
  const std::string where = fmt::format("{}:1", name);
  const std::vector<std::string_view> words = split_words(line);
  if (words.empty()) throw UserError(fmt::format("{}: empty header, expected a policy such as MICRO", where));
  Header h;
  h.policy = std::string(words[0]);
  if (h.policy != "HYBRID_TRANSFORMER_FWD_IN_BCKWD" && h.policy != "HYBRID_TRANSFORMER" && h.policy != "MICRO" &&
      h.policy != "DATA") {
    throw UserError(fmt::format("{}: unknown policy '{}', expected HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
                                "HYBRID_TRANSFORMER, MICRO or DATA",
                                where, excerpt(h.policy)));
  }
  bool seen_tp = false, seen_ep = false, seen_pp = false, seen_vpp = false, seen_ga = false, seen_gpus = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::string_view key = words[i];
    if (key.ends_with(":")) key.remove_suffix(1);
    if (i + 1 >= words.size()) throw UserError(fmt::format("{}: header key '{}' has no value", where, excerpt(key)));
    const std::uint64_t value = number(words[++i], fmt::format("header key '{}'", excerpt(key)), where);
    auto small = [&](std::uint32_t& slot, bool& seen) {
      if (value == 0 || value > 0xffffffffu) {
        throw UserError(fmt::format("{}: header key '{}' is {}, expected a positive count", where, key, value));
      }
      slot = static_cast<std::uint32_t>(value);
      seen = true;
    };
    if (key == "model_parallel_NPU_group") small(h.tp, seen_tp);
    else if (key == "ep") small(h.ep, seen_ep);
    else if (key == "pp") small(h.pp, seen_pp);
    else if (key == "vpp") small(h.vpp, seen_vpp);
    else if (key == "ga") small(h.ga, seen_ga);
    else if (key == "all_gpus") small(h.all_gpus, seen_gpus);
    else if (key == "pp_comm") h.pp_comm = sized(value, "header key 'pp_comm'", where);
    else if (key == "checkpoints" || key == "checkpoint_initiates") {
      if (value > words.size() - 1 - i) {
        throw UserError(fmt::format("{}: header key '{}' lists {} layer ids but only {} words follow", where, key,
                                    value, words.size() - 1 - i));
      }
      i += value;  // skip the listed layer ids
    }
    else log.add(name, "header", where, fmt::format("unknown header key '{}' ignored", excerpt(key)));
  }
  const bool model = h.policy.starts_with("HYBRID");
  auto missing = [&](bool seen, std::string_view key, std::uint32_t value) {
    if (!seen && model) {
      log.add(name, "header", where, fmt::format("header has no '{}'; using {}", key, value));
    }
  };
  missing(seen_tp, "model_parallel_NPU_group", h.tp);
  missing(seen_ep, "ep", h.ep);
  missing(seen_pp, "pp", h.pp);
  missing(seen_vpp, "vpp", h.vpp);
  missing(seen_ga, "ga", h.ga);
  if (options.rank_count) {
    h.all_gpus = *options.rank_count;
  } else if (!seen_gpus) {
    // TP * PP, saturated: a product beyond 32 bits then fails the divisibility check below.
    const std::uint64_t model_parallel = std::uint64_t{h.tp} * h.pp;
    h.all_gpus = options.default_rank_count.value_or(
        static_cast<std::uint32_t>(std::min<std::uint64_t>(model_parallel, 0xffffffffu)));
    log.add(name, "header", where, fmt::format("header has no 'all_gpus'; using {} ranks", h.all_gpus));
  }
  if (h.pp == 1 && h.vpp > 1) {
    log.add(name, "header", where, fmt::format("vpp {} has no effect without pipeline stages (pp 1)", h.vpp));
  }
  const std::uint64_t model_parallel = std::uint64_t{h.tp} * h.pp;  // no 32-bit wraparound
  if (h.all_gpus == 0 || h.all_gpus % model_parallel != 0 || (h.all_gpus / model_parallel) % h.ep != 0) {
    throw UserError(fmt::format("{}: {} ranks do not split into TP {} x PP {} with the EP group {} inside data "
                                "parallelism; expected all_gpus to be a multiple of TP * PP * EP",
                                where, h.all_gpus, h.tp, h.pp, h.ep));
  }
  return h;
}

std::vector<Line> parse_lines(const std::vector<std::string_view>& lines, std::string_view name) {
  std::size_t index = 1;
  auto next_nonempty = [&]() -> std::size_t {
    while (index < lines.size() && split_words(lines[index]).empty()) ++index;
    return index;
  };
  if (next_nonempty() >= lines.size()) {
    throw UserError(fmt::format("{}:2: missing the number of layer lines", name));
  }
  const std::uint64_t count = number(split_words(lines[index])[0], "the layer count",
                                     fmt::format("{}:{}", name, index + 1));
  ++index;
  std::vector<Line> out;
  while (next_nonempty() < lines.size()) {
    const std::string where = fmt::format("{}:{}", name, index + 1);
    const auto w = split_words(lines[index]);
    if (w.size() != 12) {
      throw UserError(fmt::format("{}: {} fields, expected 12 (name depends fwd_compute fwd_comm_type fwd_comm_bytes "
                                  "ig_compute ig_comm_type ig_comm_bytes wg_compute wg_comm_type wg_comm_bytes "
                                  "wg_update_time)",
                                  where, w.size()));
    }
    Line l;
    l.name = std::string(w[0]);
    l.line = static_cast<std::uint32_t>(index + 1);
    auto ns = [&](std::string_view word, std::string_view what) {
      const std::uint64_t value = number(word, what, where);
      if (value > kMaxNanoseconds) {
        throw UserError(fmt::format("{}: {} is {} ns, expected at most {} (one hour)", where, what, value,
                                    kMaxNanoseconds));
      }
      return Time::ns(static_cast<std::int64_t>(value));
    };
    l.fwd = ns(w[2], "fwd_compute");
    l.fwd_comm = parse_comm(w[3], w[4], where);
    l.ig = ns(w[5], "ig_compute");
    l.ig_comm = parse_comm(w[6], w[7], where);
    l.wg = ns(w[8], "wg_compute");
    l.wg_comm = parse_comm(w[9], w[10], where);
    l.update = ns(w[11], "wg_update_time");
    out.push_back(std::move(l));
    ++index;
  }
  if (out.size() != count) {
    throw UserError(fmt::format("{}:2: the header announces {} layer lines but the file has {}", name, count,
                                out.size()));
  }
  return out;
}

// SimAI takes `ga` only into its bubble and PP formulas; the micro-batches Loom pipelines are
// the file's. Says so when the two disagree, since a hand-written table may mean `ga` as a
// repeat count.
void check_micro_batches(const Header& h, const SimaiPipeline& pipeline, std::string_view name, WarningLog& log) {
  if (h.ga <= 1 || pipeline.micro_batches() == h.ga) return;
  log.add(name, "header", fmt::format("{}:1", name),
          fmt::format("ga {} but the layer table holds {} micro-batch(es) (embedding_layer lines); as in SimAI the "
                      "lines run once per iteration and ga repeats nothing{}",
                      h.ga, pipeline.micro_batches(), h.pp > 1 ? ", and stages exchange pp_comm once per micro-batch of the table" : ""));
}

// Refuses, before allocating anything, a file that would expand to more than
// options.max_nodes nodes. The bound per rank and iteration: at most seven nodes per layer line
// (fwd compute and comm, ig compute and comm, wg compute and comm, update) and four pipeline
// sends/receives per micro-batch and chunk.
void check_size(const Header& h, std::size_t layers, const SimaiPipeline& pipeline, const Options& options,
                std::string_view name) {
  const double per_rank = static_cast<double>(options.iterations) *
                          (7.0 * static_cast<double>(layers) +
                           4.0 * static_cast<double>(pipeline.micro_batches()) * pipeline.chunks);
  const double bound = per_rank * h.all_gpus;
  if (bound > static_cast<double>(options.max_nodes)) {
    throw UserError(fmt::format("{}: {} ranks x {} layer lines x {} iterations expand to up to {:.3g} nodes, more "
                                "than the {} allowed (Options::max_nodes); check all_gpus",
                                name, h.all_gpus, layers, options.iterations, bound, options.max_nodes));
  }
}

// Builds the per-rank DAG described in the header comment.
class Builder {
 public:
  Builder(Workload& w, const Header& h, const SimaiPipeline& pipeline) : w_(w), h_(h), pipeline_(pipeline) {
    dp_ = h.all_gpus / (h.tp * h.pp);
    make_groups();
  }

  // With shared programs, each stage's first rank is built and the others copied from it: the
  // ranks of a stage add the same nodes but for their communicators and peers.
  void build(const std::vector<Line>& lines, std::uint32_t iterations, const std::vector<std::uint32_t>& ranks) {
    std::vector<std::uint32_t> built(h_.pp, kNone);  // per stage: the rank built
    for (std::uint32_t r : ranks) {
      std::uint32_t& like = built[r / (h_.tp * dp_)];
      if (like != kNone && w_.shares_programs()) {
        copy_rank(r, like);
        continue;
      }
      build_rank(r, lines, iterations);
      like = r;
    }
  }

  // What build() would add for every rank, exactly. Ranks of one stage add the same nodes, and
  // iterations after the first the same as the second (only the first's forwards wait for no
  // update), so one rank per stage and one and two iterations give the count of any size.
  WorkloadCounts count(const std::vector<Line>& lines, std::uint32_t iterations) {
    counting_ = true;
    StageCounts total(h_.all_gpus);
    const std::uint64_t ranks_per_stage = std::uint64_t{h_.tp} * dp_;
    for (std::uint32_t stage = 0; stage < h_.pp; ++stage) {
      const RankCount one = count_rank(rank_of(0, 0, stage), lines, 1);
      const RankCount two = iterations > 1 ? count_rank(rank_of(0, 0, stage), lines, 2) : one;
      total.add(one, two, iterations, ranks_per_stage);
    }
    counting_ = false;
    return total.total();
  }

  // The first rank of every stage, then ranks 0 .. first - 1: a sample whose programs stand for
  // every rank's (the ranks of a stage differ only in their groups and peers).
  std::vector<std::uint32_t> sample(std::uint32_t first) const {
    std::vector<std::uint32_t> ranks;
    for (std::uint32_t stage = 0; stage < h_.pp; ++stage) ranks.push_back(rank_of(0, 0, stage));
    for (std::uint32_t r = 0; r < std::min(first, h_.all_gpus); ++r) ranks.push_back(r);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
  }

 private:
  std::uint32_t rank_of(std::uint32_t tp, std::uint32_t dp, std::uint32_t stage) const {
    return tp + h_.tp * (dp + dp_ * stage);
  }

  void make_groups() {
    const std::uint32_t n = h_.all_gpus;
    tp_of_.assign(n, 0);
    dp_of_.assign(n, 0);
    ep_of_.assign(n, 0);
    dpep_of_.assign(n, 0);
    for (std::uint32_t stage = 0; stage < h_.pp; ++stage) {
      for (std::uint32_t d = 0; d < dp_; ++d) {
        Communicator c{fmt::format("tp.{}", stage * dp_ + d), "tp", {}, CommunicatorKind::kTensor};
        for (std::uint32_t t = 0; t < h_.tp; ++t) c.ranks.push_back(rank_of(t, d, stage));
        const CommunicatorId id = w_.add_communicator(c);
        for (std::uint32_t r : w_.communicator(id).ranks) tp_of_[r] = id;
      }
      for (std::uint32_t t = 0; t < h_.tp; ++t) {
        const std::uint32_t g = stage * h_.tp + t;
        Communicator dp{fmt::format("dp.{}", g), "dp", {}, CommunicatorKind::kData};
        for (std::uint32_t d = 0; d < dp_; ++d) dp.ranks.push_back(rank_of(t, d, stage));
        const CommunicatorId dp_id = w_.add_communicator(dp);
        for (std::uint32_t r : w_.communicator(dp_id).ranks) dp_of_[r] = dp_id;
        for (std::uint32_t e = 0; e < dp_ / h_.ep; ++e) {
          Communicator ep{fmt::format("ep.{}.{}", g, e), "ep", {}, CommunicatorKind::kExpert};
          for (std::uint32_t k = 0; k < h_.ep; ++k) ep.ranks.push_back(rank_of(t, e * h_.ep + k, stage));
          const CommunicatorId ep_id = w_.add_communicator(ep);
          for (std::uint32_t r : w_.communicator(ep_id).ranks) ep_of_[r] = ep_id;
        }
        for (std::uint32_t k = 0; k < h_.ep; ++k) {
          Communicator de{fmt::format("dp_ep.{}.{}", g, k), "dp_ep", {}, CommunicatorKind::kData};
          for (std::uint32_t e = 0; e < dp_ / h_.ep; ++e) de.ranks.push_back(rank_of(t, e * h_.ep + k, stage));
          const CommunicatorId de_id = w_.add_communicator(de);
          for (std::uint32_t r : w_.communicator(de_id).ranks) dpep_of_[r] = de_id;
        }
      }
    }
  }

  // Rank `rank`'s nodes as those build_rank gave rank `like` of its stage: each of `like`'s
  // groups replaced by `rank`'s group of that kind, each peer by the one as far from `rank`.
  void copy_rank(std::uint32_t rank, std::uint32_t like) {
    const auto communicator = [&](CommunicatorId c) {
      for (const std::vector<CommunicatorId>* of : {&tp_of_, &dp_of_, &ep_of_, &dpep_of_}) {
        if ((*of)[like] == c) return (*of)[rank];
      }
      throw InternalError(fmt::format("simai import: rank {}'s communicator {} is none of its groups", like, c));
    };
    w_.add_rank_like(rank, like, communicator, [&](std::uint32_t peer) { return peer - like + rank; });
  }

  CommunicatorId group(std::uint32_t rank, Group g, bool weight_grad) const {
    switch (g) {
      case Group::kExpert: return ep_of_[rank];
      case Group::kDataOutsideExpert: return dpep_of_[rank];
      case Group::kDefault: break;
    }
    return weight_grad ? dp_of_[rank] : tp_of_[rank];
  }

  // Adds `node` depending on those of `deps` that exist.
  // In a counting pass only counts it, returning a stand-in id.
  NodeId add(Node node, std::initializer_list<NodeId> deps) {
    deps_.clear();
    for (NodeId d : deps) {
      if (d != kNone) deps_.push_back(d);
    }
    if (!counting_) return w_.add_node(node, deps_);
    counted_.add(deps_.size(),
                 node.kind == NodeKind::kCollective ? w_.communicator(node.communicator).ranks.size() : 0);
    return static_cast<NodeId>((counted_.nodes - 1) % kNone);
  }

  RankCount count_rank(std::uint32_t rank, const std::vector<Line>& lines, std::uint32_t iterations) {
    counted_ = {};
    build_rank(rank, lines, iterations);
    return counted_;
  }

  // Line i's label of `kind`, interned on first use (so ids come in the order the nodes first
  // use them); none in a counting pass.
  enum LabelKind : std::uint8_t { kFwd, kFwdComm, kIg, kIgComm, kWg, kWgComm, kUpdate, kLabelKinds };
  LabelId label(const std::vector<Line>& lines, std::size_t i, LabelKind kind) {
    if (counting_) return 0;
    if (labels_.size() != lines.size()) labels_.assign(lines.size(), {});
    std::optional<LabelId>& id = labels_[i][kind];
    if (!id) {
      static constexpr std::array<std::string_view, kLabelKinds> kSuffix = {".fwd", ".fwd.comm", ".ig", ".ig.comm",
                                                                           ".wg",  ".wg.comm",  ".update"};
      id = w_.intern_label(lines[i].name + std::string(kSuffix[kind]));
    }
    return *id;
  }

  NodeId compute(std::uint32_t rank, Time duration, LabelId label, std::uint16_t layer, std::uint16_t mb,
                 NodeId after, NodeId also = kNone, NodeId input = kNone) {
    Node n;
    n.kind = NodeKind::kCompute;
    n.rank = rank;
    n.duration = duration;
    n.label = label;
    n.layer = layer;
    n.micro_batch = mb;
    n.iteration = iteration_;
    return add(n, {after, also, input});
  }

  NodeId comm(std::uint32_t rank, const Comm& c, bool weight_grad, LabelId label, std::uint16_t layer,
              std::uint16_t mb, NodeId after) {
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = *c.op;
    n.rank = rank;
    n.communicator = group(rank, c.group, weight_grad);
    n.bytes = c.bytes;
    n.stream = weight_grad ? 1 : 0;
    n.label = label;
    n.layer = layer;
    n.micro_batch = mb;
    n.iteration = iteration_;
    return add(n, {after});
  }

  // A send of pp_comm bytes after `after`, or a receive after the previous receive of its kind
  // (posted as early as it may be: receives are matched in order per peer and tag), each on its
  // own stream so that a send waiting for its receiver blocks no other work.
  NodeId p2p(std::uint32_t rank, NodeKind kind, std::uint32_t peer, bool gradient, std::uint16_t mb, NodeId after) {
    Node n;
    n.kind = kind;
    n.rank = rank;
    n.peer = peer;
    n.tag = gradient ? 1 : 0;
    n.bytes = h_.pp_comm;
    const bool send = kind == NodeKind::kSend;
    n.stream = send ? (gradient ? kSendGradient : kSendActivation) : (gradient ? kRecvGradient : kRecvActivation);
    if (!counting_) {
      n.label = w_.intern_label(fmt::format("pp.{}.{}", send ? "send" : "recv", gradient ? "gradient" : "activation"));
    }
    n.micro_batch = mb;
    n.iteration = iteration_;
    if (send) return add(n, {after});
    NodeId& chain = last_recv_[gradient ? 1 : 0];
    chain = add(n, {chain});
    return chain;
  }

  // The prelude's lines forward, the pipeline's steps in the stage's order, the prelude's lines
  // backward. A step runs its chunk of a micro-batch: forward, receive the activation from the
  // previous virtual stage, the lines in order, send it to the next; backward, receive the
  // gradient from the next virtual stage, the lines in reverse, send it to the previous. The
  // receive chains run on across iterations, as the schedule consumes them.
  void build_rank(std::uint32_t rank, const std::vector<Line>& lines, std::uint32_t iterations) {
    const std::uint32_t stride = h_.tp * dp_;
    const std::uint32_t stage = rank / stride;
    const std::uint32_t vstages = h_.pp * pipeline_.chunks;
    // The rank of this rank's TP and DP position that holds virtual stage vs.
    auto holder = [&](std::uint32_t vs) { return rank - stage * stride + (vs % h_.pp) * stride; };
    const std::vector<synthesis::PipelineStep> steps = pipeline_.order(stage);
    updates_.assign(lines.size(), kNone);
    last_recv_[0] = last_recv_[1] = kNone;
    NodeId last = kNone;
    for (iteration_ = 0; iteration_ < iterations; ++iteration_) {
      last = forward(rank, lines, {0, pipeline_.prelude_end}, 0, last, kNone);
      for (const synthesis::PipelineStep& step : steps) {
        const LineRange range = pipeline_.ranges[step.micro_batch][step.chunk];
        const auto m = static_cast<std::uint16_t>(step.micro_batch);
        const std::uint32_t vs = step.chunk * h_.pp + stage;
        const bool first = vs == 0, final = vs + 1 == vstages;
        if (step.forward) {
          const NodeId input = first ? kNone : p2p(rank, NodeKind::kRecv, holder(vs - 1), false, m, kNone);
          last = forward(rank, lines, range, m, last, input);
          if (!final) p2p(rank, NodeKind::kSend, holder(vs + 1), false, m, last);
        } else {
          const NodeId input = final ? kNone : p2p(rank, NodeKind::kRecv, holder(vs + 1), true, m, kNone);
          last = backward(rank, lines, range, m, last, input);
          if (!first) p2p(rank, NodeKind::kSend, holder(vs - 1), true, m, last);
        }
      }
      last = backward(rank, lines, {0, pipeline_.prelude_end}, 0, last, kNone);
    }
  }

  // Lines [first, end) forward; a line's forward waits for its weights' update of the previous
  // iteration.
  NodeId forward(std::uint32_t rank, const std::vector<Line>& lines, LineRange range, std::uint16_t m, NodeId last,
                 NodeId input) {
    for (std::size_t i = range.first; i < range.second; ++i) {
      const Line& l = lines[i];
      const auto layer = static_cast<std::uint16_t>(i);
      last = compute(rank, l.fwd, label(lines, i, kFwd), layer, m, last, updates_[i], input);
      input = kNone;
      if (l.fwd_comm.op) last = comm(rank, l.fwd_comm, false, label(lines, i, kFwdComm), layer, m, last);
    }
    return last;
  }

  // Lines [first, end) backward, in reverse; a line's weight-gradient collective runs on stream 1
  // beside the rest of backward, and its update after it.
  NodeId backward(std::uint32_t rank, const std::vector<Line>& lines, LineRange range, std::uint16_t m, NodeId last,
                  NodeId input) {
    for (std::size_t i = range.second; i-- > range.first;) {
      const Line& l = lines[i];
      const auto layer = static_cast<std::uint16_t>(i);
      last = compute(rank, l.ig, label(lines, i, kIg), layer, m, last, input);
      input = kNone;
      if (l.ig_comm.op) last = comm(rank, l.ig_comm, false, label(lines, i, kIgComm), layer, m, last);
      last = compute(rank, l.wg, label(lines, i, kWg), layer, m, last);
      if (l.wg_comm.op) {
        const NodeId reduced = comm(rank, l.wg_comm, true, label(lines, i, kWgComm), layer, m, last);
        updates_[i] = compute(rank, l.update, label(lines, i, kUpdate), layer, m, reduced);
      }
    }
    return last;
  }

  static constexpr NodeId kNone = 0xffffffffu;
  // Communication streams: 0 blocks the next compute, 1 runs weight-gradient collectives beside
  // backward; the pipeline's receives and sends have one each per kind.
  static constexpr std::uint8_t kRecvActivation = 2, kRecvGradient = 3, kSendActivation = 4, kSendGradient = 5;
  Workload& w_;
  const Header& h_;
  const SimaiPipeline& pipeline_;
  std::uint32_t dp_ = 1;
  std::uint32_t iteration_ = 0;
  std::vector<CommunicatorId> tp_of_, dp_of_, ep_of_, dpep_of_;
  std::vector<NodeId> deps_;
  std::vector<NodeId> updates_;  // per line: its latest update node
  NodeId last_recv_[2] = {kNone, kNone};  // the latest receive of activations, of gradients
  std::vector<std::array<std::optional<LabelId>, kLabelKinds>> labels_;
  bool counting_ = false;
  RankCount counted_;
};

}  // namespace

SimaiWorkload parse_simai(std::string_view text, std::string_view name, const Options& options) {
  if (options.iterations == 0) throw UserError("simai import: iterations must be at least 1");
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  WarningLog log;
  const Header header = parse_header(lines.front(), name, options, log);
  const std::vector<Line> layers = parse_lines(lines, name);
  if (layers.size() > kNoIndex) {
    throw UserError(fmt::format("{}: {} layer lines, at most {} are supported", name, layers.size(), kNoIndex));
  }
  std::vector<TableLine> table;
  table.reserve(layers.size());
  for (const Line& l : layers) table.push_back({l.name, l.line});
  const SimaiPipeline pipeline = find_pipeline(table, header.pp, header.vpp, name);
  check_micro_batches(header, pipeline, name, log);
  check_size(header, layers.size(), pipeline, options, name);
  SimaiWorkload out{Workload(header.all_gpus, options.storage), header, {}, {}, {}};
  Builder builder(out.workload, header, pipeline);
  out.counts = builder.count(layers, options.iterations);
  if (options.count_only) {
    // no ranks built
  } else if (options.sample) {
    out.built_ranks = builder.sample(*options.sample);
  } else {
    out.built_ranks.resize(header.all_gpus);
    std::iota(out.built_ranks.begin(), out.built_ranks.end(), 0u);
    out.workload.reserve(out.counts.nodes, out.counts.dependencies);  // exact: no spare capacity
  }
  builder.build(layers, options.iterations, out.built_ranks);
  out.workload.seal();
  out.warnings = log.finish();
  return out;
}

SimaiWorkload read_simai(const std::string& path, const Options& options) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open the SimAI workload file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_simai(text.str(), path, options);
}

}  // namespace loom::workload::simai
