#include "loom/workload/import_warnings.h"

#include <fmt/format.h>

namespace loom::workload {

std::string to_string(const ImportWarning& warning) {
  return warning.location.empty() ? warning.message : fmt::format("{}: {}", warning.location, warning.message);
}

void WarningLog::add(std::string_view file, std::string_view category, std::string location, std::string message) {
  ++total_;
  Category& c = categories_[{std::string(file), std::string(category)}];
  if (c.count++ < kListedPerCategory) kept_.push_back({std::move(location), std::move(message)});
}

std::vector<ImportWarning> WarningLog::finish() const {
  std::vector<ImportWarning> out = kept_;
  for (const auto& [key, category] : categories_) {
    if (category.count > kListedPerCategory) {
      out.push_back({key.first, fmt::format("{} more '{}' warnings like the above", category.count - kListedPerCategory,
                                            key.second)});
    }
  }
  return out;
}

}  // namespace loom::workload
