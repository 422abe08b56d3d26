# lrugen - one non-recursive Makefile for every part.
#
#   make                  build lrugen, lrugend, lrugen-store, lrugen-top, liblrugen.a
#   make try              lrugen in a minute, no QEMU: fixture hosts, a store, collectors,
#                         every 'lrugen fleet' command, lrugen-top (HEADLESS=1 prints)
#   make check            build with ASan/UBSan and run every test (summary at the end)
#   make fuzz             run the fuzzers (clang libFuzzer: two parsers, the store's
#                         protobuf ingest), FUZZ_TIME seconds each
#   make bench            run every benchmark in bench/
#   make install          PREFIX=/usr/local DESTDIR= SYSCONFDIR=/etc (programs, man pages,
#                         systemd units, sample configs, completion, liblrugen.a, headers)
#   make uninstall        the same variables: removes what install put there
#   make clean            remove O (default build)
#
# Variables: V=1 prints full commands; SANITIZE=address,undefined; CI=true adds
# -Werror; O=DIR puts every output in DIR (default build).

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
PROTOC_C ?= protoc-c

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wwrite-strings -Wvla
ifeq ($(CI),true)
WARNINGS += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

PKGS := libprotobuf-c jansson zlib
NET_PKGS := libcurl libmicrohttpd
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) $(NET_PKGS) 2>/dev/null)
NET_LIBS := $(shell $(PKG_CONFIG) --libs $(NET_PKGS) 2>/dev/null) -lpthread
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

VERSION ?= 0.1.0

ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DLRUGEN_VERSION='"$(VERSION)"' $(WARNINGS) $(CFLAGS) $(SANFLAGS) -MMD -MP \
	-Ilib -I$(O)/gen $(PKG_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-7s %s\n' $(1) $(2);
endif

# --- generated protobuf code ---------------------------------------------
PROTO_C := $(O)/gen/lrugen.pb-c.c
PROTO_H := $(O)/gen/lrugen.pb-c.h
$(PROTO_C) $(PROTO_H) &: proto/lrugen.proto
	$(call say,PROTOC,$<)mkdir -p $(O)/gen && $(PROTOC_C) --proto_path=proto --c_out=$(O)/gen $<

# --- liblrugen -------------------------------------------------------------
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o) $(O)/gen/lrugen.pb-c.o
LIBA := $(O)/liblrugen.a

$(LIBA): $(LIB_OBJS)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# every object needs the generated header first
$(O)/%.o: %.c | $(PROTO_H)
	$(call say,CC,$<)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -c -o $@ $<
$(O)/gen/lrugen.pb-c.o: $(PROTO_C)
	$(call say,CC,$<)$(CC) $(filter-out -W%,$(ALL_CFLAGS)) -c -o $@ $<

