// MSCCL XML algorithms (msccl-tools output, as consumed by MSCCL and ASTRA-sim).
//
// Step types: s (send srcbuf), r (receive into dstbuf), rcs (receive, copy to dstbuf, send it
// on), rrs (receive, reduce with srcbuf, send the sum on), rrc (receive, reduce with srcbuf,
// store to dstbuf), rrcs (rrc, then send dstbuf on), cpy (dstbuf := srcbuf), re (dstbuf +=
// srcbuf), nop. Sends go to the thread block's `send` peer, receives come from its `recv` peer,
// on the thread block's `chan`.
#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "loom/collective/msccl/plan_reader.h"
#include "loom/core/error.h"

namespace loom::collective::msccl {

namespace {

struct StepType {
  std::string_view name;
  bool receives, sends, reduce, stores, uses_src;
};

constexpr std::array kStepTypes{
    StepType{"s", false, true, false, false, true},   StepType{"r", true, false, false, true, false},
    StepType{"rcs", true, true, false, true, false},  StepType{"rrs", true, true, true, false, true},
    StepType{"rrc", true, false, true, true, true},   StepType{"rrcs", true, true, true, true, true},
    StepType{"cpy", false, false, false, true, true}, StepType{"re", false, false, true, true, true},
    StepType{"nop", false, false, false, false, false},
};

class XmlContext {
 public:
  XmlContext(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  std::string where(const pugi::xml_node& node) const {
    const std::ptrdiff_t offset = node.offset_debug();
    const std::size_t line =
        offset < 0 ? 0
                   : 1 + static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + std::min<std::ptrdiff_t>(
                                                                                               offset, std::ssize(text_)),
                                                             '\n'));
    return fmt::format("{}:{}: <{}>", source_, line, node.name());
  }
  [[noreturn]] void fail(const pugi::xml_node& node, std::string_view message) const {
    throw UserError(fmt::format("{}: {}", where(node), message));
  }
  std::string text(const pugi::xml_node& node, const char* name) const {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a) fail(node, fmt::format("missing attribute '{}'", name));
    return a.value();
  }
  // An integer attribute >= -1 (-1 means "none" where the format allows it).
  long long integer(const pugi::xml_node& node, const char* name, long long minimum) const {
    const std::string value = text(node, name);
    long long parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size() || parsed < minimum || parsed > 0xffffffffLL) {
      fail(node, fmt::format("attribute {}=\"{}\" is not an integer >= {}", name, value, minimum));
    }
    return parsed;
  }
  std::uint32_t u32(const pugi::xml_node& node, const char* name) const {
    return static_cast<std::uint32_t>(integer(node, name, 0));
  }
  std::optional<std::uint32_t> peer(const pugi::xml_node& node, const char* name) const {
    const long long value = integer(node, name, -1);
    return value < 0 ? std::nullopt : std::optional<std::uint32_t>(static_cast<std::uint32_t>(value));
  }
  BufferKind buffer(const pugi::xml_node& node, const char* name) const {
    const std::string value = text(node, name);
    if (value == "i") return BufferKind::kInput;
    if (value == "o") return BufferKind::kOutput;
    if (value == "s") return BufferKind::kScratch;
    fail(node, fmt::format("attribute {}=\"{}\" is not a buffer; expected i, o or s", name, value));
  }

 private:
  std::string_view text_;
  std::string_view source_;
};

const StepType& step_type(const XmlContext& xml, const pugi::xml_node& node) {
  const std::string name = xml.text(node, "type");
  for (const StepType& t : kStepTypes) {
    if (t.name == name) return t;
  }
  xml.fail(node, fmt::format("unknown step type '{}'; expected s, r, rcs, rrs, rrc, rrcs, cpy, re or nop", name));
}

Op read_step(const XmlContext& xml, const pugi::xml_node& node, const ThreadBlock& tb, std::uint32_t rank) {
  const StepType& type = step_type(xml, node);
  Op op;
  op.name = std::string(type.name);
  op.kind = OpKind::kXmlStep;
  op.where = xml.where(node);
  op.receives = type.receives;
  op.sends = type.sends;
  op.reduce = type.reduce;
  op.stores = type.stores;
  if (type.name != "nop") {
    const std::uint32_t count = xml.u32(node, "cnt");
    if (type.uses_src) op.srcs.push_back({rank, xml.buffer(node, "srcbuf"), xml.u32(node, "srcoff"), count});
    if (type.stores) op.dsts.push_back({rank, xml.buffer(node, "dstbuf"), xml.u32(node, "dstoff"), count});
  }
  if (type.sends && !tb.send_peer) xml.fail(node, fmt::format("a '{}' step sends, but its <tb> has send=\"-1\"", op.name));
  if (type.receives && !tb.recv_peer) {
    xml.fail(node, fmt::format("a '{}' step receives, but its <tb> has recv=\"-1\"", op.name));
  }
  if (node.attribute("depid")) {
    if (const std::optional<std::uint32_t> tb_id = xml.peer(node, "depid")) {
      op.depends_on_tb = tb_id;
      op.depends_on_step = xml.u32(node, "deps");
    }
  }
  op.has_dependents = node.attribute("hasdep") && xml.integer(node, "hasdep", 0) != 0;
  return op;
}

