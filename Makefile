# Thin wrapper: the README's two commands, plus the presets developers use.
#   make run   installs what is missing, builds, prints the GLM-5.3 TP8 200G -> 100G table
#   make test  the same set-up, then the whole test suite through ctest

.PHONY: all deps deps-binary build quiet-build run test dev clang asan fuzz fuzz-build fuzz-ci format lint bench device-bundle clean

MAKEFLAGS += --no-print-directory

all: build

deps:
	@scripts/install-deps.sh

# `make run` needs only the binary's packages (the toolchain, fmt, CLI11,
# yaml-cpp, Eigen); the tests' (Catch2, clang, OpenMPI, Chromium, ...) come with `make test`.
deps-binary:
	@scripts/install-deps.sh --binary

build: deps
	@scripts/configure.sh default -DTPNET_BUILD_TESTS=ON >/dev/null
	@cmake --build --preset default

# `make run` builds only the binary it runs, with progress; the log is shown
# only when the build fails.
quiet-build: deps-binary
	@scripts/build-tpnet.sh

run: quiet-build
	@./build/cli/tpnet penalty --model glm-5.3 --tp 8 --from 200G --to 100G \
	    --baseline examples/data/glm53_tp8_200g.csv

test: build
	@ctest --preset default

# Debug build with warnings as errors (g++), and the same with clang.
dev: deps
	scripts/configure.sh dev && cmake --build --preset dev && ctest --preset dev
clang: deps
	scripts/configure.sh clang && cmake --build --preset clang && ctest --preset clang

# AddressSanitizer + UndefinedBehaviorSanitizer.
asan: deps
	scripts/configure.sh asan && cmake --build --preset asan && ctest --preset asan

# libFuzzer over every input parser (docs/hardening.md): FUZZ_SECONDS per
# target (default 60), new inputs kept in build-fuzz/fuzz-work, crashes in
# build-fuzz/fuzz-artifacts. fuzz-ci: 10 s per target from the seeds alone.
FUZZ_SECONDS ?= 60
fuzz-build: deps
	scripts/configure.sh fuzz >/dev/null && cmake --build --preset fuzz
fuzz: fuzz-build
	scripts/fuzz.sh --seconds $(FUZZ_SECONDS)
fuzz-ci: fuzz-build
	FUZZ_SEED=1 scripts/fuzz.sh --seconds 10 --fresh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

# clang-tidy over the tracked sources (scripts/lint.sh): it configures
# build-dev for its compile_commands.json and builds nothing. LINT_PATHS
# narrows it (folders or files; default: libtpnet cli calibration tests).
LINT_PATHS ?=
lint: deps
	@scripts/lint.sh $(LINT_PATHS)

bench: build
	./build/tests/bench/tpnet_bench

# The binaries calibration/scripts/device-check.sh runs on a GPU machine that
# lacks the build dependencies (docs/calibration.md, "Device check").
device-bundle: deps
	calibration/scripts/device-bundle.sh

clean:
	rm -rf build build-dev build-clang build-asan build-fuzz build.log
