// MSCCL++ JSON execution plans in the legacy (<= v0.7, camelCase) schema.
//
// A legacy op names its operands as: srcbuff/srcoff and dstbuff/dstoff (local), srcs[] and
// dsts[] ({buff, off}, local), i_cids[] (remote reads) and o_cids[] (remote writes), each
// {id, off} through the thread block's channel list keyed by i_buff/o_buff {src, dst} and the
// op's ctype; the remote buffer is the channel's dst buffer. Sources are taken in the order
// srcbuff, srcs, i_cids; destinations dstbuff, dsts, o_cids; every range has `cnt` chunks.
#include <fmt/format.h>

#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "loom/collective/msccl/json_readers.h"
#include "loom/collective/msccl/op_catalog.h"

namespace loom::collective::msccl {

namespace {

// ctype "sm" (memory), "proxy" (port), "nvls" (switch) or "none" (no channel: nullopt).
std::optional<ChannelType> parse_ctype(const JsonCursor& value) {
  const std::string text = value.as_string();
  if (text == "sm") return ChannelType::kMemory;
  if (text == "proxy") return ChannelType::kPort;
  if (text == "none") return std::nullopt;
  if (text == "nvls") value.fail("switch channels (nvls) are not supported by Loom's plan import");
  value.fail(fmt::format("unknown channel type '{}'; expected sm, proxy or none", text));
}

using ChannelKey = std::tuple<BufferKind, BufferKind, ChannelType>;

struct ChannelGroup {
  std::vector<std::uint32_t> peers;
  std::vector<std::uint32_t> positions;  // of each channel among the gpu's channels of its type
};

struct GpuContext {
  std::uint32_t rank = 0;
  std::map<ChannelKey, ChannelGroup> groups;
  std::array<std::vector<std::uint32_t>, 3> by_type;  // every channel's peer, per type, in file order
};

using TbChannels = std::map<ChannelKey, std::vector<std::uint32_t>>;  // tb channel -> index in group

struct Resolved {
  ChunkRange range;
  Connection connection;
};

// Resolves op.key (i_cids or o_cids) through op.buff_key (i_buff or o_buff).
std::vector<Resolved> resolve_cids(const JsonCursor& op, std::string_view key, std::string_view buff_key,
                                   std::optional<ChannelType> type, const GpuContext& gpu, const TbChannels& tb,
                                   std::uint32_t count) {
  std::vector<Resolved> out;
  const std::optional<JsonCursor> cids = op.find(key);
  if (!cids) return out;
  if (!type) op.at("ctype").fail(fmt::format("'none' has no channels, but the op lists {}; expected sm or proxy", key));
  const JsonCursor buff = op.at(buff_key);
  const ChannelKey channel_key{parse_buffer_letter(buff.at("src")), parse_buffer_letter(buff.at("dst")), *type};
  const auto tb_list = tb.find(channel_key);
  const auto group = gpu.groups.find(channel_key);
  for (std::size_t i = 0; i < cids->size(); ++i) {
    const JsonCursor entry = (*cids)[i];
    const std::uint32_t id = entry.at("id").as_u32();
    if (tb_list == tb.end() || id >= tb_list->second.size() || group == gpu.groups.end()) {
      entry.at("id").fail(fmt::format("channel {} is out of range; the thread block uses {} {} channels from {} to {}",
                                      id, tb_list == tb.end() ? 0 : tb_list->second.size(), to_string(*type),
                                      to_string(std::get<0>(channel_key)), to_string(std::get<1>(channel_key))));
    }
    const std::uint32_t in_group = tb_list->second[id];
    Resolved r;
    r.connection.type = *type;
    r.connection.peer = group->second.peers[in_group];
    const std::vector<std::uint32_t>& all = gpu.by_type[static_cast<std::size_t>(*type)];
    for (std::uint32_t j = 0; j < group->second.positions[in_group]; ++j) {
      r.connection.index += all[j] == r.connection.peer ? 1 : 0;
    }
    r.range = {r.connection.peer, std::get<1>(channel_key), entry.u32_or("off", 0), count};
    out.push_back(r);
  }
  return out;
}

std::vector<ChunkRange> local_ranges(const JsonCursor& op, std::string_view single, std::string_view single_off,
                                     std::string_view list, std::uint32_t rank, std::uint32_t count) {
  std::vector<ChunkRange> ranges;
  if (op.has(single)) ranges.push_back({rank, parse_buffer_letter(op.at(single)), op.at(single_off).as_u32(), count});
  if (const std::optional<JsonCursor> entries = op.find(list)) {
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const JsonCursor entry = (*entries)[i];
      ranges.push_back({rank, parse_buffer_letter(entry.at("buff")), entry.at("off").as_u32(), count});
    }
  }
  return ranges;
}

Op read_op(const JsonCursor& value, const GpuContext& gpu, const TbChannels& tb) {
  Op op;
  op.name = value.at("name").as_string();
  op.where = fmt::format("{} ({})", value.where(), op.name);
  const OpTraits& traits = mscclpp_op_traits(op.name, value.where());
  op.kind = traits.kind;
  op.reduce = traits.reduce;
  op.packet = traits.packet;
  const std::optional<ChannelType> type = value.has("ctype") ? parse_ctype(value.at("ctype")) : std::nullopt;
  const bool data = traits.kind == OpKind::kData;
  const std::uint32_t count = data ? value.at("cnt").as_u32() : value.u32_or("cnt", 1);
  const std::vector<Resolved> reads = resolve_cids(value, "i_cids", "i_buff", type, gpu, tb, count);
  const std::vector<Resolved> writes = resolve_cids(value, "o_cids", "o_buff", type, gpu, tb, count);
  switch (traits.kind) {
    case OpKind::kData:
      op.srcs = local_ranges(value, "srcbuff", "srcoff", "srcs", gpu.rank, count);
      op.dsts = local_ranges(value, "dstbuff", "dstoff", "dsts", gpu.rank, count);
      for (const Resolved& r : reads) op.srcs.push_back(r.range);
      for (const Resolved& r : writes) op.dsts.push_back(r.range);
      if (traits.signals) {
        for (const Resolved& r : writes) op.connections.push_back(r.connection);
      }
      break;
    case OpKind::kSignal:
    case OpKind::kFlush:
      for (const Resolved& r : writes.empty() ? reads : writes) op.connections.push_back(r.connection);
      break;
    case OpKind::kWait:
      for (const Resolved& r : reads.empty() ? writes : reads) op.connections.push_back(r.connection);
      break;
    case OpKind::kBarrier:
      op.barrier_id = value.u32_or("barrier_id", value.u32_or("deviceSyncerIndex", 0));
      op.barrier_members = value.u32_or("nthread_blocks", value.u32_or("num_threadblocks", 0));
      break;
    case OpKind::kNop:
    case OpKind::kXmlStep:
      break;
  }
  if ((op.kind == OpKind::kSignal || op.kind == OpKind::kWait) && op.connections.empty()) {
    value.fail("a signal or wait without channels; expected i_cids or o_cids");
  }
  return op;
}

ThreadBlock read_thread_block(const JsonCursor& value, const GpuContext& gpu) {
  ThreadBlock tb;
  tb.id = value.at("id").as_u32();
  tb.where = value.where();
  TbChannels channels;
  if (const std::optional<JsonCursor> list = value.find("channels")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const JsonCursor entry = (*list)[i];
      const std::optional<ChannelType> type = parse_ctype(entry.at("ctype"));
      if (!type) continue;
      const ChannelKey key{parse_buffer_letter(entry.at("src")), parse_buffer_letter(entry.at("dst")), *type};
      const auto group = gpu.groups.find(key);
      const JsonCursor cids = entry.at("cids");
      for (std::size_t j = 0; j < cids.size(); ++j) {
        const std::uint32_t cid = cids[j].as_u32();
        if (group == gpu.groups.end() || cid >= group->second.peers.size()) {
          cids[j].fail(fmt::format("channel {} is out of range; gpu {} has {} {} channels from {} to {}", cid, gpu.rank,
                                   group == gpu.groups.end() ? 0 : group->second.peers.size(), to_string(*type),
                                   to_string(std::get<0>(key)), to_string(std::get<1>(key))));
        }
        channels[key].push_back(cid);
      }
    }
  }
  const JsonCursor ops = value.at("ops");
  for (std::size_t i = 0; i < ops.size(); ++i) tb.ops.push_back(read_op(ops[i], gpu, channels));
  return tb;
}

