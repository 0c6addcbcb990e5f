#include "loom/workload/chakra/chakra_attributes.h"

#include <string_view>

#include <fmt/format.h>

namespace loom::workload::chakra {
namespace {

using ChakraProtoMsg::AttributeProto;

std::optional<std::int64_t> as_integer(const AttributeProto& a) {
  switch (a.value_case()) {
    case AttributeProto::kInt32Val: return a.int32_val();
    case AttributeProto::kInt64Val: return a.int64_val();
    case AttributeProto::kUint32Val: return a.uint32_val();
    case AttributeProto::kUint64Val: return static_cast<std::int64_t>(a.uint64_val());
    case AttributeProto::kSint32Val: return a.sint32_val();
    case AttributeProto::kSint64Val: return a.sint64_val();
    case AttributeProto::kFixed32Val: return a.fixed32_val();
    case AttributeProto::kFixed64Val: return static_cast<std::int64_t>(a.fixed64_val());
    case AttributeProto::kSfixed32Val: return a.sfixed32_val();
    case AttributeProto::kSfixed64Val: return a.sfixed64_val();
    case AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
    default: return std::nullopt;
  }
}

struct IntegerSlot {
  std::string_view name;
  std::optional<std::int64_t> NodeAttributes::*slot;
};
constexpr IntegerSlot kIntegerSlots[] = {
    {"comm_type", &NodeAttributes::comm_type},
    {"comm_size", &NodeAttributes::comm_size},
    {"comm_src", &NodeAttributes::comm_src},
    {"comm_dst", &NodeAttributes::comm_dst},
    {"comm_tag", &NodeAttributes::comm_tag},
    {"num_ops", &NodeAttributes::num_ops},
    {"tensor_size", &NodeAttributes::tensor_size},
    {"loom_duration_ps", &NodeAttributes::loom_duration_ps},
    {"loom_stream", &NodeAttributes::loom_stream},
    {"loom_iteration", &NodeAttributes::loom_iteration},
    {"loom_layer", &NodeAttributes::loom_layer},
    {"loom_micro_batch", &NodeAttributes::loom_micro_batch},
};

struct StringSlot {
  std::string_view name;
  std::optional<std::string> NodeAttributes::*slot;
};
constexpr StringSlot kStringSlots[] = {
    {"pg_name", &NodeAttributes::pg_name},
    {"loom_dtype", &NodeAttributes::loom_dtype},
    {"loom_compute_kind", &NodeAttributes::loom_compute_kind},
    {"loom_algorithm", &NodeAttributes::loom_algorithm},
};

}  // namespace

NodeAttributes decode_attributes(const google::protobuf::RepeatedPtrField<AttributeProto>& attrs) {
  NodeAttributes out;
  for (const AttributeProto& a : attrs) {
    const std::string& name = a.name();
    if (name == "is_cpu_op") {
      if (a.value_case() == AttributeProto::kBoolVal) {
        out.is_cpu_op = a.bool_val();
      } else if (const auto v = as_integer(a)) {
        out.is_cpu_op = *v != 0;
      } else {
        out.odd.push_back("attribute 'is_cpu_op' is not a bool; ignored");
      }
      continue;
    }
    for (const IntegerSlot& s : kIntegerSlots) {
      if (name != s.name) continue;
      if (const auto v = as_integer(a)) {
        out.*s.slot = *v;
      } else {
        out.odd.push_back(fmt::format("attribute '{}' does not hold an integer; ignored", name));
      }
    }
    for (const StringSlot& s : kStringSlots) {
      if (name != s.name) continue;
      if (a.value_case() == AttributeProto::kStringVal) {
        out.*s.slot = a.string_val();
      } else if (const auto v = as_integer(a)) {
        out.*s.slot = std::to_string(*v);  // pg_name written as a number
      } else {
        out.odd.push_back(fmt::format("attribute '{}' does not hold a string; ignored", name));
      }
    }
  }
  return out;
}

AttributeProto int_attribute(const std::string& name, std::int64_t value) {
  AttributeProto a;
  a.set_name(name);
  a.set_int64_val(value);
  return a;
}

AttributeProto int32_attribute(const std::string& name, std::int32_t value) {
  AttributeProto a;
  a.set_name(name);
  a.set_int32_val(value);
  return a;
}

AttributeProto bool_attribute(const std::string& name, bool value) {
  AttributeProto a;
  a.set_name(name);
  a.set_bool_val(value);
  return a;
}

AttributeProto string_attribute(const std::string& name, const std::string& value) {
  AttributeProto a;
  a.set_name(name);
  a.set_string_val(value);
  return a;
}

}  // namespace loom::workload::chakra
