// Loom-written Chakra traces read back to the same workload; malformed traces fail clearly.
#include <fstream>

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/chakra/et_def.pb.h"
#include "loom/workload/chakra/et_file.h"
#include "workload/fixture_path.h"

namespace loom::workload::chakra {
namespace {

using collective::CollectiveOp;
using testing::scratch_dir;

// 4 ranks: a world and two TP pairs; compute with flops and exact picosecond durations, a TP
// all-reduce with a fixed algorithm, a pipeline send/recv pair, a world all-to-all.
Workload sample_workload() {
  Workload w(4);
  const CommunicatorId world = w.add_communicator({"world", "world", {0, 1, 2, 3}, CommunicatorKind::kWorld});
  const CommunicatorId tp0 = w.add_communicator({"tp.0", "tp", {0, 1}, CommunicatorKind::kTensor});
  const CommunicatorId tp1 = w.add_communicator({"tp.1", "tp", {3, 2}, CommunicatorKind::kTensor});
  std::vector<NodeId> last(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    Node c;
    c.kind = NodeKind::kCompute;
    c.compute_kind = ComputeKind::kGemm;
    c.rank = r;
    c.label = w.intern_label("layer0.fwd.qkv");
    c.flops = 123'456'789'000ull + r;
    c.bytes = 4096;
    c.duration = Time::ps(1'234'567 + r);
    c.layer = 0;
    c.micro_batch = 3;
    c.iteration = 1;
    last[r] = w.add_node(c, {});
    Node ar;
    ar.kind = NodeKind::kCollective;
    ar.op = CollectiveOp::kAllReduce;
    ar.algorithm = collective::Algorithm::kTree;
    ar.rank = r;
    ar.communicator = r < 2 ? tp0 : tp1;
    ar.label = w.intern_label("layer0.fwd.tp_allreduce");
    ar.bytes = 8 << 20;
    ar.stream = 1;
    ar.dtype = DataType::kBf16;
    last[r] = w.add_node(ar, std::span(&last[r], 1));
  }
  for (std::uint32_t r : {0u, 2u}) {
    Node s;
    s.kind = NodeKind::kSend;
    s.rank = r;
    s.peer = r + 1;
    s.tag = 7;
    s.bytes = 1000;
    s.label = w.intern_label("pp.send");
    last[r] = w.add_node(s, std::span(&last[r], 1));
    Node v = s;
    v.kind = NodeKind::kRecv;
    v.rank = r + 1;
    v.peer = r;
    v.label = w.intern_label("pp.recv");
    last[r + 1] = w.add_node(v, std::span(&last[r + 1], 1));
  }
  for (std::uint32_t r = 0; r < 4; ++r) {
    Node a;
    a.kind = NodeKind::kCollective;
    a.op = CollectiveOp::kAllToAll;
    a.rank = r;
    a.communicator = world;
    a.label = w.intern_label("moe.dispatch");
    a.bytes = 1 << 20;
    w.add_node(a, std::span(&last[r], 1));
  }
  return w;
}

// Nodes of one rank in order, with dependencies as per-rank positions.
struct RankView {
  std::vector<NodeId> ids;
  std::vector<std::vector<std::uint32_t>> deps;
};
std::vector<RankView> by_rank(const Workload& w) {
  std::vector<RankView> views(w.rank_count());
  std::vector<std::uint32_t> position(w.node_count());
  for (NodeId id = 0; id < w.node_count(); ++id) {
    RankView& v = views[w.node(id).rank];
    position[id] = static_cast<std::uint32_t>(v.ids.size());
    v.ids.push_back(id);
    std::vector<std::uint32_t> deps;
    for (NodeId d : w.deps(id)) deps.push_back(position[d]);
    v.deps.push_back(deps);
  }
  return views;
}

void expect_same(const Workload& a, const Workload& b) {
  ASSERT_EQ(a.rank_count(), b.rank_count());
  ASSERT_EQ(a.node_count(), b.node_count());
  ASSERT_EQ(a.communicator_count(), b.communicator_count());
  for (CommunicatorId c = 0; c < a.communicator_count(); ++c) {
    EXPECT_EQ(a.communicator(c).name, b.communicator(c).name);
    EXPECT_EQ(a.communicator(c).group, b.communicator(c).group);
    EXPECT_EQ(a.communicator(c).ranks, b.communicator(c).ranks);
    EXPECT_EQ(a.communicator(c).kind, b.communicator(c).kind);
  }
  const auto va = by_rank(a);
  const auto vb = by_rank(b);
  for (std::uint32_t r = 0; r < a.rank_count(); ++r) {
    ASSERT_EQ(va[r].ids.size(), vb[r].ids.size());
    EXPECT_EQ(va[r].deps, vb[r].deps) << "rank " << r;
    for (std::size_t i = 0; i < va[r].ids.size(); ++i) {
      const Node& x = a.node(va[r].ids[i]);
      const Node& y = b.node(vb[r].ids[i]);
      SCOPED_TRACE(::testing::Message() << "rank " << r << " node " << i);
      EXPECT_EQ(x.kind, y.kind);
      EXPECT_EQ(x.op, y.op);
      EXPECT_EQ(x.algorithm, y.algorithm);
      EXPECT_EQ(x.compute_kind, y.compute_kind);
      EXPECT_EQ(x.stream, y.stream);
      EXPECT_EQ(x.communicator, y.communicator);
      EXPECT_EQ(x.peer, y.peer);
      EXPECT_EQ(x.tag, y.tag);
      EXPECT_EQ(a.label(x.label), b.label(y.label));
      EXPECT_EQ(x.iteration, y.iteration);
      EXPECT_EQ(x.bytes, y.bytes);
      EXPECT_EQ(x.flops, y.flops);
      EXPECT_EQ(x.duration, y.duration);
      EXPECT_EQ(x.layer, y.layer);
      EXPECT_EQ(x.micro_batch, y.micro_batch);
      EXPECT_EQ(x.dtype, y.dtype);
    }
  }
}

TEST(ChakraRoundTrip, LoomWrittenTracesReadBackIdentically) {
  const Workload original = sample_workload();
  const auto dir = scratch_dir("roundtrip");
  const auto files = write_chakra(original, (dir / "sample").string());
  ASSERT_EQ(files.size(), 4u);
  const ChakraTrace back = read_chakra((dir / "sample").string());
  EXPECT_TRUE(back.warnings.empty()) << to_string(back.warnings.front());
  EXPECT_EQ(back.version, "0.0.4");
  expect_same(original, back.workload);
  // Writing what was read gives the same bytes.
  const auto again = write_chakra(back.workload, (dir / "again").string());
  for (std::size_t r = 0; r < files.size(); ++r) EXPECT_EQ(read_et_bytes(files[r]), read_et_bytes(again[r]));
}

TEST(ChakraRoundTrip, FixtureSurvivesWriteAndRead) {
  LOOM_REQUIRE_FIXTURE("chakra/tutorials_micro2024_MLP_ModelParallel_32npus");
  const ChakraTrace first = read_chakra(testing::fixture("chakra/tutorials_micro2024_MLP_ModelParallel_32npus/MLP_ModelParallel"));
  const auto dir = scratch_dir("fixture_roundtrip");
  write_chakra(first.workload, (dir / "mlp").string());
  expect_same(first.workload, read_chakra((dir / "mlp").string()).workload);
}

TEST(ChakraRoundTrip, GzipCompressedTracesAreDetected) {
  const Workload original = sample_workload();
  const auto dir = scratch_dir("gzip");
  const auto files = write_chakra(original, (dir / "plain").string());
  for (std::size_t r = 0; r < files.size(); ++r) {
    const std::string raw = read_et_bytes(files[r]);
    std::string compressed;
    {
      google::protobuf::io::StringOutputStream sink(&compressed);
      google::protobuf::io::GzipOutputStream::Options options;
      options.format = google::protobuf::io::GzipOutputStream::GZIP;
      google::protobuf::io::GzipOutputStream gzip(&sink, options);
      void* data = nullptr;
      int size = 0;
      std::size_t written = 0;
      while (written < raw.size() && gzip.Next(&data, &size)) {
        const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(size), raw.size() - written);
        std::copy_n(raw.data() + written, n, static_cast<char*>(data));
        written += n;
        if (n < static_cast<std::size_t>(size)) gzip.BackUp(size - static_cast<int>(n));
      }
      ASSERT_TRUE(gzip.Close());
    }
    ASSERT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);
    std::ofstream((dir / ("gz." + std::to_string(r) + ".et")).string(), std::ios::binary) << compressed;
  }
  expect_same(original, read_chakra((dir / "gz").string()).workload);
}