void check_dependencies(const XmlContext& xml, const pugi::xml_node& gpu_node, const Rank& rank) {
  auto tb_node = gpu_node.children("tb").begin();
  for (const ThreadBlock& tb : rank.thread_blocks) {
    auto step_node = tb_node->children("step").begin();
    for (const Op& op : tb.ops) {
      if (op.depends_on_tb) {
        const auto target = std::find_if(rank.thread_blocks.begin(), rank.thread_blocks.end(),
                                         [&](const ThreadBlock& t) { return t.id == *op.depends_on_tb; });
        if (target == rank.thread_blocks.end()) {
          xml.fail(*step_node, fmt::format("depid=\"{}\" names no <tb> of gpu {}", *op.depends_on_tb, rank.id));
        }
        if (op.depends_on_step >= target->ops.size()) {
          xml.fail(*step_node, fmt::format("deps=\"{}\" names no step of tb {} of gpu {} (it has {} steps)",
                                           op.depends_on_step, target->id, rank.id, target->ops.size()));
        }
        if (!target->ops[op.depends_on_step].has_dependents) {
          xml.fail(*step_node, fmt::format("it depends on step {} of tb {}, whose hasdep is 0; expected hasdep=\"1\" "
                                           "on every step another step depends on",
                                           op.depends_on_step, target->id));
        }
      }
      ++step_node;
    }
    ++tb_node;
  }
}

}  // namespace

Plan parse_msccl_xml(std::string_view text, std::string_view source) {
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(text.data(), text.size());
  const XmlContext xml(text, source);
  if (!parsed) {
    const auto line = 1 + std::count(text.begin(), text.begin() + std::min<std::ptrdiff_t>(parsed.offset, std::ssize(text)), '\n');
    throw UserError(fmt::format("{}:{}: malformed XML: {}", source, line, parsed.description()));
  }
  const pugi::xml_node algo = document.child("algo");
  if (!algo) throw UserError(fmt::format("{}: no <algo> element; expected an MSCCL XML algorithm", source));
  Plan plan;
  plan.format = PlanFormat::kMscclXml;
  plan.source = std::string(source);
  plan.name = algo.attribute("name").value();
  plan.collective = xml.text(algo, "coll");
  plan.protocol = parse_plan_protocol(algo.attribute("proto") ? algo.attribute("proto").value() : "Simple",
                                      xml.where(algo) + ": proto");
  plan.inplace = algo.attribute("inplace") && xml.integer(algo, "inplace", 0) != 0;
  const std::uint32_t ngpus = xml.u32(algo, "ngpus");
  for (const pugi::xml_node gpu_node : algo.children("gpu")) {
    Rank rank;
    rank.id = xml.u32(gpu_node, "id");
    rank.input_chunks = xml.u32(gpu_node, "i_chunks");
    rank.output_chunks = xml.u32(gpu_node, "o_chunks");
    rank.scratch_chunks = xml.u32(gpu_node, "s_chunks");
    for (const pugi::xml_node tb_node : gpu_node.children("tb")) {
      ThreadBlock tb;
      tb.id = xml.u32(tb_node, "id");
      tb.send_peer = xml.peer(tb_node, "send");
      tb.recv_peer = xml.peer(tb_node, "recv");
      tb.channel = xml.u32(tb_node, "chan");
      tb.where = xml.where(tb_node);
      for (const pugi::xml_node step_node : tb_node.children("step")) {
        const std::uint32_t s = xml.u32(step_node, "s");
        if (s != tb.ops.size()) xml.fail(step_node, fmt::format("step s=\"{}\" is out of order; expected s=\"{}\"", s, tb.ops.size()));
        tb.ops.push_back(read_step(xml, step_node, tb, rank.id));
      }
      rank.thread_blocks.push_back(std::move(tb));
    }
    check_dependencies(xml, gpu_node, rank);
    plan.ranks.push_back(std::move(rank));
  }
  if (plan.ranks.size() != ngpus) {
    xml.fail(algo, fmt::format("ngpus=\"{}\" but the algorithm has {} <gpu> elements", ngpus, plan.ranks.size()));
  }
  validate_plan(plan);
  return plan;
}

}  // namespace loom::collective::msccl
