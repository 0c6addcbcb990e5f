#include "collective/msccl/plan_texts.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace loom::collective::msccl::testing {

std::string ring_xml(std::uint32_t n, const RingOptions& options) {
  const char* buf = options.allgather ? "o" : "i";
  std::string out = fmt::format(R"(<algo name="ring" proto="{}" nchannels="1" nchunksperloop="{}" ngpus="{}" coll="{}" inplace="1">)",
                                options.proto, n, n, options.allgather ? "allgather" : "allreduce");
  out += "\n";
  auto chunk = [n](std::int64_t c) { return static_cast<std::uint32_t>(((c % n) + n) % n); };
  for (std::uint32_t r = 0; r < n; ++r) {
    out += fmt::format(R"(  <gpu id="{}" i_chunks="{}" o_chunks="{}" s_chunks="0">)", r, options.allgather ? 0 : n,
                       options.allgather ? n : 0);
    out += fmt::format("\n    <tb id=\"0\" send=\"{}\" recv=\"{}\" chan=\"0\">\n", (r + 1) % n, (r + n - 1) % n);
    std::uint32_t s = 0;
    auto step = [&](const char* type, std::uint32_t c) {
      out += fmt::format(R"(      <step s="{}" type="{}" srcbuf="{}" srcoff="{}" dstbuf="{}" dstoff="{}" cnt="1" depid="-1" deps="-1" hasdep="0"/>)",
                         s++, type, buf, c, buf, c);
      out += "\n";
    };
    step("s", r);
    if (!options.allgather) {
      for (std::uint32_t t = 0; t + 1 < n; ++t) {
        step(options.drop_reduce && r == 1 && t == 0 ? "r" : "rrc", chunk(std::int64_t{r} - t - 1));
        if (t + 2 < n) step("s", chunk(std::int64_t{r} - t - 1));
      }
      step("s", chunk(std::int64_t{r} + 1));
    }
    const std::int64_t first = options.allgather ? std::int64_t{r} - 1 : std::int64_t{r};
    for (std::uint32_t t = 0; t + 1 < n; ++t) {
      step("r", chunk(first - t));
      if (t + 2 < n) step("s", chunk(first - t));
    }
    out += "    </tb>\n  </gpu>\n";
  }
  out += "</algo>\n";
  return out;
}

namespace {

nlohmann::json range(const char* type, std::uint32_t index) { return {{"type", type}, {"index", index}, {"size", 1}}; }
nlohmann::json remote(std::uint32_t id, std::uint32_t index) { return {{"buffer_id", id}, {"index", index}, {"size", 1}}; }

}  // namespace

std::string all_pairs_json(std::uint32_t n, const AllPairsOptions& options) {
  nlohmann::json gpus = nlohmann::json::array();
  for (std::uint32_t r = 0; r < n; ++r) {
    std::vector<std::uint32_t> peers;
    for (std::uint32_t p = 0; p < n; ++p) {
      if (p != r) peers.push_back(p);
    }
    // Remote buffers: 2k = peer k's scratch, 2k + 1 = peer k's input.
    nlohmann::json remote_buffers = nlohmann::json::array();
    nlohmann::json ref_ids = nlohmann::json::array();
    for (std::uint32_t k = 0; k < peers.size(); ++k) {
      remote_buffers.push_back({{"rank", peers[k]}, {"type", "s"}, {"access_channel_types", {"memory"}}});
      remote_buffers.push_back({{"rank", peers[k]}, {"type", "i"}, {"access_channel_types", {"memory"}}});
      ref_ids.push_back(2 * k);
      ref_ids.push_back(2 * k + 1);
    }
    nlohmann::json channel_ids = nlohmann::json::array();
    for (std::uint32_t k = 0; k < peers.size(); ++k) channel_ids.push_back(k);
    auto signal_all = [&](const char* name) {
      return nlohmann::json{{"name", name}, {"channel_type", "memory"}, {"channel_ids", channel_ids}};
    };
    nlohmann::json scatter = nlohmann::json::array();
    for (std::uint32_t k = 0; k < peers.size(); ++k) {
      const std::uint32_t target = options.wrong_peer && r == 0 && k == 0 ? 1 : k;
      scatter.push_back({{"name", "put"}, {"channel_type", "memory"}, {"src_buff", {range("i", peers[k])}},
                         {"dst_buff", {remote(2 * target, r)}}});
    }
    scatter.push_back(signal_all("signal"));
    nlohmann::json gather = nlohmann::json::array();
    gather.push_back(signal_all("wait"));
    nlohmann::json srcs = {range("i", r)};
    for (std::uint32_t k = 0; k < peers.size(); ++k) {
      if (!(options.drop_reduce && r == 0 && k + 1 == peers.size())) srcs.push_back(range("s", peers[k]));
    }
    gather.push_back({{"name", "re"}, {"src_buff", srcs}, {"dst_buff", {range("i", r)}}, {"reduce_op", "sum"}});
    for (std::uint32_t k = 0; k < peers.size(); ++k) {
      gather.push_back({{"name", "put"}, {"channel_type", "memory"}, {"src_buff", {range("i", r)}},
                        {"dst_buff", {remote(2 * k + 1, r)}}});
    }
    gather.push_back(signal_all("signal"));
    gather.push_back(signal_all("wait"));
    auto block = [&](std::uint32_t id, nlohmann::json ops) {
      return nlohmann::json{{"id", id},
                            {"ops", std::move(ops)},
                            {"channels", {{{"channel_type", "memory"}, {"channel_ids", channel_ids}}}},
                            {"remote_buffer_refs", {{{"access_channel_type", "memory"}, {"remote_buffer_ids", ref_ids}}}}};
    };
    nlohmann::json tbs = nlohmann::json::array();
    if (options.barrier) {
      scatter.push_back({{"name", "barrier"}, {"barrier_id", 0}, {"num_threadblocks", 2}});
      gather.insert(gather.begin(), nlohmann::json{{"name", "barrier"}, {"barrier_id", 0}, {"num_threadblocks", 2}});
      tbs.push_back(block(0, scatter));
      tbs.push_back(block(1, gather));
    } else {
      for (auto& op : gather) scatter.push_back(op);
      tbs.push_back(block(0, scatter));
    }
    gpus.push_back({{"id", r},
                    {"input_chunks", n},
                    {"output_chunks", n},
                    {"scratch_chunks", n},
                    {"threadblocks", tbs},
                    {"channels", {{{"channel_type", "memory"}, {"connected_to", peers}}}},
                    {"remote_buffers", remote_buffers},
                    {"semaphores", nlohmann::json::array()}});
  }
  nlohmann::json plan = {{"name", "all_pairs"}, {"collective", "allreduce"}, {"protocol", "Simple"},
                         {"inplace", true},     {"gpus", gpus}};
  return plan.dump(1);
}

}  // namespace loom::collective::msccl::testing