Rank read_gpu(const JsonCursor& value, std::uint32_t ranks) {
  Rank rank;
  rank.id = value.at("id").as_u32();
  rank.input_chunks = value.at("inputChunks").as_u32();
  rank.output_chunks = value.u32_or("outputChunks", 0);
  rank.scratch_chunks = value.u32_or("scratchChunks", 0);
  GpuContext gpu;
  gpu.rank = rank.id;
  if (const std::optional<JsonCursor> list = value.find("channels")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const JsonCursor entry = (*list)[i];
      const std::optional<ChannelType> type = parse_ctype(entry.at("type"));
      if (!type) continue;
      const ChannelKey key{parse_buffer_letter(entry.at("srcbuff")), parse_buffer_letter(entry.at("dstbuff")), *type};
      std::vector<std::uint32_t>& all = gpu.by_type[static_cast<std::size_t>(*type)];
      ChannelGroup& group = gpu.groups[key];
      const JsonCursor peers = entry.at("connectedTo");
      for (std::size_t j = 0; j < peers.size(); ++j) {
        const std::uint32_t peer = peers[j].as_u32();
        if (peer >= ranks || peer == rank.id) {
          peers[j].fail(fmt::format("peer {} is out of range; expected a rank of 0..{} other than {}", peer,
                                    ranks - 1, rank.id));
        }
        group.peers.push_back(peer);
        group.positions.push_back(static_cast<std::uint32_t>(all.size()));
        all.push_back(peer);
      }
    }
  }
  const JsonCursor tbs = value.at("threadblocks");
  for (std::size_t i = 0; i < tbs.size(); ++i) rank.thread_blocks.push_back(read_thread_block(tbs[i], gpu));
  return rank;
}

}  // namespace

Plan read_legacy_schema(const JsonCursor& root) {
  // Legacy files spell the key "colletive"; accept both.
  const JsonCursor collective = root.has("colletive") ? root.at("colletive") : root.at("collective");
  return read_json_plan(root, PlanFormat::kMscclppLegacyJson, collective.as_string(), read_gpu);
}

}  // namespace loom::collective::msccl
