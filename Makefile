# SPDX-License-Identifier: GPL-2.0-only
#
# rds_doca: kernel module, tools and tests.
#
#   make                 module (for KDIR) and userspace programs
#   make KDIR=/path      module for another kernel tree
#   make modules-all     module for every Debian kernel the tests boot
#   make check           everything, tested in VMs (see README); first
#                        make check-docs: every errno and option in the
#                        tables of Documentation/rds_doca.rst is tested
#   make demo            a short demonstration in a VM
#   make fuzz            the long fuzzing campaigns on the debug kernel
#                        (FUZZ_CALLS trinity calls and as many rds_fuzz
#                        operations per transport, 1,000,000 by default;
#                        FUZZ_SEED; about 85 minutes)
#   make soak            two VMs exchange messages and RDMA operations for
#                        SOAK_SECS seconds (600) while links flap, rxe goes
#                        and comes back and the module reloads; on the
#                        debug kernel, or Debian's with SOAK_KERNEL=stock
#   make check-dkms      "make dkms-install", modprobe and "make
#                        dkms-remove" in a VM (DKMS compiles under TCG:
#                        about 8 minutes); make check only has DKMS build
#                        the module on the host
#   make coverage        line and function coverage of net/rds_doca/ by the
#                        debug suite, per file (lcov; build/coverage/html)
#   make bench           rds_doca against Linux RDS (loopback), and against
#                        rds_rdma and raw verbs over Soft-RoCE, in one VM boot
#   make install         install the module (into /lib/modules/<release>/
#                        updates, then depmod), <linux/rds_doca.h>, rdsctl,
#                        the man pages, the bash completion and
#                        /etc/modprobe.d/rds_doca.conf (DESTDIR, PREFIX as
#                        usual; with DESTDIR, depmod is left to the package)
#   make uninstall       remove all of that again
#   make dkms-install    register the sources with DKMS, which builds and
#                        installs the module for KVER and for every kernel
#                        installed later
#   make dkms-remove     remove it from DKMS, every kernel
#
# Modules are built in build/<kernel release>/, one directory per kernel,
# so builds for several kernels never share objects.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build \
			       /usr/src/linux-headers-6.12.*-amd64))
KVER = $(shell sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
BUILD = build/$(KVER)
RDSD_CACHE ?= $(HOME)/.cache/rds_doca

# W=1 and C=1 may be given on the command line; they reach Kbuild as is.
KBUILD_FLAGS = $(if $(W),W=$(W)) $(if $(C),C=$(C))

.PHONY: all module modules-all tools tests clean check check-full demo \
	bench fuzz soak coverage deps install uninstall install-module \
	uninstall-module dkms-install dkms-remove dkms-source check-docs \
	check-dkms

all: module tools tests

module:
	@scripts/check-build-deps.sh module "$(KDIR)"
	@test -n "$(KVER)" || { echo "no kernel tree at KDIR='$(KDIR)': set KDIR or run scripts/install-deps.sh" >&2; exit 1; }
	@# the links are refreshed in place, so objects of unchanged sources stay
	@mkdir -p $(BUILD)/tests
	@cp -rs --remove-destination $(CURDIR)/net $(CURDIR)/include $(BUILD)/
	@cp -rs --remove-destination $(CURDIR)/tests/kunit $(CURDIR)/tests/dma $(BUILD)/tests/
	@find $(BUILD)/net $(BUILD)/include $(BUILD)/tests -xtype l -delete
	@ln -sf $(CURDIR)/Kbuild $(BUILD)/Kbuild
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) $(KBUILD_FLAGS) modules
	@cp $(BUILD)/net/rds_doca/rds_doca.ko $(BUILD)/rds_doca.ko
	@if [ -f $(BUILD)/tests/kunit/rds_doca_kunit.ko ]; then cp $(BUILD)/tests/kunit/rds_doca_kunit.ko $(BUILD)/; fi
	@cp $(BUILD)/tests/dma/rdsd_test_dma.ko $(BUILD)/

