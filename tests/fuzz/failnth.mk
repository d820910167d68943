# SPDX-License-Identifier: GPL-2.0
#
# rds_failnth, the injected-failure walker (tests/fuzz/rds_failnth.c).
# Meant to be included by tests/fuzz/Makefile; works on its own too:
#
#	make -f tests/fuzz/failnth.mk		# builds $(FAILNTH_BIN)
#	make -f tests/fuzz/failnth.mk failnth-clean
#
# The program lands in build/fuzz/ at the top of the tree (FAILNTH_BIN),
# out of the source directories.  Every name here starts with FAILNTH_ or
# failnth, so an including Makefile keeps its own.

FAILNTH_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
FAILNTH_TOP := $(abspath $(FAILNTH_DIR)/../..)
FAILNTH_BIN ?= $(FAILNTH_TOP)/build/fuzz/rds_failnth

FAILNTH_CC ?= $(CC)
FAILNTH_CFLAGS ?= -O2 -g
FAILNTH_CFLAGS += -Wall -Wextra -Werror -pthread \
		  -I$(FAILNTH_TOP)/include/uapi -I$(FAILNTH_TOP)/tools/include \
		  -I$(FAILNTH_TOP)/tests/userspace
FAILNTH_SRCS := $(FAILNTH_DIR)/rds_failnth.c \
		$(FAILNTH_TOP)/tests/userspace/selftest.c
FAILNTH_HDRS := $(FAILNTH_TOP)/tests/userspace/tap.h \
		$(FAILNTH_TOP)/tests/userspace/rds_util.h \
		$(FAILNTH_TOP)/include/uapi/linux/rds_doca.h \
		$(FAILNTH_TOP)/tools/include/rds_doca_user.h

failnth: $(FAILNTH_BIN)

$(FAILNTH_BIN): $(FAILNTH_SRCS) $(FAILNTH_HDRS)
	@mkdir -p $(dir $@)
	$(FAILNTH_CC) $(FAILNTH_CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o $@ \
		$(FAILNTH_SRCS) -pthread

failnth-clean:
	rm -f $(FAILNTH_BIN)

.PHONY: failnth failnth-clean
