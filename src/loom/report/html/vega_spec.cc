#include "loom/report/html/vega_spec.h"

#include <algorithm>
#include <cmath>

namespace loom::report::html {

namespace {
using nlohmann::json;

constexpr int kWidth = 760;
constexpr int kHeight = 280;

json scale_json(AxisScale scale) {
  switch (scale) {
    case AxisScale::kLog: return {{"type", "log"}};
    case AxisScale::kSymlog: return {{"type", "symlog"}};
    case AxisScale::kLinear: break;
  }
  return json::object();
}

json encode(const Field& f) {
  json e = {{"field", f.name}, {"type", f.type}, {"title", f.title.empty() ? f.name : f.title}};
  if (f.type == "quantitative") e["scale"] = scale_json(f.scale);
  if (!f.format.empty()) e["axis"] = {{"format", f.format}};
  return e;
}

json tooltip(std::initializer_list<const Field*> fields) {
  json t = json::array();
  for (const Field* f : fields) {
    if (!f->name.empty()) t.push_back({{"field", f->name}, {"type", f->type}, {"title", f->title.empty() ? f->name : f->title}});
  }
  return t;
}

json base(json values) {
  return {{"width", kWidth}, {"height", kHeight}, {"data", {{"values", std::move(values)}}}};
}
}  // namespace

AxisScale scale_for(std::span<const double> values) {
  const bool positive = std::all_of(values.begin(), values.end(), [](double v) { return std::isnan(v) || v > 0; });
  return positive ? AxisScale::kLog : AxisScale::kSymlog;
}

json cdf_chart(std::span<const CdfPoint> points, std::string_view value_title, AxisScale scale) {
  json values = json::array();
  for (const CdfPoint& p : points) values.push_back({{"value", p.value}, {"fraction", p.fraction}});
  const Field x{"value", "quantitative", std::string(value_title), scale};
  const Field y{"fraction", "quantitative", "fraction at or below"};
  json spec = base(std::move(values));
  spec["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"point", points.size() <= 60}};
  spec["encoding"] = {{"x", encode(x)}, {"y", encode(y)}, {"tooltip", tooltip({&x, &y})}};
  spec["encoding"]["y"]["scale"] = {{"domain", {0, 1}}};
  return spec;
}

json stacked_bars(json values, const Field& x, const Field& y, const Field& color) {
  json spec = base(std::move(values));
  spec["mark"] = {{"type", "bar"}};
  json color_encoding = encode(color);
  color_encoding["sort"] = nullptr;  // legend in data order
  spec["encoding"] = {{"x", encode(x)}, {"y", encode(y)}, {"color", color_encoding},
                      {"order", {{"field", "order"}, {"type", "quantitative"}}},
                      {"tooltip", tooltip({&x, &color, &y})}};
  spec["encoding"]["y"]["stack"] = "zero";
  return spec;
}

json line_chart(json values, const Field& x, const Field& y, const Field& color) {
  json spec = base(std::move(values));
  spec["mark"] = {{"type", "line"}, {"point", true}};
  spec["encoding"] = {{"x", encode(x)}, {"y", encode(y)}, {"tooltip", tooltip({&x, &y, &color})}};
  if (!color.name.empty()) {
    spec["encoding"]["color"] = encode(color);
    spec["encoding"]["color"]["legend"] = {{"labelLimit", 400}};  // "a=1, b=x" labels run long
  }
  return spec;
}

json ranged_line_chart(json values, const Field& x, const Field& y, const Field& color, std::string_view low,
                       std::string_view high) {
  json line = line_chart(json::array(), x, y, color);
  json rule = {{"mark", "rule"},
               {"encoding",
                {{"x", encode(x)},
                 {"y", {{"field", low}, {"type", "quantitative"}, {"scale", scale_json(y.scale)}}},
                 {"y2", {{"field", high}}}}}};
  if (!color.name.empty()) rule["encoding"]["color"] = encode(color);
  json spec = base(std::move(values));
  spec["layer"] = {{{"mark", line["mark"]}, {"encoding", line["encoding"]}}, rule};
  return spec;
}

json stacked_area(json values, const Field& x, const Field& y, const Field& color) {
  json spec = base(std::move(values));
  spec["mark"] = {{"type", "area"}};
  json color_encoding = encode(color);
  color_encoding["sort"] = nullptr;
  spec["encoding"] = {{"x", encode(x)}, {"y", encode(y)}, {"color", color_encoding},
                      {"order", {{"field", "order"}, {"type", "quantitative"}}},
                      {"tooltip", tooltip({&x, &color, &y})}};
  spec["encoding"]["y"]["stack"] = "zero";
  return spec;
}

json heatmap(json values, const Field& x, std::string_view x2, const Field& y, const Field& color) {
  json spec = base(std::move(values));
  spec["mark"] = {{"type", "rect"}};
  json color_encoding = encode(color);
  color_encoding["scale"] = {{"domain", {0, 1}}, {"scheme", "inferno"}};
  json y_encoding = encode(y);
  y_encoding["sort"] = nullptr;
  spec["encoding"] = {{"x", encode(x)}, {"x2", {{"field", x2}}}, {"y", y_encoding}, {"color", color_encoding},
                      {"tooltip", tooltip({&y, &x, &color})}};
  return spec;
}

json bar_rows(json values, const Field& x, const Field& y) {
  json spec = base(std::move(values));
  spec.erase("height");
  spec["mark"] = {{"type", "bar"}};
  json y_encoding = encode(y);
  y_encoding["sort"] = nullptr;
  spec["encoding"] = {{"x", encode(x)}, {"y", y_encoding}, {"tooltip", tooltip({&y, &x})}};
  return spec;
}

}  // namespace loom::report::html
