# gpusched - plain non-recursive GNU Makefile.
#
#   make                 debug build (-O2 -g, assertions on): bin/gpusched
#   make release         -O2 -DNDEBUG into build/release (used by bench/)
#   make SAN=1           ASan+UBSan build into build/san
#   make test            everything: unit, CLI, sanitizer pass, fuzz corpus replay
#   make demo            the seed's story on a built-in example
#   make demo-live       the same story on a live gpuschedd (queue, why, /metrics)
#   make demo-slurm      one workload under Slurm's scheduler and under gpuschedd on Slurm
#   make bench           benchmarks (bench/README.md)
#   make lint            clang-tidy + cppcheck
#   make check-layering  core must not do I/O or read clocks

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif

# STRICT=1 (the default in a checkout: make, make test, CI, bench) turns
# warnings into errors and targets x86-64-v2.  `make install` builds with
# STRICT=0: a user's newer compiler may warn where gcc 12 / clang 14 do not,
# and that must not fail their build; -march would make the binary refuse
# pre-2009 or non-x86 CPUs.  The project's own checks keep both.
STRICT ?= 1
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wundef
ifeq ($(STRICT),1)
  WARN += -Werror
endif
BASE_CFLAGS := -std=c11 $(WARN) -Isrc -MMD -MP

ifeq ($(SAN),1)
  VARIANT := san
  OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
         -fno-sanitize-recover=undefined
  LDSAN := -fsanitize=address,undefined
else ifeq ($(RELEASE),1)
  VARIANT := release
  OPT := -O2 -g -DNDEBUG
else
  VARIANT := debug
  OPT := -O2 -g
endif

# Hardware popcount (x86-64-v2, every x86 server since 2009): the engine
# counts GPUs in bit masks everywhere; without it gcc calls __popcountdi2.
ifeq ($(STRICT),1)
ifeq ($(shell uname -m),x86_64)
  OPT += -march=x86-64-v2
endif
else
  VARIANT := $(VARIANT)-portable
endif

B := build/$(VARIANT)
CFLAGS_ALL := $(BASE_CFLAGS) $(OPT) $(CFLAGS)
POSIX := -D_POSIX_C_SOURCE=200809L
LIBS := -ljansson -lyaml -lz -lsqlite3 -lm

CORE_SRC := $(wildcard src/core/*/*.c)
SIM_SRC := $(wildcard src/sim/*.c)
IO_SRC := $(wildcard src/io/*.c)
WORKLOAD_SRC := $(wildcard src/workload/*.c)
REPORT_SRC := $(wildcard src/report/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
DAEMON_SRC := $(wildcard src/daemon/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)
SIM_OBJ := $(SIM_SRC:%.c=$(B)/%.o)
IO_OBJ := $(IO_SRC:%.c=$(B)/%.o)
WORKLOAD_OBJ := $(WORKLOAD_SRC:%.c=$(B)/%.o)
REPORT_OBJ := $(REPORT_SRC:%.c=$(B)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
LIB := $(B)/libgpusched.a
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
FUZZ_REPLAY := $(FUZZ_SRC:fuzz/%.c=$(B)/fuzz/%)
GPUSCHED := $(B)/bin/gpusched
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(B)/%.o)
GPUSCHEDD := $(B)/bin/gpuschedd
# the supervisor program (src/daemon/supervisor/main.c): libc only
SUPERVISOR_OBJ := $(B)/src/daemon/supervisor/main.o $(B)/src/daemon/supervise.o \
    $(B)/src/daemon/reap.o $(B)/src/daemon/runas.o $(B)/src/core/base/error.o
SUPERVISOR := $(B)/bin/gpuschedd-supervise

.PHONY: all release san test unit demo bench lint check-layering clean deps fuzz \
        headers-check install uninstall
all: $(GPUSCHED) bin/gpusched $(GPUSCHEDD) bin/gpuschedd bin/gpuschedd-supervise

bin/gpusched: $(GPUSCHED)
	@mkdir -p bin
	cp $< $@

bin/gpuschedd: $(GPUSCHEDD)
	@mkdir -p bin
	cp $< $@

bin/gpuschedd-supervise: $(SUPERVISOR)
	@mkdir -p bin
	cp $< $@

release:
	$(MAKE) RELEASE=1 build/release/bin/gpusched build/release/bin/gpuschedd

san:
	$(MAKE) SAN=1 build/san/bin/gpusched

# Before the first compile: the compiler and the library headers, else one
# line saying that `make deps` installs them (scripts/check-deps.sh).
.PHONY: check-deps
check-deps:
	@CC="$(CC)" scripts/check-deps.sh

$(B)/src/core/%.o: src/core/%.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(B)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(POSIX) -c $< -o $@

# Objects of core sources that were moved or removed are deleted with the
# library, so that the link-graph check (check-layering) reads only this tree.
$(LIB): $(CORE_OBJ) $(WORKLOAD_OBJ) $(SIM_OBJ) $(IO_OBJ) $(REPORT_OBJ)
	@mkdir -p $(dir $@)
	@for o in $(B)/src/core/*/*.o; do case " $(CORE_OBJ) " in *" $$o "*) ;; *) rm -f "$$o" ;; esac; done
	rm -f $@
	ar rcs $@ $^

