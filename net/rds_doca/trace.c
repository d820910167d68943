// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca: the tracepoints of trace.h, defined once for the module.
 */

#define CREATE_TRACE_POINTS
#include "trace.h"
