// Warnings collected while importing a workload file (Chakra traces, SimAI text): things that
// were odd but safe to continue past. Libraries never print; callers decide what to show.
//
// Real traces repeat the same oddity thousands of times, so warnings are grouped by category per
// file: the first kListedPerCategory occurrences are kept with their location (a node id or a
// line), and one summary line counts the rest.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::workload {

struct ImportWarning {
  std::string location;  // "trace.3.et: node 4485" or "workload.txt:1"
  std::string message;   // what was odd and what Loom did about it
};
std::string to_string(const ImportWarning& warning);  // "location: message"

class WarningLog {
 public:
  static constexpr std::size_t kListedPerCategory = 8;

  // Records one occurrence; `category` groups occurrences (e.g. "dangling ctrl dep") within `file`.
  void add(std::string_view file, std::string_view category, std::string location, std::string message);
  // The kept warnings, then one "<file>: N more '<category>' warnings" line per category that
  // overflowed. O(warnings).
  std::vector<ImportWarning> finish() const;
  std::size_t total() const { return total_; }

 private:
  struct Category {
    std::size_t count = 0;
  };
  std::vector<ImportWarning> kept_;
  std::map<std::pair<std::string, std::string>, Category, std::less<>> categories_;
  std::size_t total_ = 0;
};

}  // namespace loom::workload
