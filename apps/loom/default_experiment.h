// The built-in default experiment: the text of examples/default.yaml, compiled in.
#pragma once

namespace loom::app {
extern const char* const kDefaultExperimentName;
extern const char* const kDefaultExperiment;
}  // namespace loom::app