$(GPUSCHED): $(CLI_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(LDSAN) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

# gpuschedd starts jobs under the supervisor beside it: build both together
$(GPUSCHEDD): $(DAEMON_OBJ) $(LIB) | $(SUPERVISOR)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(LDSAN) -o $@ $(DAEMON_OBJ) $(LIB) -lmicrohttpd -lpthread $(LIBS)

$(SUPERVISOR): $(SUPERVISOR_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(LDSAN) -o $@ $(SUPERVISOR_OBJ)

$(B)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(POSIX) -o $@ $< $(LIB) $(LDSAN) -lcmocka $(LIBS)

$(B)/bench/%: bench/%.c bench/bench_util.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(POSIX) -o $@ $< $(LIB) $(LDSAN) $(LIBS)

# bench_daemon's harness (a real daemon started and stopped, HTTP) is a
# second source file, not a benchmark of its own
$(B)/bench/bench_daemon: bench/bench_daemon.c bench/daemon_harness.c bench/daemon_harness.h \
                         bench/bench_util.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(POSIX) -o $@ bench/bench_daemon.c bench/daemon_harness.c $(LIB) \
	    $(LDSAN) $(LIBS)

# gcc-built replay mains: run every file of fuzz/corpus/<target>/ through the
# fuzz entry point, so each past crash stays a regression test.
$(B)/fuzz/%: fuzz/%.c fuzz/replay_main.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(POSIX) -o $@ $< fuzz/replay_main.c $(LIB) $(LDSAN) $(LIBS)

# --version names the commit: `git describe --always --dirty` (GS_COMMIT=...
# overrides it, e.g. for a tarball; outside a git checkout "unknown") as
# -DGS_COMMIT for version.o alone, rebuilt when the stamp file changes.
ifeq ($(origin GS_COMMIT),undefined)
GS_COMMIT := $(shell [ -e .git ] && git describe --always --dirty 2>/dev/null | tr -cd 'A-Za-z0-9._-' || true)
endif
GS_COMMIT := $(or $(GS_COMMIT),unknown)
VERSION_STAMP := $(B)/gen/commit.txt
$(shell mkdir -p $(B)/gen && { [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = '$(GS_COMMIT)' ] || \
    echo '$(GS_COMMIT)' >$(VERSION_STAMP); })
$(B)/src/io/version.o: $(VERSION_STAMP)
$(B)/src/io/version.o: CFLAGS_ALL += -DGS_COMMIT='"$(GS_COMMIT)"'

# The dashboard page (src/io/dash/page.html) as a C string in the library
# (io/dash.h): edit the HTML, the build regenerates the C file.
DASH_PAGE_OBJ := $(B)/gen/dash_page_html.o
$(B)/gen/dash_page_html.c: src/io/dash/page.html scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh gs_dash_page_html $< >$@.tmp && mv $@.tmp $@
$(DASH_PAGE_OBJ): $(B)/gen/dash_page_html.c
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(LIB): $(DASH_PAGE_OBJ)

unit: $(UNIT_BIN)
test-bins: $(GPUSCHED) $(GPUSCHEDD) $(UNIT_BIN) $(FUZZ_REPLAY)
bench-bins: $(BENCH_BIN) $(GPUSCHED) $(GPUSCHEDD)

deps:
	@scripts/deps.sh build

test:
	@scripts/deps.sh test
	@scripts/run-tests.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

# the client commands of bin/gpusched speak HTTP through libcurl
$(GPUSCHED): LIBS += -lcurl

# the seed's story on a live gpuschedd (scripts/demo-live.sh)
.PHONY: demo-live
demo-live: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo-live.sh

bench: deps
	@$(MAKE) --no-print-directory RELEASE=1 bench-bins
	@scripts/bench.sh

# libFuzzer builds (clang); see fuzz/README.md
fuzz:
	@scripts/fuzz.sh build

check-layering: $(CORE_OBJ)
	@scripts/check-layering.sh $(B)/src/core

headers-check:
	@for h in src/*/*.h src/core/*/*.h; do \
	  printf '#include "%s"\n' "$${h#src/}" | $(CC) -std=c11 $(WARN) -Isrc $(POSIX) -x c -fsyntax-only - \
	  || { echo "header not self-contained: $$h"; exit 1; }; done; echo "headers ok"

lint:
	@scripts/lint.sh

# make install [PREFIX=/usr/local] [DESTDIR=...]: a portable release build
# (STRICT=0) of gpusched and gpuschedd, man pages (gpusched's generated from
# every command's --help, gpuschedd(8) from docs/man), bash completion, the
# systemd unit (UNITDIR; it reads SYSCONFDIR/gpusched/*.yaml) and the
# example configuration (DOCDIR/examples).
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/gpusched
RP := build/release-portable
install:
	$(MAKE) --no-print-directory RELEASE=1 STRICT=0 $(RP)/bin/gpusched $(RP)/bin/gpuschedd
	scripts/gen-man.sh $(RP)/bin/gpusched build/man
	sed -e "s|@VERSION@|$$($(RP)/bin/gpuschedd --version | cut -d' ' -f2)|" \
	    -e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@UNITDIR@|$(UNITDIR)|g' docs/man/gpuschedd.8 >build/man/gpuschedd.8
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    scripts/gpuschedd.service >build/gpuschedd.service
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 755 $(RP)/bin/gpusched $(RP)/bin/gpuschedd $(RP)/bin/gpuschedd-supervise \
	    $(DESTDIR)$(PREFIX)/bin/
	install -m 644 build/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 build/man/gpuschedd.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 scripts/gpusched.bash-completion \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpusched
	install -m 644 build/gpuschedd.service $(DESTDIR)$(UNITDIR)/gpuschedd.service
	install -m 644 examples/service/cluster.yaml examples/service/policy.yaml \
	    examples/service/tokens.yaml $(DESTDIR)$(DOCDIR)/examples/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpusched $(DESTDIR)$(PREFIX)/bin/gpuschedd \
	    $(DESTDIR)$(PREFIX)/bin/gpuschedd-supervise \
	    $(DESTDIR)$(PREFIX)/share/man/man1/gpusched.1 \
	    $(DESTDIR)$(PREFIX)/share/man/man1/gpusched-*.1 $(DESTDIR)$(PREFIX)/share/man/man8/gpuschedd.8 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpusched \
	    $(DESTDIR)$(UNITDIR)/gpuschedd.service
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)

# the same workload under Slurm's own scheduler and under gpuschedd on the
# same private Slurm, side by side (scripts/slurm-vs-gpusched.sh, ~20 min)
.PHONY: demo-slurm
demo-slurm:
	@GS_EXTRA_PKGS="slurmctld slurmd slurm-client slurmdbd mariadb-server python3 curl" \
		scripts/deps.sh build
	@$(MAKE) --no-print-directory all
	@scripts/slurm-vs-gpusched.sh
