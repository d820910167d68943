// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsctl's output layer, JSON or text (see printer.h).
 *
 * JSON is written as it comes.  Text is collected: the values of a
 * top-level object are kept as cells of a record, and the records of a
 * list as rows of a table, so that columns can be aligned once every
 * width is known.
 */
#define _GNU_SOURCE		/* vasprintf */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

#define PR_MAX_DEPTH	8

enum text_layout {
	LAYOUT_BLOCK,	/* one "key value" line per value */
	LAYOUT_LINE,	/* "key value" pairs on one line */
	LAYOUT_ROW,	/* a row of the current table */
};

/* A text cell: a keyed value, or free text when key is NULL. */
struct cell {
	char *key;
	char *val;
};

struct record {
	struct cell *cells;
	size_t n, cap;
};

static struct {
	FILE *out;
	bool json;
	bool pretty;
	bool saved_pretty;

	/* JSON: one entry per open object or array */
	struct {
		bool array;
		unsigned int count;
	} stack[PR_MAX_DEPTH];
	int depth;

	/* text */
	enum text_layout layout;
	bool in_list;
	int text_depth;		/* objects open, nested ones included */
	struct cell *array;	/* cell collecting an array's values */
	struct record rec;	/* the top-level object being collected */
	struct record *rows;	/* the table being collected */
	size_t nrows, caprows;
} pr;

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fputs("rdsctl: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xrealloc(NULL, len), s, len);
}

void pr_init(FILE *out, bool json, bool pretty)
{
	memset(&pr, 0, sizeof(pr));
	pr.out = out;
	pr.json = json;
	pr.pretty = pretty;
}

bool pr_is_json(void)
{
	return pr.json;
}

/* JSON */

static void json_indent(void)
{
	if (pr.pretty)
		fprintf(pr.out, "\n%*s", 2 * pr.depth, "");
}

static void json_string(const char *s)
{
	const unsigned char *p;

	fputc('"', pr.out);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", pr.out);
			break;
		case '\\':
			fputs("\\\\", pr.out);
			break;
		case '\b':
			fputs("\\b", pr.out);
			break;
		case '\f':
			fputs("\\f", pr.out);
			break;
		case '\n':
			fputs("\\n", pr.out);
			break;
		case '\r':
			fputs("\\r", pr.out);
			break;
		case '\t':
			fputs("\\t", pr.out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(pr.out, "\\u%04x", *p);
			else
				fputc(*p, pr.out);
		}
	}
	fputc('"', pr.out);
}

/* Separator, indentation and key before a value or a container. */
static void json_member(const char *key)
{
	if (pr.depth) {
		if (pr.stack[pr.depth - 1].count++)
			fputc(',', pr.out);
		json_indent();
		if (!pr.stack[pr.depth - 1].array) {
			json_string(key ? key : "");
			fputs(pr.pretty ? ": " : ":", pr.out);
		}
	}
}

static void json_open(const char *key, bool array)
{
	json_member(key);
	fputc(array ? '[' : '{', pr.out);
	if (pr.depth == PR_MAX_DEPTH) {
		fputs("rdsctl: output nested too deep\n", stderr);
		exit(1);
	}
	pr.stack[pr.depth].array = array;
	pr.stack[pr.depth].count = 0;
	pr.depth++;
}

static void json_close(void)
{
	bool array;

	if (!pr.depth)
		return;
	pr.depth--;
	array = pr.stack[pr.depth].array;
	if (pr.stack[pr.depth].count)
		json_indent();
	fputc(array ? ']' : '}', pr.out);
	if (!pr.depth) {
		fputc('\n', pr.out);
		fflush(pr.out);
	}
}

/* text */

static void rec_add(struct record *r, const char *key, const char *val)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->cells = xrealloc(r->cells, r->cap * sizeof(*r->cells));
	}
	r->cells[r->n].key = key ? xstrdup(key) : NULL;
	r->cells[r->n].val = xstrdup(val);
	r->n++;
}

static void rec_free(struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->cells[i].key);
		free(r->cells[i].val);
	}
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

static void text_value(const char *key, const char *val)
{
	size_t len;

	if (pr.array) {
		len = strlen(pr.array->val);
		pr.array->val = xrealloc(pr.array->val, len + strlen(val) + 2);
		sprintf(pr.array->val + len, "%s%s", len ? "," : "", val);
		return;
	}
	if (pr.text_depth)
		rec_add(&pr.rec, key, val);
	else if (key)
		fprintf(pr.out, "%s %s\n", key, val);
	else
		fprintf(pr.out, "%s\n", val);
}

static const char *cell_key(const struct cell *c)
{
	return c->key ? c->key : "";
}

static void print_block(const struct record *r)
{
	size_t i;
	int w = 0;

	for (i = 0; i < r->n; i++)
		if (r->cells[i].key && (int)strlen(r->cells[i].key) > w)
			w = strlen(r->cells[i].key);
	for (i = 0; i < r->n; i++) {
		if (r->cells[i].key)
			fprintf(pr.out, "%-*s %s\n", w, r->cells[i].key,
				r->cells[i].val);
		else
			fprintf(pr.out, "%s\n", r->cells[i].val);
	}
}

static void print_line(const struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (i)
			fputc(' ', pr.out);
		if (r->cells[i].key)
			fprintf(pr.out, "%s ", r->cells[i].key);
		fputs(r->cells[i].val, pr.out);
	}
	fputc('\n', pr.out);
	fflush(pr.out);
}

