# SPDX-License-Identifier: GPL-2.0-only
#
# rds_doca: kernel module, tools and tests.
#
#   make                 module (for KDIR) and userspace programs
#   make KDIR=/path      module for another kernel tree
#   make modules-all     module for every Debian kernel the tests boot
#   make check           everything, tested in VMs (see README)
#   make demo            a short demonstration in a VM
#   make bench           rds_doca against Linux RDS (loopback), and against
#                        rds_rdma and raw verbs over Soft-RoCE, in one VM boot
#   make install         install rdsctl (DESTDIR, PREFIX as usual)
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

.PHONY: all module modules-all tools tests clean check demo bench deps \
	install

all: module tools tests

module:
	@test -n "$(KVER)" || { echo "no kernel tree at KDIR='$(KDIR)': set KDIR or run scripts/install-deps.sh" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@rm -rf $(BUILD)/net $(BUILD)/include $(BUILD)/tests
	@mkdir -p $(BUILD)/tests
	@cp -rs $(CURDIR)/net $(CURDIR)/include $(BUILD)/
	@cp -rs $(CURDIR)/tests/kunit $(BUILD)/tests/
	@cp -rs $(CURDIR)/tests/dma $(BUILD)/tests/
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
	$(MAKE) -C tools/rds-bench
	$(MAKE) -C tools/rds-demo
	$(MAKE) -C tools/rdsctl

install:
	$(MAKE) -C tools/rdsctl install

tests:
	$(MAKE) -C tests/userspace

deps:
	scripts/install-deps.sh

clean:
	rm -rf build
	-$(MAKE) -C tools/rds-bench clean
	-$(MAKE) -C tools/rds-demo clean
	-$(MAKE) -C tools/rdsctl clean
	-$(MAKE) -C tests/userspace clean

# The 6.12 kernel the demo and the benchmark boot.
KVER_612 = $(shell . $(RDSD_CACHE)/kernels.env 2>/dev/null && echo $$KVER_612)

check:
	tests/check.sh

demo: deps
	$(MAKE) module KDIR=/usr/src/linux-headers-$(KVER_612)
	$(MAKE) -C tools/rds-demo
	$(MAKE) -C tools/rdsctl
	tests/vm/run --kernel $(KVER_612) -- tools/rds-demo/demo.sh build/$(KVER_612)/rds_doca.ko

bench: deps
	$(MAKE) module KDIR=/usr/src/linux-headers-$(KVER_612)
	$(MAKE) tools
	tests/vm/run --kernel $(KVER_612) --append idle=poll --timeout 3000 \
		--rw $(CURDIR)/build -- \
		tools/rds-bench/bench-vm.sh build/$(KVER_612)/rds_doca.ko
