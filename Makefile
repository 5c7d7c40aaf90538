# fsbench: one GNU Makefile. `make` builds ./fsbench; see README.md for the other targets.
# V=1 shows the commands. Dependencies are listed once, in deps.txt.

VERSION := 0.1.0
PREFIX ?= /usr/local
BUILD ?= build
BIN ?= fsbench
CC ?= cc
PKG_CONFIG ?= pkg-config
# The caller's CPPFLAGS, CFLAGS and LDFLAGS come after fsbench's own, on every compile and link
# line, so dpkg-buildflags' hardening (and anyone's -O or -D) applies.
CFLAGS ?= -O2 -g
# What --version says besides the version: `git describe` of this tree when it is a git work
# tree (its top is this directory), else "release". `make FSB_COMMIT=...` overrides.
FSB_COMMIT ?= $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
	git describe --always --dirty 2>/dev/null || echo release)
# Every library through pkg-config: jansson (JSON), cairo (plot), zlib, inih (matrix's experiment
# files), blkid (its check of a --device), mount (mount options, classified by libmount),
# sqlite3 (history), liburing (the io_uring engine). A missing one stops the build (deps check).
FSB_PKGS := jansson cairo zlib inih blkid mount sqlite3 liburing
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(FSB_PKGS) 2>/dev/null)
# cairo, blkid and mount are not linked but opened when first used (sys/dl.h; their headers are
# used): the commands that draw nothing and run no experiment do not load them, and the 20
# libraries behind them, at every start (bench/README.md). The unit test that reads PNGs back
# links cairo itself.
FSB_DLOPEN_PKGS := cairo blkid mount
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out $(FSB_DLOPEN_PKGS),$(FSB_PKGS)) 2>/dev/null)
CAIRO_LIBS := $(shell $(PKG_CONFIG) --libs cairo 2>/dev/null)
FSB_CPPFLAGS := -D_GNU_SOURCE -DFSB_VERSION='"$(VERSION)"' -iquote src $(PKG_CFLAGS)
# git's DEVELOPER warnings on top of -Wall -Wextra: the tree is clean under them, CI adds -Werror
FSB_WARNINGS := -Wall -Wextra -Wmissing-prototypes -Wvla -Wwrite-strings -Wstrict-prototypes \
	-Wold-style-definition -Wshadow -Wformat-nonliteral
FSB_CFLAGS := -std=gnu11 $(FSB_WARNINGS) -pthread
COMPILE = $(FSB_CPPFLAGS) $(CPPFLAGS) $(FSB_CFLAGS) $(CFLAGS)
LDLIBS := $(PKG_LIBS) -lm -pthread

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS := $(sort $(wildcard src/*.c src/*/*.c))
LIB_SRCS := $(filter-out src/main.c src/mpi/%,$(SRCS))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
DEPS_STAMP := $(BUILD)/.deps-build
# The test build: the sources that include core/testhook.h compiled again with -DFSB_TEST_HOOKS
# (the environment switches the tests use), the rest of the library shared with the product.
# The unit tests and build/fsbench-test link it; ./fsbench never does (HACKING.md).
HOOK_SRCS := $(shell grep -l '"core/testhook.h"' $(LIB_SRCS))
HOOK_OBJS := $(HOOK_SRCS:src/%.c=$(BUILD)/obj-test/%.o)
TEST_LIB_OBJS := $(filter-out $(HOOK_SRCS:src/%.c=$(BUILD)/obj/%.o),$(LIB_OBJS)) $(HOOK_OBJS)
TEST_BIN := $(BUILD)/fsbench-test