/* The header is made of the first row's keys; rows share their keys. */
static void print_table(void)
{
	const struct record *head;
	size_t ncols, i, c;
	const char *k;
	int *w;

	if (!pr.nrows)
		return;
	head = &pr.rows[0];
	ncols = head->n;
	w = xrealloc(NULL, (ncols + 1) * sizeof(*w));
	for (c = 0; c < ncols; c++)
		w[c] = strlen(cell_key(&head->cells[c]));
	for (i = 0; i < pr.nrows; i++)
		for (c = 0; c < ncols && c < pr.rows[i].n; c++)
			if ((int)strlen(pr.rows[i].cells[c].val) > w[c])
				w[c] = strlen(pr.rows[i].cells[c].val);

	for (c = 0; c < ncols; c++) {
		k = cell_key(&head->cells[c]);
		if (c)
			fputc(' ', pr.out);
		for (i = 0; k[i]; i++)
			fputc(toupper((unsigned char)k[i]), pr.out);
		if (c + 1 < ncols)
			fprintf(pr.out, "%*s", w[c] - (int)i, "");
	}
	fputc('\n', pr.out);

	for (i = 0; i < pr.nrows; i++) {
		for (c = 0; c < pr.rows[i].n; c++) {
			if (c)
				fputc(' ', pr.out);
			if (c + 1 < pr.rows[i].n && c < ncols)
				fprintf(pr.out, "%-*s", w[c],
					pr.rows[i].cells[c].val);
			else
				fputs(pr.rows[i].cells[c].val, pr.out);
		}
		fputc('\n', pr.out);
		rec_free(&pr.rows[i]);
	}
	free(w);
	free(pr.rows);
	pr.rows = NULL;
	pr.nrows = pr.caprows = 0;
}

static void text_obj_start(enum text_layout layout)
{
	if (!pr.text_depth++) {
		pr.layout = layout;
		memset(&pr.rec, 0, sizeof(pr.rec));
	}
}

static void text_obj_end(void)
{
	if (!pr.text_depth || --pr.text_depth)
		return;
	switch (pr.layout) {
	case LAYOUT_ROW:
		if (pr.nrows == pr.caprows) {
			pr.caprows = pr.caprows ? 2 * pr.caprows : 16;
			pr.rows = xrealloc(pr.rows,
					   pr.caprows * sizeof(*pr.rows));
		}
		pr.rows[pr.nrows++] = pr.rec;
		memset(&pr.rec, 0, sizeof(pr.rec));
		return;
	case LAYOUT_LINE:
		print_line(&pr.rec);
		break;
	case LAYOUT_BLOCK:
		print_block(&pr.rec);
		break;
	}
	rec_free(&pr.rec);
}

/* structure */

void pr_list_start(void)
{
	if (pr.json)
		json_open(NULL, true);
	else
		pr.in_list = true;
}

void pr_list_end(void)
{
	if (pr.json) {
		json_close();
		return;
	}
	print_table();
	pr.in_list = false;
	fflush(pr.out);
}

void pr_line_start(void)
{
	if (pr.json) {
		/* one object per line, even when pretty-printing */
		pr.saved_pretty = pr.pretty;
		pr.pretty = false;
		json_open(NULL, false);
	} else {
		text_obj_start(LAYOUT_LINE);
	}
}

void pr_line_end(void)
{
	if (pr.json) {
		json_close();
		pr.pretty = pr.saved_pretty;
	} else {
		text_obj_end();
	}
}

void pr_obj_start(const char *key)
{
	if (pr.json)
		json_open(key, false);
	else
		text_obj_start(pr.in_list ? LAYOUT_ROW : LAYOUT_BLOCK);
}

void pr_obj_end(void)
{
	if (pr.json)
		json_close();
	else
		text_obj_end();
}

void pr_array_start(const char *key)
{
	if (pr.json) {
		json_open(key, true);
		return;
	}
	if (pr.array)
		return;
	text_value(key, "");
	if (pr.text_depth)
		pr.array = &pr.rec.cells[pr.rec.n - 1];
}

void pr_array_end(void)
{
	if (pr.json) {
		json_close();
		return;
	}
	if (pr.array && !*pr.array->val) {
		free(pr.array->val);
		pr.array->val = xstrdup("-");
	}
	pr.array = NULL;
}

/* values */

/* A number, written the same way as JSON and as text. */
static void pr_number(const char *key, const char *num)
{
	if (pr.json) {
		json_member(key);
		fputs(num, pr.out);
	} else {
		text_value(key, num);
	}
}

void pr_u64(const char *key, uint64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	pr_number(key, buf);
}

void pr_s64(const char *key, int64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, val);
	pr_number(key, buf);
}

void pr_hex64(const char *key, uint64_t val)
{
	char buf[24];

	if (pr.json) {
		pr_u64(key, val);
		return;
	}
	snprintf(buf, sizeof(buf), "0x%016" PRIx64, val);
	text_value(key, buf);
}

void pr_float(const char *key, double val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.3f", val);
	pr_number(key, buf);
}

void pr_str(const char *key, const char *val)
{
	if (pr.json) {
		json_member(key);
		json_string(val);
	} else {
		text_value(key, val);
	}
}

void pr_bool(const char *key, bool val)
{
	if (pr.json) {
		json_member(key);
		fputs(val ? "true" : "false", pr.out);
	} else {
		text_value(key, val ? "yes" : "no");
	}
}

void pr_addr(const char *key, const struct in6_addr *addr)
{
	char buf[INET6_ADDRSTRLEN];

	if (IN6_IS_ADDR_V4MAPPED(addr))
		inet_ntop(AF_INET, &addr->s6_addr32[3], buf, sizeof(buf));
	else
		inet_ntop(AF_INET6, addr, buf, sizeof(buf));
	pr_str(key, buf);
}

void pr_none(const char *key)
{
	if (!pr.json)
		text_value(key, "-");
}

void pr_text(const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (pr.json)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	if (pr.text_depth)
		rec_add(&pr.rec, NULL, s);
	else
		fputs(s, pr.out);
	free(s);
}
