// MSCCL++ JSON execution plans in the current (snake_case, >= v0.8) schema.
#include <fmt/format.h>

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "loom/collective/msccl/json_readers.h"
#include "loom/collective/msccl/op_catalog.h"

namespace loom::collective::msccl {

namespace {

ChannelType parse_channel_type(const JsonCursor& value) {
  const std::string text = value.as_string();
  if (text == "memory") return ChannelType::kMemory;
  if (text == "port") return ChannelType::kPort;
  if (text == "switch") return ChannelType::kSwitch;
  value.fail(fmt::format("unknown channel type '{}'; expected memory, port or switch", text));
}

std::size_t type_index(ChannelType type) { return static_cast<std::size_t>(type); }

struct RemoteBuffer {
  std::uint32_t rank = 0;
  BufferKind buffer = BufferKind::kInput;
};

struct GpuContext {
  std::uint32_t rank = 0;
  std::uint32_t ranks = 0;
  std::array<std::vector<std::uint32_t>, 3> peers;  // per channel type: gpu channel -> peer
  std::vector<RemoteBuffer> remote_buffers;
};

struct TbContext {
  std::array<std::vector<std::uint32_t>, 3> channels;     // tb channel -> gpu channel
  std::array<std::vector<std::uint32_t>, 3> remote_refs;  // tb remote buffer -> gpu remote buffer
};

ChunkRange read_range(const JsonCursor& value, const GpuContext& gpu, const TbContext& tb, ChannelType type) {
  ChunkRange range;
  range.index = value.at("index").as_u32();
  range.count = value.at("size").as_u32();
  if (value.has("type")) {
    range.rank = gpu.rank;
    range.buffer = parse_buffer_letter(value.at("type"));
    return range;
  }
  const JsonCursor id = value.at("buffer_id");
  const std::vector<std::uint32_t>& refs = tb.remote_refs[type_index(type)];
  const std::uint32_t k = id.as_u32();
  if (k >= refs.size()) {
    id.fail(fmt::format("remote buffer {} is out of range; the thread block lists {} remote buffers for {} channels",
                        k, refs.size(), to_string(type)));
  }
  const RemoteBuffer& remote = gpu.remote_buffers[refs[k]];
  range.rank = remote.rank;
  range.buffer = remote.buffer;
  return range;
}

std::vector<ChunkRange> read_ranges(const JsonCursor& op, std::string_view key, const GpuContext& gpu,
                                    const TbContext& tb, ChannelType type) {
  std::vector<ChunkRange> ranges;
  if (const std::optional<JsonCursor> list = op.find(key)) {
    for (std::size_t i = 0; i < list->size(); ++i) ranges.push_back(read_range((*list)[i], gpu, tb, type));
  }
  return ranges;
}

std::vector<Connection> read_connections(const JsonCursor& op, const GpuContext& gpu, const TbContext& tb,
                                         ChannelType type) {
  std::vector<Connection> connections;
  const JsonCursor ids = op.at("channel_ids");
  const std::vector<std::uint32_t>& tb_channels = tb.channels[type_index(type)];
  const std::vector<std::uint32_t>& peers = gpu.peers[type_index(type)];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t k = ids[i].as_u32();
    if (k >= tb_channels.size()) {
      ids[i].fail(fmt::format("channel {} is out of range; the thread block uses {} {} channels", k,
                              tb_channels.size(), to_string(type)));
    }
    const std::uint32_t g = tb_channels[k];
    Connection c{type, peers[g], 0};
    for (std::uint32_t j = 0; j < g; ++j) c.index += peers[j] == c.peer ? 1 : 0;
    connections.push_back(c);
  }
  return connections;
}

Op read_op(const JsonCursor& value, const GpuContext& gpu, const TbContext& tb) {
  Op op;
  op.name = value.at("name").as_string();
  op.where = fmt::format("{} ({})", value.where(), op.name);
  const OpTraits& traits = mscclpp_op_traits(op.name, value.where());
  if (const std::optional<JsonCursor> group = value.find("tbg_info"); group && group->u32_or("tbg_size", 1) > 1) {
    group->fail("thread-block groups (tbg_size > 1) are not supported by Loom's plan import");
  }
  const ChannelType type = value.has("channel_type") ? parse_channel_type(value.at("channel_type")) : ChannelType::kMemory;
  if (type == ChannelType::kSwitch) {
    value.at("channel_type").fail("switch channels (NVLS) are not supported by Loom's plan import");
  }
  op.kind = traits.kind;
  op.reduce = traits.reduce;
  op.packet = traits.packet;
  switch (traits.kind) {
    case OpKind::kData:
      op.srcs = read_ranges(value, "src_buff", gpu, tb, type);
      op.dsts = read_ranges(value, "dst_buff", gpu, tb, type);
      if (traits.signals) op.connections = read_connections(value, gpu, tb, type);
      break;
    case OpKind::kSignal:
    case OpKind::kWait:
    case OpKind::kFlush:
      op.connections = read_connections(value, gpu, tb, type);
      break;
    case OpKind::kBarrier:
      op.barrier_id = value.at("barrier_id").as_u32();
      op.barrier_members = value.u32_or("num_threadblocks", 0);
      break;
    case OpKind::kNop:
    case OpKind::kXmlStep:
      break;
  }
  return op;
}

ThreadBlock read_thread_block(const JsonCursor& value, const GpuContext& gpu) {
  ThreadBlock tb;
  tb.id = value.at("id").as_u32();
  tb.where = value.where();
  TbContext context;
  if (const std::optional<JsonCursor> channels = value.find("channels")) {
    for (std::size_t i = 0; i < channels->size(); ++i) {
      const JsonCursor entry = (*channels)[i];
      const ChannelType type = parse_channel_type(entry.at("channel_type"));
      const JsonCursor ids = entry.at("channel_ids");
      for (std::size_t j = 0; j < ids.size(); ++j) {
        const std::uint32_t id = ids[j].as_u32();
        if (id >= gpu.peers[type_index(type)].size()) {
          ids[j].fail(fmt::format("channel {} is out of range; gpu {} has {} {} channels", id, gpu.rank,
                                  gpu.peers[type_index(type)].size(), to_string(type)));
        }
        context.channels[type_index(type)].push_back(id);
      }
    }
  }
  if (const std::optional<JsonCursor> refs = value.find("remote_buffer_refs")) {
    for (std::size_t i = 0; i < refs->size(); ++i) {
      const JsonCursor entry = (*refs)[i];
      const ChannelType type = parse_channel_type(entry.at("access_channel_type"));
      const JsonCursor ids = entry.at("remote_buffer_ids");
      for (std::size_t j = 0; j < ids.size(); ++j) {
        const std::uint32_t id = ids[j].as_u32();
        if (id >= gpu.remote_buffers.size()) {
          ids[j].fail(fmt::format("remote buffer {} is out of range; gpu {} has {} remote buffers", id, gpu.rank,
                                  gpu.remote_buffers.size()));
        }
        context.remote_refs[type_index(type)].push_back(id);
      }
    }
  }
  const JsonCursor ops = value.at("ops");
  for (std::size_t i = 0; i < ops.size(); ++i) tb.ops.push_back(read_op(ops[i], gpu, context));
  return tb;
}

Rank read_gpu(const JsonCursor& value, std::uint32_t ranks) {
  Rank rank;
  rank.id = value.at("id").as_u32();
  rank.input_chunks = value.at("input_chunks").as_u32();
  rank.output_chunks = value.at("output_chunks").as_u32();
  rank.scratch_chunks = value.at("scratch_chunks").as_u32();
  GpuContext gpu;
  gpu.rank = rank.id;
  gpu.ranks = ranks;
  if (const std::optional<JsonCursor> channels = value.find("channels")) {
    for (std::size_t i = 0; i < channels->size(); ++i) {
      const JsonCursor entry = (*channels)[i];
      const ChannelType type = parse_channel_type(entry.at("channel_type"));
      if (type == ChannelType::kSwitch) continue;  // usable only by the unsupported multimem ops
      const JsonCursor peers = entry.at("connected_to");
      for (std::size_t j = 0; j < peers.size(); ++j) {
        const std::uint32_t peer = peers[j].as_u32();
        if (peer >= ranks || peer == rank.id) {
          peers[j].fail(fmt::format("peer {} is out of range; expected a rank of 0..{} other than {}", peer,
                                    ranks - 1, rank.id));
        }
        gpu.peers[type_index(type)].push_back(peer);
      }
    }
  }
  if (const std::optional<JsonCursor> remotes = value.find("remote_buffers")) {
    for (std::size_t i = 0; i < remotes->size(); ++i) {
      const JsonCursor entry = (*remotes)[i];
      const JsonCursor peer = entry.at("rank");
      const std::uint32_t remote_rank = peer.as_u32();
      if (remote_rank >= ranks) {
        peer.fail(fmt::format("rank {} is out of range; the plan has ranks 0..{}", remote_rank, ranks - 1));
      }
      gpu.remote_buffers.push_back({remote_rank, parse_buffer_letter(entry.at("type"))});
    }
  }
  const JsonCursor tbs = value.at("threadblocks");
  for (std::size_t i = 0; i < tbs.size(); ++i) rank.thread_blocks.push_back(read_thread_block(tbs[i], gpu));
  return rank;
}

}  // namespace

Plan read_current_schema(const JsonCursor& root) {
  return read_json_plan(root, PlanFormat::kMscclppJson, root.at("collective").as_string(), read_gpu);
}

Plan read_json_plan(const JsonCursor& root, PlanFormat format, std::string collective,
                    Rank (*read_gpu)(const JsonCursor& gpu, std::uint32_t ranks)) {
  Plan plan;
  plan.format = format;
  plan.source = root.file();
  plan.name = root.string_or("name", "");
  plan.collective = std::move(collective);
  plan.protocol = parse_plan_protocol(root.string_or("protocol", "Simple"), root.where() + ": protocol");
  plan.inplace = root.bool_or("inplace", false);
  const JsonCursor gpus = root.at("gpus");
  const auto ranks = static_cast<std::uint32_t>(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) plan.ranks.push_back(read_gpu(gpus[i], ranks));
  return plan;
}

}  // namespace loom::collective::msccl
