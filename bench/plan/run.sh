#!/usr/bin/env bash
# bench/plan: the assignment solver against scipy (compare_scipy.py), then
# `tacio plan` at a million ranks per strategy (scale.py).
# Usage: bench/plan/run.sh [BUILD_DIR] [--lap-only]
set -euo pipefail
BUILD=${1:-build}
DIR=$(dirname "$0")
python3 "$DIR/compare_scipy.py" "$BUILD/bin/tacio-lapbench"
if [ "${2:-}" != "--lap-only" ]; then
    python3 "$DIR/scale.py" "$BUILD/bin/tacio"
fi
