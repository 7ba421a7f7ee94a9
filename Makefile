# locklab — top-level entry points.  Everything is built into build/.
#   make        build the library, the interposer-to-be, locklab-bench and the tests,
#               and install the `locklab` command into .venv (python/, pinned versions)
#   make test   run every test: ctest (validator, spec, metrics, CLI, sync, the model checker's quick subset)
#               + TSan and ASan builds of validator and test_sync + pytest (tests/python); the lightweight-thread
#               runtime under both sanitizers too
#   make verify model-check every lock x policy, the park protocol and the sync wait lists (docs/verification.md;
#               <= 20 minutes); make mutate: the mutation score of those checks
#   make demo   build, then run the default experiment (bench/demo.sh: a `locklab sweep` and its report)
#   make install [PREFIX=/usr/local] [DESTDIR=]   the library, headers, interposer, bench, pkg-config
#               file, CMake package and manual pages (README "Install"); make uninstall removes them

BUILD      ?= build
JOBS       ?= $(shell nproc)
# -G for a new build directory (Ninja when installed); an existing one keeps the
# generator it was configured with.  Recursive (=): ninja may have just been
# installed by tools/setup-deps.sh.
GENERATOR   = $(if $(wildcard $(1)/CMakeCache.txt),,-G "$(if $(shell command -v ninja),Ninja,Unix Makefiles)")
SAN_SECONDS ?= 0.04

.PHONY: all build install uninstall venv deps-build deps-venv deps-test test test-unit test-tsan test-asan test-threads-aarch64 test-python verify mutate demo papers apps performance soak clean

all: build venv

# What the system must provide (gcc, cmake, ninja, python3-venv, ... : tools/setup-deps.sh
# says what it installs, as root with apt-get, or prints the command): checked first.
deps-build deps-venv deps-test: deps-%:
	@bash tools/setup-deps.sh $*

build: deps-build
	@cmake -S . -B $(BUILD) $(call GENERATOR,$(BUILD)) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# cmake --install into $(DESTDIR)$(PREFIX); the files it wrote, DESTDIR included,
# go to $(INSTALLED) for `make uninstall` (tools/install.sh, tools/uninstall.sh): next to
# $(BUILD), not in it, so that `make clean` keeps the record of what is installed.
PREFIX     ?= /usr/local
DESTDIR    ?=
INSTALLED  ?= $(BUILD).installed_files.txt

install: deps-build
	@cmake -S . -B $(BUILD) $(call GENERATOR,$(BUILD)) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	bash tools/install.sh $(BUILD) "$(DESTDIR)" $(INSTALLED)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	@bash tools/uninstall.sh $(INSTALLED)

test: test-unit test-tsan test-asan test-python

test-unit: deps-test build
	cd $(BUILD) && ctest --output-on-failure -j 2

# Sanitizer builds of the validator (every lock x policy x client, shorter cases)
# and of test_sync (condition variables and semaphores), and the lightweight-thread
# runtime (test_threads_runtime --quick: its switches carry the sanitizers' fiber
# annotations, src/threads/fiber_san.h).
test-tsan: deps-test
	@cmake -S . -B $(BUILD)-tsan $(call GENERATOR,$(BUILD)-tsan) -DCMAKE_BUILD_TYPE=Debug -DLOCKLAB_SANITIZE=thread >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target validator rw_validator test_sync test_threads_runtime
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/validator --duration $(SAN_SECONDS)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/rw_validator --duration $(SAN_SECONDS)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/test_sync
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/test_threads_runtime --quick

test-asan: deps-test
	@cmake -S . -B $(BUILD)-asan $(call GENERATOR,$(BUILD)-asan) -DCMAKE_BUILD_TYPE=Debug -DLOCKLAB_SANITIZE=address >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS) --target validator rw_validator test_sync test_threads_runtime
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" $(BUILD)-asan/bin/validator --duration $(SAN_SECONDS)
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" $(BUILD)-asan/bin/rw_validator --duration $(SAN_SECONDS)
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1" $(BUILD)-asan/bin/test_sync
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1" $(BUILD)-asan/bin/test_threads_runtime --quick

# The thread runtime's aarch64 context switch, cross-compiled and run under
# qemu-aarch64 (Debian: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user;
# not part of `make test`).
AARCH64_CC ?= aarch64-linux-gnu-gcc
# (build: its configure generates $(BUILD)/include/locklab/version.h)
test-threads-aarch64: build
	@mkdir -p $(BUILD)-aarch64
	$(AARCH64_CC) -std=gnu11 -O2 -g -static -pthread -Iinclude -I$(BUILD)/include -Isrc/threads/arch/aarch64 \
	    $(wildcard src/core/*.c src/wait/*.c src/locks/*.c src/sync/*.c src/api/*.c src/metrics/*.c src/threads/*.c) \
	    src/peers/none.c src/threads/arch/aarch64/switch.c tests/test_threads_runtime.c \
	    -o $(BUILD)-aarch64/test_threads_runtime -lm
	qemu-aarch64 $(BUILD)-aarch64/test_threads_runtime --quick

# Model checking with Relacy (docs/verification.md; needs Debian's relacy-dev).
verify: build
	nice -n 19 verify/verify.sh $(BUILD)/bin/locklab-check full

mutate: build
	nice -n 19 python3 verify/mutate.py --jobs $(JOBS)

# The Python laboratory: .venv with pinned dependencies and locklab installed
# (editable, so python/locklab edits need no reinstall).  The stamp makes a
# second `make` instant; it is redone when pyproject.toml or the lock change.
VENV       ?= .venv
PYTHON     ?= python3

venv: $(VENV)/.installed

$(VENV)/.installed: python/pyproject.toml python/requirements.lock | deps-venv
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c python/requirements.lock -e 'python[test]'
	@touch $@

test-python: build venv
	$(VENV)/bin/python -m pytest -q tests/python

demo: build venv
	@bash bench/demo.sh $(BUILD)/bin/locklab-bench

# The papers' experiments on this machine (docs/papers.md; ~7 minutes).
papers: build venv
	@bash bench/papers.sh

# glibc against the interposer's default and other locks, on plain and real programs
# (docs/performance.md; ~15 minutes; RUNS/SECONDS to change).
RUNS ?= 5
SECONDS ?= 1
performance: build
	python3 bench/performance.py --runs $(RUNS) --seconds $(SECONDS)

# Every lock x policy under the validator and the interposer tests for HOURS hours
# (tests/soak.sh; log in results/soak.log).
HOURS ?= 1
soak: build
	@mkdir -p results
	bash tests/soak.sh $(BUILD) $(HOURS) results/soak.log

# Real programs (kccachetest, db_bench, sysbench) on glibc and locklab locks
# (docs/apps.md; installs the Debian packages if missing, as root).
apps: build venv
	$(VENV)/bin/locklab apps --install --out results/apps

# (Not $(INSTALLED): `make uninstall` still needs it.)
clean:
	rm -rf $(BUILD) $(BUILD)-tsan $(BUILD)-asan $(VENV) python/locklab.egg-info
