# fsbench: one GNU Makefile. `make` builds ./fsbench; see README.md for the other targets.
# V=1 shows the commands. Dependencies are listed once, in deps.txt.

VERSION := 0.1.0
PREFIX ?= /usr/local
BUILD ?= build
BIN ?= fsbench
CC ?= cc
CFLAGS ?= -O2 -g
# cairo (plot): pkg-config's flags; before deps.sh has installed libcairo2-dev, its usual place
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo 2>/dev/null || echo -I/usr/include/cairo)
FSB_CFLAGS := -std=gnu11 -Wall -Wextra -pthread -D_GNU_SOURCE -DFSB_VERSION='"$(VERSION)"' -iquote src $(CAIRO_CFLAGS)
FSB_CFLAGS += -DFSB_COMMIT='"$(shell git describe --always --dirty 2>/dev/null || echo unknown)"'
# matrix: libinih (experiment files), libblkid (--device), libmount (mount options, through
# pkg-config); history (report/history.c): SQLite; the io_uring engine: liburing
MOUNT_LIBS := $(shell pkg-config --libs mount 2>/dev/null || echo -lmount)
LDLIBS := -ljansson -lz -lm -pthread -lcairo -linih -lblkid $(MOUNT_LIBS) -lsqlite3 -luring

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

# fsbench-mpi: the workloads as MPI jobs (src/mpi/, compiled with mpicc), built beside fsbench
# when Open MPI's compiler wrapper and <mpi.h> are there (deps.txt's mpi stage); without them
# `make` builds the same fsbench as ever. `make mpi` insists.
MPICC ?= mpicc
MPI_BIN ?= $(patsubst %fsbench,%fsbench-mpi,$(BIN))
MPI_SRCS := $(sort $(wildcard src/mpi/*.c))
MPI_OBJS := $(MPI_SRCS:src/%.c=$(BUILD)/obj/%.o)
HAVE_MPI := $(shell printf '\043include <mpi.h>\nint main(void) { return 0; }\n' | \
	$(MPICC) -x c -fsyntax-only - >/dev/null 2>&1 && echo yes)

.PHONY: all check unit cli demo bench asan install uninstall clean deps deps-test man mpi mpi-if-any
all: $(BIN) $(BUILD)/fsbench.1
ifeq ($(HAVE_MPI),yes)
all: $(MPI_BIN)
mpi-if-any: $(MPI_BIN)
else
mpi-if-any:
endif
mpi: $(MPI_BIN)

$(DEPS_STAMP): deps.txt scripts/deps.sh
	$(Q)scripts/deps.sh build
	$(Q)mkdir -p $(@D) && touch $@

deps: $(DEPS_STAMP)
deps-test:
	$(Q)scripts/deps.sh test

$(BUILD)/obj/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FSB_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/mpi/%.o: src/mpi/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(FSB_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(MPI_BIN): $(MPI_OBJS) $(BUILD)/libfsbench.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libfsbench.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# every object of the library, also those only weakly referenced (the matrix report, which
# `fsbench matrix` calls when it is built in: src/cmd/matrix.h)
$(BIN): $(BUILD)/obj/main.o $(BUILD)/libfsbench.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/obj/main.o -Wl,--whole-archive $(BUILD)/libfsbench.a \
		-Wl,--no-whole-archive $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libfsbench.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FSB_CFLAGS) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libfsbench.a $(LDLIBS)

# The man page: prose in doc/fsbench.1.in, option lists generated from the options tables.
$(BUILD)/fsbench.1: doc/fsbench.1.in scripts/mkman.sh $(BIN)
	$(Q)scripts/mkman.sh ./$(BIN) doc/fsbench.1.in $(VERSION) > $@.tmp && mv $@.tmp $@
man: $(BUILD)/fsbench.1

unit: $(UNIT_BINS)

# Every test: unit programs, then the numbered CLI scripts. One summary line at the end.
check: all unit
	$(Q)scripts/deps.sh test
	$(Q)scripts/deps.sh mpi
	@# fsbench-mpi, now that the mpi stage is there (a new make sees mpicc)
	$(Q)$(MAKE) --no-print-directory mpi-if-any
	$(Q)FSBENCH=$(abspath $(BIN)) FSBENCH_MPI=$(abspath $(MPI_BIN)) BUILD=$(abspath $(BUILD)) \
		tests/run.sh $(UNIT_BINS) tests/cli/t*.sh

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build tree.
asan:
	FSBENCH_SANITIZED=1 $(MAKE) BUILD=build-asan BIN=build-asan/fsbench \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDFLAGS="-fsanitize=address,undefined" check

# The main job on a fresh scratch directory under the build tree, sized to finish in well
# under a minute.
demo: all
	$(Q)scripts/demo.sh ./$(BIN) $(BUILD)/demo

bench: all
	$(Q)scripts/deps.sh test
	$(Q)bench/run.sh ./$(BIN)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fsbench
	if [ -x $(MPI_BIN) ]; then install -m 755 $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/fsbench-mpi; fi
	ln -sf fsbench $(DESTDIR)$(PREFIX)/bin/tiotest
	ln -sf fsbench $(DESTDIR)$(PREFIX)/bin/fs_mark
	install -m 644 $(BUILD)/fsbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fsbench $(DESTDIR)$(PREFIX)/bin/fsbench-mpi $(DESTDIR)$(PREFIX)/bin/tiotest $(DESTDIR)$(PREFIX)/bin/fs_mark \
		$(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1

clean:
	rm -rf build build-asan fsbench fsbench-mpi

-include $(LIB_OBJS:.o=.d) $(MPI_OBJS:.o=.d) $(BUILD)/obj/main.d $(UNIT_BINS:=.d)
