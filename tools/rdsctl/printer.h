/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One output layer for rdsctl's text and JSON output.
 *
 * Object printers describe what they print once, as keyed values inside
 * objects, lists and arrays; the printer turns that into JSON, or into
 * text laid out to suit the context:
 *
 *   pr_list_start() .. pr_list_end()	JSON array of objects; text: a table,
 *					one row per object, columns aligned,
 *					a header made of the upper-cased keys
 *   pr_obj_start(NULL) at top level	JSON object; text: one "key value"
 *					line per value, values aligned
 *   pr_line_start() .. pr_line_end()	JSON object on one line; text: one
 *					line of "key value" pairs; both are
 *					flushed at once (event streams)
 *
 * In text, nested objects are flattened and arrays are joined with
 * commas.  pr_none() stands for a value that is missing: "-" in text,
 * nothing in JSON.
 */
#ifndef RDSCTL_PRINTER_H
#define RDSCTL_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void pr_init(FILE *out, bool json, bool pretty);
bool pr_is_json(void);

void pr_list_start(void);
void pr_list_end(void);
void pr_line_start(void);
void pr_line_end(void);
void pr_obj_start(const char *key);
void pr_obj_end(void);
void pr_array_start(const char *key);
void pr_array_end(void);

/* key is ignored, and may be NULL, inside an array. */
void pr_u64(const char *key, uint64_t val);
void pr_s64(const char *key, int64_t val);
void pr_hex64(const char *key, uint64_t val);	/* text: 0x%016llx */
void pr_float(const char *key, double val);	/* three decimals */
void pr_str(const char *key, const char *val);
void pr_bool(const char *key, bool val);	/* text: yes/no */
void pr_addr(const char *key, const struct in6_addr *addr); /* IPv4-mapped: IPv4 */
void pr_none(const char *key);

/* Free text: printed as is in text mode, dropped in JSON. */
void pr_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* RDSCTL_PRINTER_H */