# fsbench-mpi: the workloads as MPI jobs (src/mpi/, compiled with mpicc), built beside fsbench
# when Open MPI's compiler wrapper and <mpi.h> are there (deps.txt's mpi stage); without them
# `make` builds the same fsbench as ever. `make mpi` insists.
MPICC ?= mpicc
MPI_BIN ?= $(patsubst %fsbench,%fsbench-mpi,$(BIN))
MPI_SRCS := $(sort $(wildcard src/mpi/*.c))
MPI_OBJS := $(MPI_SRCS:src/%.c=$(BUILD)/obj/%.o)
HAVE_MPI := $(shell printf '\043include <mpi.h>\nint main(void) { return 0; }\n' | \
	$(MPICC) -x c -fsyntax-only - >/dev/null 2>&1 && echo yes)

# The builds inside check, asan and tsan run one job per CPU when make itself was given no -j
# (a plain `make check` on a fresh machine); with -j they share its job server. MAKEFLAGS holds
# -j only in recipes, hence the deferred `=`.
NPROC := $(shell nproc 2>/dev/null || echo 1)
SUBMAKE_J = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC))

.PHONY: FORCE all check check-package unit cli demo bench asan tsan tsan-run fuzz install uninstall clean deps deps-test man mpi mpi-if-any
all: $(BIN) $(BUILD)/fsbench.1 $(BUILD)/completion/fsbench $(BUILD)/completion/_fsbench
ifeq ($(HAVE_MPI),yes)
all: $(MPI_BIN)
mpi-if-any: $(MPI_BIN)
else
mpi-if-any:
endif
mpi: $(MPI_BIN)

# A plain `make` installs nothing: it says which Debian packages are missing (with the
# apt-get line) and stops. `make deps`, `make check`, `make demo` install them when root.
$(DEPS_STAMP): deps.txt scripts/deps.sh
	$(Q)scripts/deps.sh --check build
	$(Q)$(PKG_CONFIG) --exists --print-errors $(FSB_PKGS)
	$(Q)mkdir -p $(@D) && touch $@

deps:
	$(Q)scripts/deps.sh build
deps-test:
	$(Q)scripts/deps.sh test

$(BUILD)/obj/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(COMPILE) -MMD -MP -c -o $@ $<

$(BUILD)/obj-test/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (test hooks)")
	$(Q)$(CC) -DFSB_TEST_HOOKS $(COMPILE) -MMD -MP -c -o $@ $<

# the commit (--version, the JSON's environment): main.o and json.o alone are rebuilt when it
# changes
$(BUILD)/obj/main.o $(BUILD)/obj/report/json.o: FSB_CPPFLAGS += -DFSB_COMMIT='"$(FSB_COMMIT)"'
$(BUILD)/obj/main.o $(BUILD)/obj/report/json.o: $(BUILD)/commit
$(BUILD)/commit: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = "$(FSB_COMMIT)" ] || echo "$(FSB_COMMIT)" > $@
FORCE:

$(BUILD)/obj/mpi/%.o: src/mpi/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(COMPILE) -MMD -MP -c -o $@ $<

$(MPI_BIN): $(MPI_OBJS) $(BUILD)/libfsbench.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libfsbench.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libfsbench-test.a: $(TEST_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(BUILD)/obj/main.o $(BUILD)/libfsbench.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/obj/main.o $(BUILD)/libfsbench.a $(LDLIBS)

# the same program with the test hooks, for the CLI tests that switch them (lib.sh: use_test_build)
$(TEST_BIN): $(BUILD)/obj/main.o $(BUILD)/libfsbench-test.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/obj/main.o $(BUILD)/libfsbench-test.a $(LDLIBS)

$(BUILD)/tests/test_plot_cairo: LDLIBS += $(CAIRO_LIBS)
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libfsbench-test.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -DFSB_TEST_HOOKS $(COMPILE) $(LDFLAGS) -MMD -MP -o $@ $< $(BUILD)/libfsbench-test.a $(LDLIBS)

# The man page: prose in doc/fsbench.1.in, option lists generated from the options tables.
$(BUILD)/fsbench.1: doc/fsbench.1.in scripts/mkman.sh $(BIN)
	$(Q)scripts/mkman.sh ./$(BIN) doc/fsbench.1.in $(VERSION) > $@.tmp && mv $@.tmp $@
man: $(BUILD)/fsbench.1

# Shell completion (bash, zsh), generated from the same tables as the man page.
$(BUILD)/completion/fsbench: scripts/mkcompletion.sh $(BIN)
	@mkdir -p $(@D)
	$(Q)scripts/mkcompletion.sh ./$(BIN) bash > $@.tmp && mv $@.tmp $@
$(BUILD)/completion/_fsbench: scripts/mkcompletion.sh $(BIN)
	@mkdir -p $(@D)
	$(Q)scripts/mkcompletion.sh ./$(BIN) zsh > $@.tmp && mv $@.tmp $@

unit: $(UNIT_BINS)

# Every test: unit programs, then the numbered CLI scripts. One summary line at the end.
# The build's packages first (installed when root), then a make that sees them.
check: deps
	$(Q)$(MAKE) $(SUBMAKE_J) --no-print-directory all unit $(TEST_BIN) $(BENCH_HELPERS)
	$(Q)scripts/deps.sh test
	$(Q)scripts/deps.sh mpi
	@# fsbench-mpi, now that the mpi stage is there (a new make sees mpicc)
	$(Q)$(MAKE) $(SUBMAKE_J) --no-print-directory mpi-if-any
	$(Q)FSBENCH=$(abspath $(BIN)) FSBENCH_TEST=$(abspath $(TEST_BIN)) FSBENCH_MPI=$(abspath $(MPI_BIN)) \
		BUILD=$(abspath $(BUILD)) tests/run.sh $(UNIT_BINS) $(filter-out $(PACKAGE_CLI),$(wildcard tests/cli/t*.sh))

# The bench helpers that CLI tests run, built once for the suite (a test that finds one older than
# its source builds its own: lib.sh maxrss_tool, t1980, t1985), with the bench scripts' build
# lines (-Werror: the tests checked that they build warning-free). Never sanitized: they time or
# measure fsbench, they are not fsbench.
BENCH_HELPERS := $(BUILD)/bench/maxrss $(BUILD)/bench/bare_tiotest
$(BUILD)/bench/maxrss: bench/maxrss.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -o $@ $<
$(BUILD)/bench/bare_tiotest: bench/bare_tiotest.c src/core/clock.c src/core/clock.h
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -iquote src -Wall -Wextra -Werror -o $@ \
		bench/bare_tiotest.c src/core/clock.c

# The packaging test apart: it builds the .debs from a copy of the tree with dpkg-buildpackage
# (a whole -O2 build, lintian, dpkg -i and --purge: 5 minutes of CI, 2.5 of CPU), longer than
# the rest of `make check` together on 2 cores and testing no code the suite's builds made.
# CI runs it once, after check.
PACKAGE_CLI := tests/cli/t0245-debian-package.sh
check-package: deps
	$(Q)scripts/deps.sh test
	$(Q)FSBENCH=$(abspath $(BIN)) BUILD=$(abspath $(BUILD)) tests/run.sh $(PACKAGE_CLI)

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build tree.
asan:
	FSBENCH_SANITIZED=1 $(MAKE) $(SUBMAKE_J) BUILD=build-asan BIN=build-asan/fsbench \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDFLAGS="-fsanitize=address,undefined" check

# The unit tests and the CLI tests below under ThreadSanitizer, in their own build tree: the live
# counters are relaxed atomics that the reporter thread (--stream, the progress line, time
# series) reads while the workers write them, and the workers start on a gate. The first race
# found fails its test (halt_on_error). The CLI tests are the threaded paths: tiotest's
# phases, fs_mark's time series, the stream's interval samples.
TSAN_CLI := tests/cli/t0310-stream.sh tests/cli/t1100-tiotest-golden-layout.sh \
	tests/cli/t2700-fs_mark-repeat-series.sh
tsan:
	$(Q)$(MAKE) $(SUBMAKE_J) --no-print-directory BUILD=build-tsan BIN=build-tsan/fsbench \
		CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" LDFLAGS="-fsanitize=thread" tsan-run
tsan-run: $(BIN) $(TEST_BIN) unit
	$(Q)TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $${TSAN_OPTIONS:-}" FSBENCH_SANITIZED=1 \
		FSBENCH=$(abspath $(BIN)) FSBENCH_TEST=$(abspath $(TEST_BIN)) BUILD=$(abspath $(BUILD)) \
		tests/run.sh $(UNIT_BINS) $(TSAN_CLI)

# The result reader's fuzz target (tests/fuzz/): tests/fuzz/run.sh builds it through the rule
# below with clang and libFuzzer in build-fuzz/, then fuzzes from the corpus for FUZZ_SECS.
FUZZ_SECS ?= 60
# Without clang it says so and passes (run.sh's 77).
fuzz:
	$(Q)tests/fuzz/run.sh $(FUZZ_SECS) || [ $$? -eq 77 ]
$(BUILD)/fuzz_result: tests/fuzz/fuzz_result.c $(BUILD)/libfsbench.a
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -DFSB_LIBFUZZER $(COMPILE) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(BUILD)/libfsbench.a $(LDLIBS)

# The main job on a fresh scratch directory under the build tree, sized to finish in well
# under a minute.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh ./$(BIN) $(BUILD)/demo

# Every bench/*.sh, each ending with its goal lines (bench/README.md), at BENCH_ROUNDS alternating
# rounds where a script takes ROUNDS: enough to see the direction; ROUNDS=21 in the environment
# (or BENCH_ROUNDS=21) for the figures a note quotes.
BENCH_ROUNDS ?= 5
bench: all
	$(Q)scripts/deps.sh test
	$(Q)ROUNDS=$${ROUNDS:-$(BENCH_ROUNDS)} bench/run.sh ./$(BIN)

# tiotest, fs_mark and mdtest, fsbench under the originals' names, go to COMPATDIR, not bin/: Debian's
# fsmark package owns /usr/bin/fs_mark. PATH=$(COMPATDIR):$$PATH puts them first (man page).
COMPATDIR ?= $(PREFIX)/lib/fsbench/compat
BASH_COMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPDIR ?= $(PREFIX)/share/zsh/site-functions
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(COMPATDIR) \
		$(DESTDIR)$(BASH_COMPDIR) $(DESTDIR)$(ZSH_COMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fsbench
	if [ -x $(MPI_BIN) ]; then install -m 755 $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/fsbench-mpi; fi
	ln -sf $(PREFIX)/bin/fsbench $(DESTDIR)$(COMPATDIR)/tiotest
	ln -sf $(PREFIX)/bin/fsbench $(DESTDIR)$(COMPATDIR)/fs_mark
	ln -sf $(PREFIX)/bin/fsbench $(DESTDIR)$(COMPATDIR)/mdtest
	install -m 644 $(BUILD)/fsbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1
	install -m 644 $(BUILD)/completion/fsbench $(DESTDIR)$(BASH_COMPDIR)/fsbench
	install -m 644 $(BUILD)/completion/_fsbench $(DESTDIR)$(ZSH_COMPDIR)/_fsbench

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fsbench $(DESTDIR)$(PREFIX)/bin/fsbench-mpi \
		$(DESTDIR)$(COMPATDIR)/tiotest $(DESTDIR)$(COMPATDIR)/fs_mark $(DESTDIR)$(COMPATDIR)/mdtest \
		$(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1 $(DESTDIR)$(BASH_COMPDIR)/fsbench $(DESTDIR)$(ZSH_COMPDIR)/_fsbench
	-rmdir $(DESTDIR)$(COMPATDIR) $(DESTDIR)$(PREFIX)/lib/fsbench 2>/dev/null

clean:
	rm -rf build build-asan build-tsan build-fuzz fsbench fsbench-mpi

-include $(LIB_OBJS:.o=.d) $(HOOK_OBJS:.o=.d) $(MPI_OBJS:.o=.d) $(BUILD)/obj/main.d $(UNIT_BINS:=.d)
