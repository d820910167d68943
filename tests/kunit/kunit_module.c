// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca_kunit: the KUnit suites of rds_doca, one file per file tested
 * (bind_test.c tests bind.c, and so on), in one module.
 *
 * Built only against a kernel with CONFIG_KUNIT; rds_doca exports its
 * internals to this module with EXPORT_SYMBOL_IF_KUNIT.  Suites that need
 * sockets create real kernel sockets of the registered family in the
 * initial namespace and use addresses in 127.77/16 that nothing else uses.
 */
#include <linux/module.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit suites for rds_doca");
MODULE_LICENSE("GPL");
