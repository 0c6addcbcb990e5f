#!/usr/bin/env bash
# Rewrites tests/golden/ from the built `loom`: runs the golden test in update mode, which runs
# each example and stores its outputs normalised exactly as the test compares them.
# Review the diff of tests/golden/ before committing it.
set -euo pipefail

build_dir=${BUILD_DIR:-build}
LOOM_UPDATE_GOLDEN=1 "$build_dir/tests/apps/loom_golden_test"
git status --short tests/golden/
