// The attributes of a Chakra node that simulators read, decoded from the AttributeProto list.
// Integers are accepted from any integer, fixed or bool encoding (real traces mix int32 and
// int64); an attribute with a known name but the wrong kind of value is reported through
// `odd` and otherwise ignored. Unknown names are ignored (real traces carry dozens).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/workload/chakra/et_def.pb.h"

namespace loom::workload::chakra {

struct NodeAttributes {
  std::optional<bool> is_cpu_op;
  std::optional<std::int64_t> comm_type;
  std::optional<std::int64_t> comm_size;
  std::optional<std::int64_t> comm_src;
  std::optional<std::int64_t> comm_dst;
  std::optional<std::int64_t> comm_tag;
  std::optional<std::int64_t> num_ops;
  std::optional<std::int64_t> tensor_size;
  std::optional<std::string> pg_name;
  // Loom's own attributes (written by chakra_writer so that traces round-trip exactly).
  std::optional<std::int64_t> loom_duration_ps;
  std::optional<std::int64_t> loom_stream;
  std::optional<std::int64_t> loom_iteration;
  std::optional<std::int64_t> loom_layer;
  std::optional<std::int64_t> loom_micro_batch;
  std::optional<std::string> loom_dtype;
  std::optional<std::string> loom_compute_kind;
  std::optional<std::string> loom_algorithm;
  std::vector<std::string> odd;  // "attribute 'comm_size' holds a string, expected an integer"
};

NodeAttributes decode_attributes(const google::protobuf::RepeatedPtrField<ChakraProtoMsg::AttributeProto>& attrs);

// Attribute builders for the writer.
ChakraProtoMsg::AttributeProto int_attribute(const std::string& name, std::int64_t value);
ChakraProtoMsg::AttributeProto int32_attribute(const std::string& name, std::int32_t value);
ChakraProtoMsg::AttributeProto bool_attribute(const std::string& name, bool value);
ChakraProtoMsg::AttributeProto string_attribute(const std::string& name, const std::string& value);

}  // namespace loom::workload::chakra
