# Thin wrapper around CMake. `make test` and `make demo` work on a fresh
# Debian 12 machine: they install what is missing first.
#   build/          the planning core and the tacio command (no MPI)
#   build-openmpi/  the MPI engine with Open MPI (the full MPI test matrix)
#   build-mpich/    the MPI engine with MPICH (a small share: it busy-polls)
BUILD ?= build

.PHONY: all deps build build-mpi test test-heavy check-all test-sanitize test-fuzz test-external \
	test-lab demo bench clean

all: build build-mpi

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACIO_MPI=OFF -DTACIO_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j 2

build-mpi: deps
	@cmake -S . -B build-openmpi -DTACIO_MPI=openmpi -DTACIO_WERROR=ON >/dev/null
	@cmake --build build-openmpi -j 2
	@cmake -S . -B build-mpich -DTACIO_MPI=mpich \
	    -DTACIO_TEST_RANKS="1;2" -DTACIO_PROPERTY_NP=2 -DTACIO_FAULTS_NP=2 -DTACIO_FUZZ_NP="1;2" \
	    -DTACIO_LARGE_TEST=OFF -DTACIO_WERROR=ON >/dev/null
	@cmake --build build-mpich -j 2

# What every change must pass, in minutes: the heavier suites are check-all's.
test: build build-mpi
	@cd $(BUILD) && ctest --output-on-failure -LE heavy
	@cd build-openmpi && ctest --output-on-failure -L mpi
	@cd build-mpich && ctest --output-on-failure -L mpi

# bench/smpi on stored runs, and the engine under SMPI (its driver built first).
test-heavy: build
	@cd $(BUILD) && ctest --output-on-failure -L heavy

# Everything CI runs: make test, then the heavier suites.
check-all: test test-heavy test-sanitize test-fuzz test-external test-lab

# The namespace lab, small (root, network namespaces and tc).
test-lab: build-mpi
	@tests/lab/smoke.sh $(CURDIR)

# AddressSanitizer + UBSan over the planning core and the Open MPI tests
# (CI runs it after `make test`).
test-sanitize: deps
	@cmake -S . -B build-asan -DTACIO_MPI=openmpi -DTACIO_SANITIZE=address,undefined \
	    -DTACIO_LARGE_TEST=OFF -DTACIO_TEST_RANKS="1;3" -DTACIO_FUZZ_NP=2 -DTACIO_WERROR=ON >/dev/null
	@cmake --build build-asan -j 2
	@cd build-asan && ctest --output-on-failure -LE heavy

# The parser harnesses (libFuzzer, clang): every seed input, then
# FUZZ_SECONDS of fuzzing per harness (CI runs it after test-sanitize;
# bench/fuzz/parsers is the long run).
FUZZ_SECONDS ?= 20
test-fuzz: deps
	@cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTACIO_MPI=mpich \
	    -DTACIO_SANITIZE=address,undefined -DTACIO_FUZZERS=ON \
	    -DFUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
	@cmake --build build-fuzz --target fuzzers -j 2
	@cd build-fuzz && ctest --output-on-failure -L parsers

# HDF5's and PnetCDF's own parallel test suites under the shim, built from
# Debian's source packages in build-external/ (CI runs it after test-fuzz).
EXTERNAL_STRATEGIES ?= romio,auto
test-external: build-mpi
	@tests/external/suites.sh build-openmpi $(CURDIR)/build-external $(EXTERNAL_STRATEGIES)

demo: build build-mpi
	@scripts/demo.sh $(BUILD)/bin/tacio build-openmpi

bench: build build-mpi
	@bench/plan/run.sh $(BUILD)
	@bench/io/run --quick

clean:
	rm -rf $(BUILD) build-openmpi build-mpich build-asan build-fuzz build-external
