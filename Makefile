# locklab — top-level entry points.  Everything is built into build/.
#   make        build the library, the interposer-to-be, locklab-bench and the tests
#   make test   run every test: ctest (validator, spec, metrics, CLI, sync) + TSan and ASan builds of validator and test_sync
#   make demo   build, then run the default experiment (a MutexBench comparison table)

BUILD      ?= build
JOBS       ?= $(shell nproc)
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
SAN_SECONDS ?= 0.04

.PHONY: all build test test-unit test-tsan test-asan demo clean

all: build

build:
	@cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: test-unit test-tsan test-asan

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j 1

# Sanitizer builds of the validator (every lock x policy x client, shorter cases)
# and of test_sync (condition variables and semaphores).
test-tsan:
	@cmake -S . -B $(BUILD)-tsan -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Debug -DLOCKLAB_SANITIZE=thread >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target validator test_sync
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/validator --duration $(SAN_SECONDS)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" setarch -R $(BUILD)-tsan/bin/test_sync

test-asan:
	@cmake -S . -B $(BUILD)-asan -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Debug -DLOCKLAB_SANITIZE=address >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS) --target validator test_sync
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" $(BUILD)-asan/bin/validator --duration $(SAN_SECONDS)
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1" $(BUILD)-asan/bin/test_sync

demo: build
	@bash bench/demo.sh $(BUILD)/bin/locklab-bench

clean:
	rm -rf $(BUILD) $(BUILD)-tsan $(BUILD)-asan