# --- programs ---------------------------------------------------------------
# daemon/: the program layer of lrugend and lrugen-store (settings from a
# table to file, flags and --help; the log); their sources find its headers
DAEMON_SRCS := $(wildcard daemon/*.c)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(O)/%.o)
$(O)/collector/%.o $(O)/store/%.o $(O)/daemon/%.o: ALL_CFLAGS += -Idaemon

PROGRAMS := lrugen lrugend lrugen-store lrugen-top
MAN_PAGES := $(addprefix $(O)/man/,lrugen.1 lrugen-top.1 lrugend.8 lrugen-store.8 \
	lrugend.conf.5 lrugen-store.conf.5)
SAMPLES := collector/lrugend.conf.sample store/lrugen-store.conf.sample
lrugen_SRCS := $(wildcard cli/*.c)
lrugend_SRCS := $(wildcard collector/*.c) $(DAEMON_SRCS)
lrugen-store_SRCS := $(wildcard store/*.c) $(DAEMON_SRCS)
lrugen-top_SRCS := $(wildcard tui/*.c)
lrugend_LIBS := $(NET_LIBS)
lrugen-store_LIBS := $(NET_LIBS) $(shell $(PKG_CONFIG) --libs sqlite3 libcrypto 2>/dev/null)
lrugen_LIBS := $(NET_LIBS)
lrugen-top_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw) $(NET_LIBS)

define program
$(O)/$(1): $$($(1)_SRCS:%.c=$(O)/%.o) $(LIBA)
	$$(call say,LINK,$$@)$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(PKG_LIBS) $$($(1)_LIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program,$(p))))

BINS := $(PROGRAMS:%=$(O)/%)

all: $(BINS) $(LIBA) $(MAN_PAGES)

# the man pages, written from the programs' --help and the sample configs
# (scripts/mkman; lint and completeness: tests/sh/man.sh)
$(MAN_PAGES) &: scripts/mkman $(BINS) $(SAMPLES)
	$(call say,MKMAN,$(O)/man)scripts/mkman $(O) $(O)/man $(VERSION)

# --- tests -----------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
TEST_HELPER_OBJS := $(O)/tests/unit/testutil.o

$(O)/tests/%: $(O)/tests/unit/%.o $(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)
# the regression inputs of fuzz_pb, through fuzz_pb's own checks (its object
# before the library, which it draws on)
$(O)/tests/test_pb_regress: $(O)/tests/unit/test_pb_regress.o $(O)/tests/fuzz/fuzz_pb.o \
		$(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

# the program layer's parser, with its own objects
$(O)/tests/unit/test_conf.o: ALL_CFLAGS += -Idaemon
$(O)/tests/test_conf: $(O)/tests/unit/test_conf.o $(DAEMON_OBJS) $(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

# the store's memory budget, with its own object
$(O)/tests/unit/test_budget.o: ALL_CFLAGS += -Istore
$(O)/tests/test_budget: $(O)/tests/unit/test_budget.o $(O)/store/budget.o $(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

# the store client's tests link libcurl, and so do lru_advise's (it asks a store)
$(O)/tests/test_client $(O)/tests/test_advise: $(O)/tests/%: $(O)/tests/unit/%.o $(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS) $(NET_LIBS)

# test tools: small programs the shell tests drive (test servers, generators).
# Their shared code, also used by bench/, lives in tests/tools/common: headers
# (tool_die.h) and synth.o, linked into whoever uses it. Tools
# and benchmarks that use the store's own code (its schema, its row writer)
# include store/ and link the store's object.
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(O)/tests/tools/%)
SYNTH_OBJ := $(O)/tests/tools/common/synth.o
$(O)/tests/tools/%.o $(O)/bench/%.o $(O)/tests/unit/test_synth.o: ALL_CFLAGS += -Itests/tools/common
$(O)/tests/tools/fleetsim.o $(O)/bench/store/bench_store.o: ALL_CFLAGS += -Istore
$(O)/tests/tools/%: $(O)/tests/tools/%.o $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(NET_LIBS)
$(O)/tests/tools/fleetsim: $(O)/tests/tools/fleetsim.o $(SYNTH_OBJ) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(NET_LIBS)
$(O)/tests/test_synth: $(O)/tests/unit/test_synth.o $(SYNTH_OBJ) $(TEST_HELPER_OBJS) $(LIBA)
	$(call say,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CMOCKA_LIBS)

tests: $(UNIT_BINS) $(TOOL_BINS) $(BINS)

# make check: unit and shell tests under ASan and UBSan in their own build
# directory (while the patched kernel builds in the background at the
# lowest priority, the first time, so that the tests' clocks hold), then (when QEMU is installed and LRUGEN_VM is not 0) the
# real-kernel scenarios of tests/vm with the plain build on VM_KERNEL (all:
# Debian's 6.1, 6.12 and 7.3, and lrugen's patched 7.3 kernel, built first
# when the cache lacks it), and the fleet demo; one summary line.
CHECK_O ?= build/check
LRUGEN_VM ?= $(if $(shell command -v qemu-system-x86_64),1,0)
VM_KERNEL ?= all
# the demos boot one kernel: VM_KERNEL when it names one, else 6.1; the
# fleet demo's store keeps its data in BACKEND: sqlite, or clickhouse (a 2x2
# cluster of tests/clickhouse/cluster)
BACKEND ?= sqlite
DEMO_KERNEL = $(if $(filter all,$(VM_KERNEL)),6.1,$(VM_KERNEL))
check: all $(O)/tests/tools/pbdump
	$(Q)bg=; if [ "$(LRUGEN_VM)" = 1 ] && [ "$(VM_KERNEL)" = all -o "$(VM_KERNEL)" = patched ] && \
		[ ! -f "$$(kernel/build --print-dir)/stamp" ]; then bg=$(abspath $(O))/kernel-build.log; fi; \
	LRUGEN_BG_KERNEL=$$bg $(MAKE) --no-print-directory O=$(CHECK_O) SANITIZE=address,undefined \
		CFLAGS='-O1 -g' LRUGEN_VM=$(LRUGEN_VM) LRUGEN_VM_BUILD=$(abspath $(O)) run-tests

run-tests: tests
	$(Q)O=$(O) LRUGEN_VM=$(LRUGEN_VM) LRUGEN_VM_BUILD=$(LRUGEN_VM_BUILD) VM_KERNEL=$(VM_KERNEL) tests/run

# only the QEMU scenarios: VM_KERNEL=6.1|6.12|7.3|patched|all, SCENARIOS="age wss"
check-vm: all $(O)/tests/tools/pbdump
	$(Q)LRUGEN_BUILD=$(abspath $(O)) VM_KERNEL=$(VM_KERNEL) tests/vm/run $(SCENARIOS)

# the patched kernel (kernel/patches), cached in $LRUGEN_CACHE by its inputs
kernel:
	$(Q)kernel/build

# the main job: lrugen-store, two QEMU hosts running lrugend, lrugen-top --store
# (HEADLESS=1: print 'lrugen fleet' tables instead; VM_KERNEL=6.1|6.12|7.3|patched)
demo: all
	$(Q)LRUGEN_BUILD=$(abspath $(O)) VM_KERNEL=$(DEMO_KERNEL) BACKEND=$(BACKEND) tests/vm/demo $(if $(filter 1,$(HEADLESS)),--headless)

# lrugen in a minute without QEMU or root: fixture hosts, a store, collectors,
# every 'lrugen fleet' command, lrugen-top (HEADLESS=1: not opened)
try: all $(O)/tests/tools/genroot
	$(Q)LRUGEN_BUILD=$(abspath $(O)) HEADLESS=$(HEADLESS) scripts/try

# one host: what the lrugen CLI sees on a stock kernel (VM_KERNEL=6.1|6.12|7.3)
demo-host: all
	$(Q)LRUGEN_BUILD=$(abspath $(O)) VM_KERNEL=$(DEMO_KERNEL) tests/vm/demo-host

# --- fuzzing (clang libFuzzer) ---------------------------------------------
FUZZ_TIME ?= 60
FUZZ_O := build/fuzz
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Ilib -I$(O)/gen \
	$(shell $(PKG_CONFIG) --cflags libprotobuf-c 2>/dev/null)
# the parsers of debugfs lru_gen (fuzz_parse) and memory.lru_gen (fuzz_cgparse),
# and the store's ingest path from a SnapshotBatch body (fuzz_pb)
FUZZ_LIB := lib/lru_parse.c lib/lru_cgparse.c lib/lru_lines.c lib/lru_model.c lib/lru_err.c \
	lib/lru_units.c lib/lru_pb.c lib/lru_fleet.c lib/lru_buf.c lib/lru_warn.c lib/lru_sys.c \
	lib/lru_iface.c lib/lru_esc.c lib/lru_bounds.c lib/lru_hash.c
FUZZ_LIBS := $(shell $(PKG_CONFIG) --libs libprotobuf-c 2>/dev/null)
FUZZ_TARGETS := parse cgparse pb
$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_check.h $(FUZZ_LIB) $(FUZZ_LIB:.c=.h) \
		lib/lru_sat.h $(PROTO_C)
	$(call say,CLANG,$@)mkdir -p $(@D) && clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS)

# seed corpora: the parser corpora and fixtures; for fuzz_pb the UBSan
# regression inputs (tests/corpus/pb-regress), SnapshotBatches of the
# fixtures (mkbatch) and store.sh's fleet (fleetsim)
fuzz: $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%) $(O)/tests/tools/mkbatch $(O)/tests/tools/fleetsim
	$(Q)mkdir -p $(FUZZ_O)/corpus $(FUZZ_O)/corpus-cg $(FUZZ_O)/corpus-pb
	$(Q)cp -n tests/corpus/parse/* tests/fixtures/*/lru_gen*.txt $(FUZZ_O)/corpus/ 2>/dev/null || true
	$(Q)for f in tests/fixtures/memory.lru_gen/jobs/*/memory.lru_gen; do \
		cp -n "$$f" $(FUZZ_O)/corpus-cg/$$(basename $$(dirname "$$f")); done
	$(Q)cp -n tests/corpus/pb-regress/* $(FUZZ_O)/corpus-pb/
	$(Q)for f in tests/fixtures/*/lru_gen*.txt; do \
		$(O)/tests/tools/mkbatch $(FUZZ_O)/corpus-pb/$$(basename $$(dirname "$$f"))-$$(basename "$$f" .txt).pb \
			h:1700000000000:"$$f" >/dev/null || exit 1; done
	$(Q)$(O)/tests/tools/fleetsim build tests/sh/store-fleet.spec >$(FUZZ_O)/corpus-pb/store-fleet.pb
	$(FUZZ_O)/fuzz_parse -max_total_time=$(FUZZ_TIME) -max_len=16384 \
		-artifact_prefix=$(FUZZ_O)/ $(FUZZ_O)/corpus
	$(FUZZ_O)/fuzz_cgparse -max_total_time=$(FUZZ_TIME) -max_len=16384 \
		-artifact_prefix=$(FUZZ_O)/cg- $(FUZZ_O)/corpus-cg
	$(FUZZ_O)/fuzz_pb -max_total_time=$(FUZZ_TIME) -max_len=65536 \
		-artifact_prefix=$(FUZZ_O)/pb- $(FUZZ_O)/corpus-pb

# --- benchmarks ----------------------------------------------------------------
# bench_parse is linked statically (BENCH_STATIC=0 to not; never with
# sanitizers): `bench_parse once` is timed as a whole process against wc -l,
# and loading libprotobuf-c, jansson and zlib costs ~0.25 ms of that. The
# programs themselves stay dynamically linked.
BENCH_STATIC ?= 1
BENCH_LDFLAGS := $(if $(and $(filter 1,$(BENCH_STATIC)),$(if $(SANITIZE),,y)),-static)
BENCH_BINS := $(O)/bench/bench_parse
$(O)/bench/bench_parse: $(O)/bench/parse/bench_parse.o $(LIBA)
	$(call say,LINK,$@)mkdir -p $(@D) && $(CC) $(ALL_LDFLAGS) $(BENCH_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# bench/collector: lrugend --ticks on a genroot fixture, shipping to a teststore;
# baseline measures what lrugend's libraries cost on their own
BENCH_BINS += $(O)/bench/collector_baseline $(O)/tests/tools/genroot $(O)/tests/tools/teststore
$(O)/bench/collector_baseline: $(O)/bench/collector/baseline.o
	$(call say,LINK,$@)mkdir -p $(@D) && $(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(NET_LIBS)

# bench/tui: lrugen-top's frame time in a pseudo-terminal (forkpty: -lutil)
BENCH_BINS += $(O)/bench/bench_tui
$(O)/bench/bench_tui: $(O)/bench/tui/bench_tui.o
	$(call say,LINK,$@)mkdir -p $(@D) && $(CC) $(ALL_LDFLAGS) -o $@ $^ -lutil

# bench/store: fleetsim plays 10,000 hosts against lrugen-store; bench_store
# inserts the same rows into sqlite directly (the limit)
BENCH_BINS += $(O)/bench/bench_store $(O)/tests/tools/fleetsim
$(O)/bench/bench_store: $(O)/bench/store/bench_store.o $(O)/store/rows.o $(SYNTH_OBJ) $(LIBA)
	$(call say,LINK,$@)mkdir -p $(@D) && $(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) \
		$(shell $(PKG_CONFIG) --libs sqlite3 2>/dev/null)

bench: $(BENCH_BINS) $(BINS)
	$(Q)O=$(O) bench/run

# lrugen beside DAMON (vaddr, paddr, DAMON_STAT, DAMON_RECLAIM, DAMOS pageout),
# idle page tracking, cAdvisor's formula and Senpai-style reclaim, under QEMU
# (bench/peers/run --help; BENCH_PEERS_KERNELS="6.12 7.3 patched")
bench-peers: all
	$(Q)O=$(O) bench/peers/run

# --- install -----------------------------------------------------------------
# liblrugen's public headers: reading MGLRU (model, parsers, interface, kernel
# files), working sets, accuracy warnings, aging and eviction commands, memcg
# selection, PSI, snapshots on the wire and in the spool, errors. The other
# lib/ headers (buffers, escaping, units, settings, saturating arithmetic,
# line cutting, the store's bounds and fleet rows) are what lrugen's own
# programs share, not an API, and are not installed. A public header may
# include only public headers (install checks).
PUBLIC_HEADERS := $(addprefix lib/,lru_err.h lru_model.h lru_parse.h lru_cgparse.h lru_iface.h \
	lru_sys.h lru_ws.h lru_warn.h lru_cmd.h lru_kwrite.h lru_select.h lru_psi.h lru_pb.h \
	lru_spool.h) $(PROTO_H)
# Where things go (GNU names; DESTDIR stages, as packagers do). The units,
# written from collector/lrugend.service.in and store/lrugen-store.service.in,
# name BINDIR, SYSCONFDIR and DATADIR. Configs are never installed: the
# samples (with example tokens) go to DATADIR/lrugen, the units wait for
# SYSCONFDIR/lrugend.conf and lrugen-store.conf. The four bash completion
# names are one script (links).
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
UNITS := collector/lrugend.service.in store/lrugen-store.service.in
INSTALLED := $(PROGRAMS:%=$(BINDIR)/%) $(LIBDIR)/$(notdir $(LIBA)) \
	$(addprefix $(INCLUDEDIR)/lrugen/,$(notdir $(PUBLIC_HEADERS))) \
	$(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	$(addprefix $(SYSTEMDUNITDIR)/,$(notdir $(UNITS:.in=))) \
	$(addprefix $(DATADIR)/lrugen/,$(notdir $(SAMPLES))) \
	$(PROGRAMS:%=$(BASHCOMPDIR)/%) $(ZSHCOMPDIR)/_lrugen

install: all
	$(Q)for h in $(PUBLIC_HEADERS); do \
		for i in $$(sed -n 's/^#include "\([^"]*\)".*/\1/p' $$h); do \
			case " $(notdir $(PUBLIC_HEADERS)) " in *" $$i "*) ;; \
			*) echo "install: public header $$h includes $$i, which is not public" >&2; exit 1;; esac; \
		done; done
	install -d $(sort $(dir $(addprefix $(DESTDIR),$(INSTALLED))))
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/lrugen/
	$(Q)for m in $(MAN_PAGES); do \
		echo "install -m 644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/"; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/ || exit 1; done
	$(Q)for u in $(UNITS); do \
		f=$(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u .in); echo "  UNIT    $$f"; \
		sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' \
			-e 's|@datadir@|$(DATADIR)|g' $$u >$$f && chmod 644 $$f || exit 1; done
	install -m 644 $(SAMPLES) $(DESTDIR)$(DATADIR)/lrugen/
	install -m 644 contrib/completion/lrugen.bash $(DESTDIR)$(BASHCOMPDIR)/lrugen
	$(Q)for p in $(filter-out lrugen,$(PROGRAMS)); do ln -sf lrugen $(DESTDIR)$(BASHCOMPDIR)/$$p; done
	install -m 644 contrib/completion/_lrugen $(DESTDIR)$(ZSHCOMPDIR)/_lrugen

# removes what install put there, and the directories of lrugen's own
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/lrugen $(DESTDIR)$(DATADIR)/lrugen 2>/dev/null

# everything built lives in O (with the default O=build: also make check's
# build/check and make fuzz's build/fuzz)
clean:
	$(Q)case "$(O)" in ""|/|.|./) echo "clean: refusing O='$(O)'" >&2; exit 1;; esac
	rm -rf $(O)

.PHONY: all tests check check-vm kernel try demo demo-host run-tests fuzz bench bench-peers install uninstall clean
.DEFAULT_GOAL := all
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
