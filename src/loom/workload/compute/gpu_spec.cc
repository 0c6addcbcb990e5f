#include "loom/workload/compute/gpu_spec.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload::compute {

double GpuSpec::peak_flops(DataType type) const {
  double tflops = 0;
  switch (type) {
    case DataType::kFp32: tflops = bf16_tflops / 2; break;
    case DataType::kBf16: tflops = bf16_tflops; break;
    case DataType::kFp16: tflops = fp16_tflops; break;
    case DataType::kFp8: tflops = fp8_tflops; break;
    case DataType::kUnknown: throw UserError("the compute model needs a data type (fp32, bf16, fp16 or fp8)");
  }
  if (tflops <= 0) throw UserError(fmt::format("GPU {} has no {} tensor cores", name, to_string(type)));
  return tflops * 1e12;
}

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = {
      {"A100", 312.0, 312.0, 0.0, 2039.0, 80.0},
      {"H100", 989.4, 989.4, 1978.9, 3350.0, 80.0},
      {"H200", 989.4, 989.4, 1978.9, 4800.0, 141.0},
      {"B200", 2250.0, 2250.0, 4500.0, 8000.0, 180.0},
      {"MI300X", 1307.4, 1307.4, 2614.9, 5300.0, 192.0},
  };
  return catalog;
}

const GpuSpec& find_gpu(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
  };
  std::string names;
  for (const GpuSpec& g : gpu_catalog()) {
    if (lower(g.name) == lower(name)) return g;
    names += names.empty() ? g.name : ", " + g.name;
  }
  throw UserError(fmt::format("unknown GPU '{}', expected one of {}", name, names));
}

}  // namespace loom::workload::compute
