// The roofline compute-time model, the GPU table and the kernel-time override.
#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/workload/compute/compute_model.h"

namespace loom::workload::compute {
namespace {

TEST(GpuCatalog, KnowsTheFiveGpusCaseInsensitively) {
  EXPECT_EQ(find_gpu("h100").name, "H100");
  EXPECT_DOUBLE_EQ(find_gpu("A100").peak_flops(DataType::kBf16), 312e12);
  EXPECT_DOUBLE_EQ(find_gpu("A100").peak_flops(DataType::kFp32), 156e12);
  EXPECT_DOUBLE_EQ(find_gpu("mi300x").peak_flops(DataType::kFp8), 2614.9e12);
  EXPECT_DOUBLE_EQ(find_gpu("H200").memory_bytes_per_s(), 4.8e12);
  EXPECT_DOUBLE_EQ(find_gpu("B200").peak_flops(DataType::kFp16), 2250e12);
  try {
    find_gpu("V100");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown GPU 'V100', expected one of A100, H100, H200, B200, MI300X");
  }
  try {
    find_gpu("A100").peak_flops(DataType::kFp8);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "GPU A100 has no fp8 tensor cores");
  }
}

TEST(Roofline, ComputeAndMemoryBoundTimes) {
  Params p;
  p.gpu = find_gpu("A100");
  // 312e12 * 0.75 = 234e12 FLOP/s: 234e9 FLOPs take exactly 1 ms.
  EXPECT_EQ(roofline_time(234'000'000'000ull, 0, ComputeKind::kGemm, DataType::kUnknown, p), Time::ms(1));
  // Attention at 55%: 171.6e9 FLOPs take 1 ms.
  EXPECT_EQ(roofline_time(171'600'000'000ull, 0, ComputeKind::kAttention, DataType::kBf16, p), Time::ms(1));
  // 2039e9 * 0.85 B/s: 1,733,150,000 bytes take 1 ms; the memory term wins over a tiny FLOP count.
  EXPECT_EQ(roofline_time(1000, 1'733'150'000ull, ComputeKind::kElementwise, DataType::kBf16, p), Time::ms(1));
  // fp32 runs at half the bf16 rate.
  EXPECT_EQ(roofline_time(117'000'000'000ull, 0, ComputeKind::kGemm, DataType::kFp32, p), Time::ms(1));
  p.kernel_overhead = Time::us(3);
  EXPECT_EQ(roofline_time(234'000'000'000ull, 0, ComputeKind::kGemm, DataType::kBf16, p), Time::us(1003));
}

TEST(Roofline, RejectsEfficienciesOutsideTheUnitInterval) {
  Params p;
  p.attention_efficiency = 1.5;
  try {
    validate(p);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "compute model: attention_efficiency is 1.5, expected a fraction in (0, 1]");
  }
}

Workload three_nodes() {
  Workload w(1);
  Node n;
  n.kind = NodeKind::kCompute;
  n.compute_kind = ComputeKind::kGemm;
  n.label = w.intern_label("gemm");
  n.flops = 234'000'000'000ull;
  w.add_node(n, {});
  n.label = w.intern_label("measured");
  n.duration = Time::us(5);
  w.add_node(n, {});
  n.label = w.intern_label("from_table");
  n.duration = Time::zero();
  w.add_node(n, {});
  return w;
}

TEST(AssignDurations, ModelsTablesAndKeepsMeasuredTimes) {
  Workload w = three_nodes();
  Params p;
  p.gpu = find_gpu("A100");
  const KernelTable table = KernelTable::parse("label,time\nfrom_table,42us\n", "t.csv");
  const PassStats stats = assign_durations(w, p, &table);
  EXPECT_EQ(stats.modelled, 1u);
  EXPECT_EQ(stats.from_table, 1u);
  EXPECT_EQ(stats.kept, 1u);
  EXPECT_EQ(w.node(0).duration, Time::ms(1));
  EXPECT_EQ(w.node(1).duration, Time::us(5));
  EXPECT_EQ(w.node(2).duration, Time::us(42));
  p.overwrite = true;
  assign_durations(w, p);
  EXPECT_EQ(w.node(1).duration, Time::ms(1));
}

TEST(KernelTable, MalformedTablesNameTheLine) {
  auto expect_error = [](std::string_view csv, const char* message) {
    try {
      KernelTable::parse(csv, "k.csv");
      FAIL() << csv;
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), message);
    }
  };
  expect_error("name,us\n", "k.csv:1: header is 'name,us', expected 'label,time'");
  expect_error("label,time\nqkv\n", "k.csv:2: expected 'label,time' (e.g. 'layer.fwd.qkv,812us'), got 'qkv'");
  expect_error("label,time\nqkv,1us\nqkv,2us\n", "k.csv:3: label 'qkv' is listed twice");
  expect_error("", "k.csv: empty kernel table, expected the header 'label,time'");
  EXPECT_THROW(KernelTable::parse("label,time\nqkv,12\n", "k.csv"), UserError);  // a time needs its unit
}

}  // namespace
}  // namespace loom::workload::compute
