#!/usr/bin/env bash
# bench/plan: the assignment solver against scipy (see compare_scipy.py).
# Usage: bench/plan/run.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
exec python3 "$(dirname "$0")/compare_scipy.py" "$BUILD/bin/tacio-lapbench"
