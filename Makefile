# Loom's entry points. Each target first installs missing Debian packages, then builds.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
LOOM := $(BUILD_DIR)/apps/loom/loom

.PHONY: all deps configure build run test golden bench scenarios clean

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

clean:
	@rm -rf $(BUILD_DIR) results
