# Loom's entry points. Each target first installs missing Debian packages, then builds.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
LOOM := $(BUILD_DIR)/apps/loom/loom

.PHONY: all deps configure build run test golden bench scenarios fuzz clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_ARGS) > /dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Runs the built-in default experiment and prints its summary.
run: build
	@$(LOOM) run --out results/default

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# Rewrites tests/golden/ (the examples' expected outputs) from the current build.
golden: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target loom_golden_test
	@BUILD_DIR=$(BUILD_DIR) ./scripts/update-golden.sh

bench: build
	@$(BUILD_DIR)/bench/loom_bench

# Whole-experiment speed targets (bench/scenarios/*.yaml): minutes, not seconds.
scenarios: build
	@LOOM=$(LOOM) bench/run_scenarios.sh

# Longer fuzzing than make test: every numeric key at 0, -1, 2^31, 2^64 and 1e30 under memory
# and time limits, and the byte-mutation suites with LOOM_FUZZ_TRIALS mutations each.
fuzz: build
	@scripts/fuzz-keys.sh $(LOOM) full
	@LOOM_FUZZ_TRIALS=$${LOOM_FUZZ_TRIALS:-2000} ctest --test-dir $(BUILD_DIR) -R Fuzz --output-on-failure -j $(JOBS)

clean:
	@rm -rf $(BUILD_DIR) results
