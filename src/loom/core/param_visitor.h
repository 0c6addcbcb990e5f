// Model parameters declared once, as data. A parameter struct describes itself through a
// ParamVisitor: each field as (key, value by reference, range, one-line doc), in a fixed order,
// with nested maps as groups and lists of records as record lists. One description then serves
// every use: reading the experiment file with range checks, the `loom list` catalogue, the
// tests that compare the two.
//
// A reading visitor replaces a value when its source has one and leaves the default otherwise,
// and rejects a value outside the declared range; a recording visitor only looks.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom {

// A closed or half-open interval of real numbers, printed as "[0, 1]", "(0, 1]" or "[0, inf)".
struct RealRange {
  double min = 0;
  double max = 0;
  bool min_open = false;
  bool max_open = false;
  bool contains(double v) const {
    return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max);
  }
  std::string to_string() const;
};

class ParamVisitor;

// A list of records of one shape (e.g. ECN thresholds per link speed). The visitor resizes it
// and visits each element; visit_element on index size() describes a default element.
class RecordList {
 public:
  virtual std::size_t size() const = 0;
  virtual void resize(std::size_t n) = 0;
  virtual void visit_element(std::size_t index, ParamVisitor& visitor) = 0;
  // A fresh default element, visited (for catalogues); leaves the list unchanged.
  virtual void visit_default(ParamVisitor& visitor) = 0;

 protected:
  ~RecordList() = default;
};

class ParamVisitor {
 public:
  virtual ~ParamVisitor() = default;
  // Whole numbers in [min, max].
  virtual void count(std::string_view key, std::uint32_t& value, std::uint32_t min, std::uint32_t max,
                     std::string_view doc) = 0;
  // Byte sizes ("4096B", "32MiB") in [min, max].
  virtual void size(std::string_view key, Bytes& value, Bytes min, Bytes max, std::string_view doc) = 0;
  // Bandwidths ("400Gbps"); zero only where `allow_zero` (it then means "none" or "derived").
  virtual void bandwidth(std::string_view key, Bandwidth& value, bool allow_zero, std::string_view doc) = 0;
  // Durations ("1.5us") in [min, max].
  virtual void time(std::string_view key, Time& value, Time min, Time max, std::string_view doc) = 0;
  // Durations in [min, max] where zero, written `zero_word`, stands for a time derived from
  // elsewhere (e.g. "from line rate"): files may give the word or a duration, and zero is
  // shown as the word.
  virtual void derived_time(std::string_view key, Time& value, Time min, Time max, std::string_view zero_word,
                            std::string_view doc) = 0;
  virtual void real(std::string_view key, double& value, RealRange range, std::string_view doc) = 0;
  // A list of at most `max_items` whole numbers, each in [min, max].
  virtual void counts(std::string_view key, std::vector<std::uint32_t>& values, std::uint32_t min, std::uint32_t max,
                      std::size_t max_items, std::string_view doc) = 0;
  virtual void flag(std::string_view key, bool& value, std::string_view doc) = 0;
  // One of `choices`.
  virtual void choice(std::string_view key, std::string& value, std::span<const std::string_view> choices,
                      std::string_view doc) = 0;
  // A nested map of parameters: `body` visits them.
  virtual void group(std::string_view key, std::string_view doc, const std::function<void()>& body) = 0;
  virtual void records(std::string_view key, std::string_view doc, RecordList& list) = 0;
};

// A RecordList over a std::vector<T>, with `visit(T&, ParamVisitor&)` describing an element.
template <class Vector, class Visit>
class VectorRecords final : public RecordList {
 public:
  VectorRecords(Vector& items, Visit visit) : items_(items), visit_(visit) {}
  std::size_t size() const override { return items_.size(); }
  void resize(std::size_t n) override { items_.resize(n); }
  void visit_element(std::size_t index, ParamVisitor& visitor) override { visit_(items_[index], visitor); }
  void visit_default(ParamVisitor& visitor) override {
    typename Vector::value_type item{};
    visit_(item, visitor);
  }

 private:
  Vector& items_;
  Visit visit_;
};

// One parameter as a catalogue shows it.
struct ParamEntry {
  std::string key;    // dotted path below the visited struct, e.g. "dcqcn.g"; list fields "ecn_table[].kmin"
  std::string unit;   // count, size, bandwidth, time, real, counts, flag, choice, group, list
  std::string value;  // the default, in the form a file takes ("4096B", "0.95", "dcqcn")
  std::string range;  // "[1, 1024]", "(0, 1]", "one of a, b", "" where any value goes
  std::string doc;
};

// Records every parameter of a visit, groups and lists included, in visit order.
class ParamRecorder final : public ParamVisitor {
 public:
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

  const std::vector<ParamEntry>& entries() const { return entries_; }

 private:
  void add(std::string_view key, std::string unit, std::string value, std::string range, std::string_view doc);

  std::string prefix_;
  std::vector<ParamEntry> entries_;
};

// Text of a real number without needless digits: "0.95", "0.00390625".
std::string format_real(double value);

}  // namespace loom
