// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: small helpers.
 */
#include "bench.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

uint64_t sec2ns(double s)
{
	return (uint64_t)(s * 1e9);
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC), (long)(ns % NSEC) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, PROG ": out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

bool stopping(void)
{
	return atomic_load_explicit(&shm->stop, memory_order_relaxed);
}

void beat(uint64_t now)
{
	atomic_store_explicit(&shm->heartbeat, now, memory_order_relaxed);
}

/* A failure during a run: print it, mark the run failed, stop every end. */
void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s\n", buf);
	atomic_store(&shm->failed, 1);
	atomic_store(&shm->stop, 1);
}

const char *family_name(int fam)
{
	switch (fam) {
	case AF_RDS:
		return "AF_RDS";
	case AF_INET_OFFLOAD:
		return "AF_INET_OFFLOAD";
	default:
		return "family";
	}
}

const char *socket_hint(int e)
{
	switch (e) {
	case EAFNOSUPPORT:
		return "no module has registered this address family: load it first "
		       "(rds_doca: insmod rds_doca.ko [family=N]; Linux RDS: "
		       "modprobe rds rds_tcp), or pick another one with --family";
	case EPROTONOSUPPORT:
	case ESOCKTNOSUPPORT:
	case EINVAL:
		return "the family exists but refuses SOCK_SEQPACKET sockets: "
		       "it is probably not an RDS family";
	case EPERM:
	case EACCES:
		return "not permitted (run as root?)";
	default:
		return NULL;
	}
}

const char *bind_hint(int e)
{
	switch (e) {
	case EADDRNOTAVAIL:
		return "no transport accepts this address: Linux RDS needs "
		       "'modprobe rds_tcp' for IP addresses (or an RDMA device "
		       "owning the address); rds_doca needs the address on a "
		       "device it serves";
	case EADDRINUSE:
		return "address and port already in use";
	case EINVAL:
		return "address refused (already bound, or not an IPv4 address "
		       "the family accepts)";
	case ENOPROTOOPT:
		return "the transport chosen with --transport is not loaded or "
		       "does not accept this address (Linux RDS: rds_rdma for 0, "
		       "rds_tcp for 2)";
	default:
		return NULL;
	}
}

const char *send_hint(int e)
{
	switch (e) {
	case EMSGSIZE:
		return "message larger than the socket allows: RDS limits a message "
		       "to 1 MiB and to half of SO_SNDBUF; raise --sndbuf (needs "
		       "root or net.core.wmem_max)";
	case ENOTCONN:
		return "socket not bound";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ECONNREFUSED:
	case ECONNRESET:
		return "no path to the destination (transport not loaded or "
		       "connection failed)";
	default:
		return NULL;
	}
}

void describe(char *out, size_t len, const char *what, int e,
	      const char *hint)
{
	if (hint)
		snprintf(out, len, "%s: %s (%s)", what, strerror(e), hint);
	else
		snprintf(out, len, "%s: %s", what, strerror(e));
}
