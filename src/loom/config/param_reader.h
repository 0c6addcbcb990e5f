// Reads a parameter struct described by a ParamVisitor (core/param_visitor.h) from one map of
// the experiment file: each key the description names is read with its unit and checked
// against its declared range, so an out-of-range value is an error at file:line:col naming the
// key and the allowed range. Groups are nested maps, record lists lists of maps. Keys the
// description does not name are left to the caller's Reader::finish().
#pragma once

#include <vector>

#include "loom/config/reader.h"
#include "loom/core/param_visitor.h"

namespace loom::config {

class ParamReader final : public ParamVisitor {
 public:
  explicit ParamReader(Reader section) { readers_.push_back(section); }

  void count(std::string_view key, std::uint32_t& value, std::uint32_t min, std::uint32_t max,
             std::string_view doc) override;
  void size(std::string_view key, Bytes& value, Bytes min, Bytes max, std::string_view doc) override;
  void bandwidth(std::string_view key, Bandwidth& value, bool allow_zero, std::string_view doc) override;
  void time(std::string_view key, Time& value, Time min, Time max, std::string_view doc) override;
  void derived_time(std::string_view key, Time& value, Time min, Time max, std::string_view zero_word,
                    std::string_view doc) override;
  void real(std::string_view key, double& value, RealRange range, std::string_view doc) override;
  void counts(std::string_view key, std::vector<std::uint32_t>& values, std::uint32_t min, std::uint32_t max,
              std::size_t max_items, std::string_view doc) override;
  void flag(std::string_view key, bool& value, std::string_view doc) override;
  void choice(std::string_view key, std::string& value, std::span<const std::string_view> choices,
              std::string_view doc) override;
  void group(std::string_view key, std::string_view doc, const std::function<void()>& body) override;
  void records(std::string_view key, std::string_view doc, RecordList& list) override;

 private:
  Reader& current() { return readers_.back(); }

  std::vector<Reader> readers_;  // the section, then the group or list item being read
};

}  // namespace loom::config
