# Thin wrapper around CMake. `make test` and `make demo` work on a fresh
# Debian 12 machine: they install what is missing first.
#   build/          the planning core and the tacio command (no MPI)
#   build-openmpi/  the MPI engine with Open MPI (the full MPI test matrix)
#   build-mpich/    the MPI engine with MPICH (a small share: it busy-polls)
BUILD ?= build

.PHONY: all deps build build-mpi test demo bench clean

all: build build-mpi

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACIO_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j 2

build-mpi: deps
	@cmake -S . -B build-openmpi -DCMAKE_C_COMPILER=mpicc.openmpi \
	    -DTACIO_MPIEXEC=mpirun.openmpi -DTACIO_WERROR=ON >/dev/null
	@cmake --build build-openmpi -j 2
	@cmake -S . -B build-mpich -DCMAKE_C_COMPILER=mpicc.mpich -DTACIO_MPIEXEC=mpiexec.mpich \
	    -DTACIO_TEST_RANKS="1;2" -DTACIO_PROPERTY_NP=2 -DTACIO_FAULTS_NP=2 \
	    -DTACIO_LARGE_TEST=OFF -DTACIO_WERROR=ON >/dev/null
	@cmake --build build-mpich -j 2

test: build build-mpi
	@cd $(BUILD) && ctest --output-on-failure
	@cd build-openmpi && ctest --output-on-failure -L mpi
	@cd build-mpich && ctest --output-on-failure -L mpi

demo: build
	@scripts/demo.sh $(BUILD)/bin/tacio

bench: build build-mpi
	@bench/plan/run.sh $(BUILD)
	@bench/engine/run.sh build-openmpi

clean:
	rm -rf $(BUILD) build-openmpi build-mpich
