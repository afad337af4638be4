# Thin wrapper around CMake. `make test` and `make demo` work on a fresh
# Debian 12 machine: they install what is missing first.
BUILD ?= build

.PHONY: all deps build test demo bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j 2

test: build
	@cd $(BUILD) && ctest --output-on-failure

demo: build
	@scripts/demo.sh $(BUILD)/bin/tacio

bench: build
	@bench/plan/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