modules-all:
	. $(RDSD_CACHE)/kernels.env && \
	for v in $$KVER_612 $$KVER_61; do \
		$(MAKE) module KDIR=/usr/src/linux-headers-$$v $(KBUILD_FLAGS) || exit 1; \
	done

tools:
	@scripts/check-build-deps.sh tools
	$(MAKE) -C tools/rds-bench
	$(MAKE) -C tools/rds-demo
	$(MAKE) -C tools/rdsctl

# Installation.  The module goes where the kernel's module tools look
# first (updates/), whatever PREFIX; the rest under PREFIX, except the
# modprobe settings, which belong in SYSCONFDIR.  KO installs a module
# built elsewhere (its release must be KVER's); by default the module of
# BUILD, built first when it is missing or older than its sources.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
INCLUDEDIR = $(PREFIX)/include
MANDIR = $(PREFIX)/share/man
DOCDIR = $(PREFIX)/share/doc/rds_doca
MODDIR = /lib/modules/$(KVER)/updates
KO ?= $(BUILD)/rds_doca.ko
MODULE_SOURCES = $(wildcard Kbuild net/rds_doca/*.[ch] include/uapi/linux/*.h)

$(BUILD)/rds_doca.ko: $(MODULE_SOURCES)
	$(MAKE) module

install-module: $(KO)
	@test -n "$(KVER)" || { echo "no kernel tree at KDIR='$(KDIR)': set KDIR" >&2; exit 1; }
	install -D -m 0644 $(KO) $(DESTDIR)$(MODDIR)/rds_doca.ko
	$(if $(DESTDIR),@echo "DESTDIR set: run depmod $(KVER) once the module is in place",depmod -a $(KVER))

install: install-module
	$(MAKE) -C tools/rdsctl install PREFIX=$(PREFIX)
	install -D -m 0644 include/uapi/linux/rds_doca.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/rds_doca.h
	install -D -m 0644 Documentation/man/rds_doca.7 \
		$(DESTDIR)$(MANDIR)/man7/rds_doca.7
	install -D -m 0644 scripts/rds_doca.modules-load.conf \
		$(DESTDIR)$(DOCDIR)/modules-load.d/rds_doca.conf
	@# an administrator's edited settings are kept
	@conf=$(DESTDIR)$(SYSCONFDIR)/modprobe.d/rds_doca.conf; \
	if [ -e $$conf ]; then \
		echo "keeping $$conf"; \
	else \
		echo "install $$conf"; \
		mkdir -p $$(dirname $$conf) && \
		sed 's|@DOCDIR@|$(DOCDIR)|' scripts/rds_doca.modprobe.conf >$$conf && \
		chmod 0644 $$conf; \
	fi

uninstall-module:
	@test -n "$(KVER)" || { echo "no kernel tree at KDIR='$(KDIR)': set KDIR" >&2; exit 1; }
	rm -f $(DESTDIR)$(MODDIR)/rds_doca.ko
	$(if $(DESTDIR),,depmod -a $(KVER))

uninstall: uninstall-module
	rm -f $(DESTDIR)$(PREFIX)/sbin/rdsctl \
		$(DESTDIR)$(MANDIR)/man8/rdsctl.8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/rdsctl \
		$(DESTDIR)$(INCLUDEDIR)/linux/rds_doca.h \
		$(DESTDIR)$(MANDIR)/man7/rds_doca.7 \
		$(DESTDIR)$(DOCDIR)/modules-load.d/rds_doca.conf \
		$(DESTDIR)$(SYSCONFDIR)/modprobe.d/rds_doca.conf
	-rmdir $(DESTDIR)$(DOCDIR)/modules-load.d $(DESTDIR)$(DOCDIR) 2>/dev/null

# DKMS: the sources in /usr/src/rds_doca-<version>, built by dkms for KVER
# now and for every kernel installed later.
DKMS_VERSION = $(shell sed -n 's/^\#define RDSD_VERSION[[:space:]]*"\(.*\)"/\1/p' net/rds_doca/rdsd.h)
DKMS_SRC = /usr/src/rds_doca-$(DKMS_VERSION)

dkms-install:
	@command -v dkms >/dev/null || { echo "dkms is missing: apt-get install dkms (or run scripts/install-deps.sh)" >&2; exit 1; }
	@test -n "$(KVER)" || { echo "no kernel tree at KDIR='$(KDIR)': set KDIR or install linux-headers-$$(uname -r)" >&2; exit 1; }
	@# a previous registration of this version goes first
	@dkms remove rds_doca/$(DKMS_VERSION) --all >/dev/null 2>&1 || true
	$(MAKE) -s dkms-source
	dkms add rds_doca/$(DKMS_VERSION)
	dkms build rds_doca/$(DKMS_VERSION) -k $(KVER)
	dkms install rds_doca/$(DKMS_VERSION) -k $(KVER)

# The sources as DKMS builds them, in DKMS_SRC.
dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/tests
	cp -r Kbuild Makefile net include scripts $(DKMS_SRC)/
	cp -r tests/kunit tests/dma $(DKMS_SRC)/tests/
	sed 's/@VERSION@/$(DKMS_VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf

dkms-remove:
	-dkms remove rds_doca/$(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

tests:
	$(MAKE) -C tests/userspace
	$(MAKE) -C tests/compat
	$(MAKE) -C tests/fuzz

deps:
	scripts/install-deps.sh

clean:
	rm -rf build
	-$(MAKE) -C tools/rds-bench clean
	-$(MAKE) -C tools/rds-demo clean
	-$(MAKE) -C tools/rdsctl clean
	-$(MAKE) -C tests/userspace clean
	-$(MAKE) -C tests/compat clean
	-$(MAKE) -C tests/fuzz clean

# The 6.12 kernel the demo and the benchmark boot.
KVER_612 = $(shell . $(RDSD_CACHE)/kernels.env 2>/dev/null && echo $$KVER_612)

# The cheap checks first: every errno and option the tables of
# Documentation/rds_doca.rst name is exercised by some test.
check: check-docs
	tests/check.sh

# Everything make check leaves out to stay within its hour: every suite on
# every kernel, the two-host suites on each, the debug kernel's slices of
# trinity, rds_fuzz and fail-nth.
check-full: check-docs
	RDSD_FULL=1 tests/check.sh

check-docs:
	scripts/check-doc-tests.py -q

demo: deps
	$(MAKE) module KDIR=/usr/src/linux-headers-$(KVER_612)
	$(MAKE) -C tools/rds-demo
	$(MAKE) -C tools/rdsctl
	tests/vm/run --kernel $(KVER_612) -- tools/rds-demo/demo.sh build/$(KVER_612)/rds_doca.ko

coverage:
	tests/coverage.sh

check-dkms: deps
	$(MAKE) module KDIR=/usr/src/linux-headers-$(KVER_612)
	$(MAKE) tools
	tests/vm/run --kernel $(KVER_612) --timeout 1800 -- \
		tests/userspace/run.sh --ko build/$(KVER_612)/rds_doca.ko \
		--stage dkms

FUZZ_CALLS ?= 1000000
fuzz:
	tests/fuzz/campaign.sh $(FUZZ_CALLS) $(FUZZ_SEED)

SOAK_SECS ?= 600
SOAK_KERNEL ?= debug
soak:
	$(MAKE) -C tests/soak
	SOAK_SECS=$(SOAK_SECS) SOAK_KERNEL=$(SOAK_KERNEL) tests/soak/soak.sh

bench: deps
	$(MAKE) module KDIR=/usr/src/linux-headers-$(KVER_612)
	$(MAKE) tools
	tests/vm/run --kernel $(KVER_612) --append idle=poll --timeout 3000 \
		--rw $(CURDIR)/build -- \
		tools/rds-bench/bench-vm.sh build/$(KVER_612)/rds_doca.ko