// Writes one rank file from a metadata message and nodes.
std::string write_trace(const std::string& name, const ChakraProtoMsg::GlobalMetadata& meta,
                        const std::vector<ChakraProtoMsg::Node>& nodes) {
  const auto dir = scratch_dir(name);
  std::string bytes;
  append_record(bytes, meta.SerializeAsString());
  for (const auto& n : nodes) append_record(bytes, n.SerializeAsString());
  const std::string file = (dir / "t.0.et").string();
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

ChakraProtoMsg::GlobalMetadata meta(const std::string& version) {
  ChakraProtoMsg::GlobalMetadata m;
  m.set_version(version);
  return m;
}

ChakraProtoMsg::Node comp(std::uint64_t id, std::vector<std::uint64_t> data_deps) {
  ChakraProtoMsg::Node n;
  n.set_id(id);
  n.set_type(ChakraProtoMsg::COMP_NODE);
  n.set_duration_micros(5);
  for (auto d : data_deps) n.add_data_deps(d);
  return n;
}

void expect_error(const std::string& file, const std::string& fragment) {
  try {
    read_chakra_files({file});
    FAIL() << "accepted a trace that should fail with: " << fragment;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ChakraErrors, UnsafeTracesFailWithTheNodeNamed) {
  expect_error(write_trace("old", meta("0.0.3"), {comp(0, {})}), "Chakra schema version 0.0.3 is not supported");
  expect_error(write_trace("cycle", meta("0.0.4"), {comp(0, {1}), comp(1, {0})}),
               "dependency cycle through node 0; a trace must be acyclic");
  expect_error(write_trace("dup", meta("0.0.4"), {comp(4, {}), comp(4, {})}), "node id 4 appears twice");
  auto coll = comp(9, {});
  coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
  *coll.add_attr() = [] {
    ChakraProtoMsg::AttributeProto a;
    a.set_name("comm_type");
    a.set_int64_val(42);
    return a;
  }();
  expect_error(write_trace("commtype", meta("0.0.4"), {coll}), "node 9: comm_type 42 is not a Chakra CollectiveCommType");
  auto send = comp(3, {});
  send.set_type(ChakraProtoMsg::COMM_SEND_NODE);
  expect_error(write_trace("send", meta("0.0.4"), {send}), "node 3: send node without a valid comm_dst");
}

TEST(ChakraErrors, TruncatedAndMissingFiles) {
  const std::string file = write_trace("trunc", meta("0.0.4"), {comp(0, {}), comp(1, {0})});
  std::string bytes = read_et_bytes(file);
  bytes.pop_back();
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  expect_error(file, "record 2 at byte");
  try {
    read_chakra("/nonexistent/loom/trace");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "no Chakra trace at '/nonexistent/loom/trace.0.et'; expected files <prefix>.<rank>.et");
  }
}

TEST(ChakraErrors, AMissingRankFileInsideThePrefixIsNamed) {
  const auto dir = scratch_dir("gap");
  ASSERT_EQ(write_chakra(sample_workload(), (dir / "sample").string()).size(), 4u);
  std::filesystem::remove(dir / "sample.1.et");
  try {
    read_chakra((dir / "sample").string());
    FAIL() << "loaded a trace without rank 1";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "Chakra trace '" + (dir / "sample").string() + "': rank 1's file '" +
                                         (dir / "sample.1.et").string() + "' is missing, but rank 3's exists");
  }
}

TEST(ChakraErrors, DanglingAndSelfDependenciesAreWarnedAndDropped) {
  auto n1 = comp(1, {0, 1, 77});
  const ChakraTrace t = read_chakra_files({write_trace("dangling", meta("0.0.4"), {comp(0, {}), n1})});
  ASSERT_EQ(t.workload.node_count(), 2u);
  EXPECT_EQ(t.workload.deps(1).size(), 1u);
  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_EQ(to_string(t.warnings[0]).substr(to_string(t.warnings[0]).find("t.0.et")),
            "t.0.et: node 1: depends on itself; dropped");
  EXPECT_NE(to_string(t.warnings[1]).find("node 1: data dependency on node 77, which is not in the trace; dropped"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::workload::chakra
