// SPDX-License-Identifier: GPL-2.0
/*
 * The state every selftest program shares between its files: the TAP
 * counters of tap.h and the command line's configuration of rds_util.h.
 * Linked into each program once.
 */
#include "rds_util.h"

pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned int tap_count;
unsigned int tap_passed;
unsigned int tap_failed;
char tap_prefix[256];

struct rds_cfg cfg;
