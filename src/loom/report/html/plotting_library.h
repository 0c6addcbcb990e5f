// The plotting libraries an HTML report inlines: Vega and Vega-Lite's minified browser builds,
// compiled in from web/node_modules at CMake time (see CMakeLists.txt here).
#pragma once

#include <string_view>

namespace loom::report::html {

// False when the build found no web/node_modules (then the texts below are empty).
bool plotting_library_available();
std::string_view vega_js();
std::string_view vega_lite_js();
// "6.4.0"-style versions, for the report's footer.
std::string_view vega_version();
std::string_view vega_lite_version();

}  // namespace loom::report::html
