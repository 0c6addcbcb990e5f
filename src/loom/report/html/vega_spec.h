// Vega-Lite specifications for the kinds of chart a report draws, each with its data inline
// (`values`: an array of flat JSON objects). Pure functions of their inputs: the same data
// gives the same bytes, so reports are deterministic.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "loom/report/html/downsample.h"

namespace loom::report::html {

enum class AxisScale { kLinear, kLog, kSymlog };

// log when every value (NaNs aside) is positive, symlog when some are zero or negative.
AxisScale scale_for(std::span<const double> values);

// A field of `values` on an axis or legend: its name, Vega-Lite type and axis title.
struct Field {
  Field(std::string field = "", std::string vega_type = "quantitative", std::string axis_title = "",
        AxisScale axis_scale = AxisScale::kLinear, std::string label_format = "")
      : name(std::move(field)), type(std::move(vega_type)), title(std::move(axis_title)), scale(axis_scale),
        format(std::move(label_format)) {}

  std::string name;  // empty: no field (e.g. no colour)
  std::string type;  // quantitative | nominal | ordinal
  std::string title;
  AxisScale scale;
  std::string format;  // d3-format of the axis labels ("~s": 64M), or empty for the default
};

// A step line of an empirical CDF: x the value, y the fraction of values at or below it.
nlohmann::json cdf_chart(std::span<const CdfPoint> points, std::string_view value_title, AxisScale scale);
// Bars of y per x, stacked by `color` (in the order the values list them).
nlohmann::json stacked_bars(nlohmann::json values, const Field& x, const Field& y, const Field& color);
// Lines with points of y against x, one per `color` value (color.name empty: one line).
nlohmann::json line_chart(nlohmann::json values, const Field& x, const Field& y, const Field& color);
// As line_chart, with a vertical rule from `low` to `high` at each point (a min-max range).
nlohmann::json ranged_line_chart(nlohmann::json values, const Field& x, const Field& y, const Field& color,
                                 std::string_view low, std::string_view high);
// Areas of y against x stacked by color (a state breakdown over time).
nlohmann::json stacked_area(nlohmann::json values, const Field& x, const Field& y, const Field& color);
// Rectangles from x to x2 on each y row, coloured by `color` on a [0, 1] scale.
nlohmann::json heatmap(nlohmann::json values, const Field& x, std::string_view x2, const Field& y, const Field& color);
// Horizontal bars of x per y row, in the given order.
nlohmann::json bar_rows(nlohmann::json values, const Field& x, const Field& y);

}  // namespace loom::report::html
