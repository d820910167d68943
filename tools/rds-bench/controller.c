// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: controller.
 */
#include "bench.h"


static void *passive_thread(void *arg)
{
	(void)arg;
	run_passive();
	return NULL;
}

static void *active_thread(void *arg)
{
	struct end *e = arg;

	run_active(e->dport);
	return NULL;
}

/*
 * Enter the network namespace @name (/run/netns/@name); NULL: the one
 * @home_fd holds (-1: stay).  Returns 0 or -1 with a message.
 */
static int enter_netns(const char *name, int home_fd)
{
	char path[PATH_MAX];
	int fd = home_fd, ret;

	if (!name && home_fd < 0)
		return 0;
	if (name) {
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} else {
		snprintf(path, sizeof(path), "the starting namespace");
	}
	ret = fd < 0 ? -1 : setns(fd, CLONE_NEWNET);
	if (ret < 0)
		fprintf(stderr, PROG ": network namespace %s: %s\n", path,
			strerror(errno));
	if (name && fd >= 0)
		close(fd);
	return ret;
}

/*
 * The namespace this process started in, when an end runs elsewhere: an
 * open fd, -1 when no end does, -2 on error (said).
 */
static int netns_home(void)
{
	int fd;

	if (!cfg.netns_active && !cfg.netns_passive)
		return -1;
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": /proc/self/ns/net: %s\n", strerror(errno));
		return -2;
	}
	return fd;
}

static int start_end(struct end *e, bool active)
{
	e->running = false;
	if (cfg.inproc) {
		int r = pthread_create(&e->th, NULL,
				       active ? active_thread : passive_thread, e);
		if (r) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(r));
			return -1;
		}
		e->running = true;
		return 0;
	}
	fflush(NULL);
	e->pid = fork();
	if (e->pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (e->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(go_pipe[1]);
		close(report_pipe[0]);
		if (enter_netns(active ? cfg.netns_active : cfg.netns_passive, -1))
			_exit(1);
		if (active)
			run_active(e->dport);
		else
			run_passive();
		_exit(atomic_load(&shm->failed) ? 1 : 0);
	}
	e->running = true;
	return 0;
}

/* Has the end finished?  Reaps it if so. */
static bool end_finished(struct end *e)
{
	if (!e->running)
		return true;
	if (cfg.inproc) {
		if (pthread_tryjoin_np(e->th, NULL) == 0)
			e->running = false;
	} else {
		int st = 0;
		pid_t r = waitpid(e->pid, &st, WNOHANG);

		if (r == e->pid || (r < 0 && errno == ECHILD)) {
			e->running = false;
			e->status = st;
			if (r == e->pid && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
				fprintf(stderr, PROG ": %s process killed by signal %d\n",
					e->name, WTERMSIG(st));
				atomic_store(&shm->failed, 1);
			}
		}
	}
	return !e->running;
}

static void end_signal(struct end *e, int sig)
{
	if (!e->running)
		return;
	if (cfg.inproc)
		pthread_kill(e->th, sig);
	else
		kill(e->pid, sig);
}

/*
 * Stop an end: it has STOP_GRACE to notice shm->stop (nudged with SIGUSR1),
 * then a process gets SIGKILL.  Returns false if it could not be stopped.
 */
static bool end_stop(struct end *e)
{
	const char *name = e->name;
	uint64_t deadline = now_ns() + STOP_GRACE;

	atomic_store(&shm->stop, 1);
	while (!end_finished(e)) {
		if (now_ns() >= deadline) {
			if (cfg.inproc) {
				fprintf(stderr, PROG ": %s threads did not stop\n", name);
				return false;
			}
			fprintf(stderr, PROG ": %s process did not stop; killing it\n",
				name);
			kill(e->pid, SIGKILL);
			waitpid(e->pid, NULL, 0);
			e->running = false;
			return false;
		}
		end_signal(e, SIGUSR1);
		sleep_ns(20 * MSEC);
	}
	return true;
}

/* Read the setup reports of one end; false if any is an error. */
static bool collect_reports(struct end *e, int want, uint16_t *port)
{
	uint64_t deadline = now_ns() + sec2ns(cfg.timeout) + 5 * NSEC;
	int got = 0;
	bool ok = true;

	while (got < want) {
		struct report r;
		uint64_t now = now_ns();
		ssize_t n;

		if (interrupted)
			return false;
		if (now >= deadline) {
			fprintf(stderr, PROG ": %s end did not report its setup in time\n",
				e->name);
			return false;
		}
		if (wait_fd(report_pipe[0], POLLIN, 50 * MSEC) <= 0) {
			if (end_finished(e)) {
				/* it may have written before exiting */
				if (wait_fd(report_pipe[0], POLLIN, 0) > 0)
					continue;
				fprintf(stderr, PROG ": %s end exited during setup\n",
					e->name);
				return false;
			}
			continue;
		}
		n = read(report_pipe[0], &r, sizeof(r));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(r)) {
			fprintf(stderr, PROG ": setup report pipe broken\n");
			return false;
		}
		got++;
		if (!r.ok && !r.who && atomic_load(&shm->unsupported)) {
			ok = false;	/* reported as "unsupported" */
		} else if (!r.ok) {
			if (r.who && cfg.threads * cfg.sockets > 1)
				fprintf(stderr, PROG ": %s end, socket %d: %s\n",
					e->name, r.idx, r.msg);
			else
				fprintf(stderr, PROG ": %s end: %s\n", e->name, r.msg);
			ok = false;
		} else if (port) {
			*port = r.port;
		}
	}
	return ok;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_common(FILE *f, const char *mode)
{
	fprintf(f, "{\"tool\":\"rds-bench\",\"time\":%lld,\"label\":",
		(long long)time(NULL));
	json_str(f, cfg.label);
	fprintf(f, ",\"mode\":\"%s\",\"family\":%d,\"saddr\":\"%s\",\"daddr\":\"%s\","
		"\"size\":%u,\"threads\":%d,\"sockets\":%d,\"inproc\":%s,\"blocking\":%s,"
		"\"transport\":%d,\"busy_poll_us\":%d,\"zerocopy\":%s,"
		"\"duration_s\":%.3f,"
		"\"warmup_s\":%.3f,"
		"\"count\":%" PRIu64 ",\"sndbuf\":%" PRIu64 ",\"rcvbuf\":%" PRIu64
		",\"max_inflight\":%" PRIu64 ",\"max_inflight_msgs\":%" PRIu64,
		mode, cfg.family, cfg.saddr_s, cfg.daddr_s, cfg.size, cfg.threads,
		cfg.sockets, cfg.inproc ? "true" : "false", cfg.blocking ? "true" : "false",
		cfg.transport, cfg.busy_poll, cfg.zerocopy ? "true" : "false",
		cfg.duration, cfg.warmup, cfg.count,
		cfg.sndbuf,
		cfg.rcvbuf, cfg.max_inflight, cfg.max_inflight_msgs);
}

/*
 * "thr 2" for the result line of stream and pingpong, and with --sockets
 * "thr 2  socks 8", so that runs with more sockets stand apart.
 */
static void thr_text(char *out, size_t len)
{
	if (cfg.sockets > 1)
		snprintf(out, len, "thr %-2d socks %-2d", cfg.threads, cfg.sockets);
	else
		snprintf(out, len, "thr %-2d", cfg.threads);
}

/* Append the text of one JSON line with a single write (O_APPEND). */
static void json_emit(char *text, size_t len)
{
	int fd;

	if (!cfg.json)
		return;
	fd = open(cfg.json, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		fprintf(stderr, PROG ": cannot write %s: %s\n", cfg.json,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int report_stream(void)
{
	struct rx_result *rx = &shm->rx;
	uint64_t sent = 0, enobufs = 0, eagain = 0, waits = 0;
	double rate, mbps;
	char lbl[300] = "", thr[40];
	int i, errs;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (i = 0; i < cfg.threads; i++) {
		sent += atomic_load(&shm->snd[i].msgs);
		enobufs += atomic_load(&shm->snd[i].enobufs);
		eagain += atomic_load(&shm->snd[i].eagain);
		waits += atomic_load(&shm->snd[i].waits);
	}
	if (!rx->valid || rx->elapsed <= 0) {
		fprintf(stderr, PROG ": stream: no measurement\n");
		return 1;
	}
	rate = (double)rx->msgs / rx->elapsed;
	mbps = (double)rx->bytes / rx->elapsed / 1e6;
	errs = rx->bad_len || rx->bad_data || rx->seq_err || rx->unknown_src ||
	       rx->bad_addr;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	thr_text(thr, sizeof(thr));
	printf("stream   fam %-2d size %-7u %s %12.0f msgs/s %10.2f MB/s | "
	       "rx %" PRIu64 " msgs in %.3f s, tx %" PRIu64 ", ENOBUFS %" PRIu64
	       ", EAGAIN %" PRIu64 ", window %" PRIu64 ", bad len %" PRIu64
	       " data %" PRIu64 " seq %" PRIu64 "%s\n",
	       cfg.family, cfg.size, thr, rate, mbps, rx->msgs, rx->elapsed,
	       sent, enobufs, eagain, waits, rx->bad_len,
	       rx->bad_data + rx->unknown_src, rx->seq_err, lbl);
	fflush(stdout);
	if (rx->bad_len || rx->bad_data || rx->seq_err || rx->unknown_src)
		fprintf(stderr, PROG ": WARNING: the receiver saw bad messages "
			"(length %" PRIu64 ", content %" PRIu64 ", sequence %" PRIu64
			", unknown source %" PRIu64 "); only the good ones were "
			"counted\n", rx->bad_len, rx->bad_data, rx->seq_err,
			rx->unknown_src);
	if (rx->bad_addr)
		fprintf(stderr, PROG ": WARNING: recvmsg gave %" PRIu64 " messages a "
			"source address that is not the sender's (%s:port); they "
			"were matched to senders by their header\n", rx->bad_addr,
			cfg.saddr_s);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, "stream");
		fprintf(f, ",\"ok\":%s,\"elapsed_s\":%.6f,\"msgs\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"msgs_per_s\":%.3f,\"mb_per_s\":%.6f,"
			"\"sent\":%" PRIu64 ",\"enobufs\":%" PRIu64 ",\"eagain\":%" PRIu64
			",\"window_waits\":%" PRIu64 ",\"bad_len\":%" PRIu64 ",\"bad_data\":%" PRIu64
			",\"seq_errors\":%" PRIu64 ",\"unknown_src\":%" PRIu64 ",\"bad_src_addr\":%" PRIu64
			"}\n",
			errs ? "false" : "true", rx->elapsed, rx->msgs, rx->bytes, rate,
			mbps, sent, enobufs, eagain, waits, rx->bad_len, rx->bad_data,
			rx->seq_err, rx->unknown_src, rx->bad_addr);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

static int report_pingpong(void)
{
	struct pp_result *pp = &shm->pp;
	uint64_t enobufs = 0, eagain = 0;
	char lbl[300] = "", thr[40];
	char *text = NULL;
	size_t len = 0;
	int i, errs;
	FILE *f;

	for (i = 0; i < cfg.threads; i++) {
		enobufs += atomic_load(&shm->snd[i].enobufs);
		eagain += atomic_load(&shm->snd[i].eagain);
	}
	enobufs += atomic_load(&shm->srv.enobufs);
	eagain += atomic_load(&shm->srv.eagain);
	if (!pp->valid || !pp->rtts) {
		fprintf(stderr, PROG ": pingpong: no measurement\n");
		return 1;
	}
	errs = pp->bad_len || pp->bad_data || pp->lost;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	thr_text(thr, sizeof(thr));
	printf("pingpong fam %-2d size %-7u %s %12.0f rt/s   p50 %.1f p99 %.1f "
	       "p999 %.1f us | n %" PRIu64 " in %.3f s, min %.1f mean %.1f max %.1f us,"
	       " lost %" PRIu64 ", stale %" PRIu64 ", bad %" PRIu64 ", ENOBUFS %"
	       PRIu64 ", EAGAIN %" PRIu64 "%s\n",
	       cfg.family, cfg.size, thr, pp->rate, pp->p50, pp->p99,
	       pp->p999, pp->rtts, pp->elapsed, pp->min, pp->mean, pp->max,
	       pp->lost, pp->stale, pp->bad_len + pp->bad_data, enobufs, eagain, lbl);
	fflush(stdout);
	if (errs)
		fprintf(stderr, PROG ": WARNING: %" PRIu64 " echoes lost, %" PRIu64
			" with a bad length, %" PRIu64 " with bad content\n",
			pp->lost, pp->bad_len, pp->bad_data);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, "pingpong");
		fprintf(f, ",\"ok\":%s,\"elapsed_s\":%.6f,\"round_trips\":%" PRIu64
			",\"rt_per_s\":%.3f,\"msgs_per_s\":%.3f,\"mb_per_s\":%.6f,"
			"\"rtt_p50_us\":%.3f,\"rtt_p99_us\":%.3f,\"rtt_p999_us\":%.3f,"
			"\"rtt_min_us\":%.3f,\"rtt_mean_us\":%.3f,\"rtt_max_us\":%.3f,"
			"\"lost\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"bad_len\":%" PRIu64
			",\"bad_data\":%" PRIu64 ",\"enobufs\":%" PRIu64 ",\"eagain\":%"
			PRIu64 "}\n",
			errs ? "false" : "true", pp->elapsed, pp->rtts, pp->rate, pp->rate,
			pp->rate * cfg.size / 1e6, pp->p50, pp->p99, pp->p999, pp->min,
			pp->mean, pp->max, pp->lost, pp->stale, pp->bad_len, pp->bad_data,
			enobufs, eagain);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

int report_rdma(void)
{
	struct rdma_result *rd = &shm->rd;
	struct target_result *tg = &shm->tg;
	uint64_t word_bad = 0;
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	double mbps;
	int errs;
	FILE *f;

	if (!rd->valid || rd->elapsed <= 0) {
		fprintf(stderr, PROG ": %s: no measurement\n", mode_name());
		return 1;
	}
	/* every fetch-and-add added 1, and every one of them completed */
	if (cfg.mode == M_ATOMIC && tg->word_valid && tg->word != rd->completed)
		word_bad = 1;
	mbps = rd->rate * cfg.size / 1e6;
	errs = rd->bad_data || tg->bad_len || tg->bad_data || tg->seq_err ||
	       tg->unknown_src || word_bad;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("%-10s fam %-2d size %-7u thr %-2d win %-4u %12.0f ops/s %10.2f MB/s | "
	       "n %" PRIu64 " in %.3f s, issued %" PRIu64 ", completed %" PRIu64
	       ", carriers %" PRIu64 ", ENOBUFS %" PRIu64 ", EAGAIN %" PRIu64
	       ", bad len %" PRIu64 " data %" PRIu64 " seq %" PRIu64 "%s\n",
	       mode_name(), cfg.family, cfg.size, cfg.threads, cfg.window, rd->rate,
	       mbps, rd->ops, rd->elapsed, rd->issued, rd->completed, tg->carriers,
	       rd->enobufs, rd->eagain, tg->bad_len + tg->unknown_src,
	       rd->bad_data + tg->bad_data + word_bad, tg->seq_err, lbl);
	fflush(stdout);
	if (rd->bad_data || tg->bad_data || word_bad)
		fprintf(stderr, PROG ": WARNING: wrong data: %s\n",
			cfg.mode == M_RDMA_READ ? "the buffer read does not hold the "
			"target's pattern" : cfg.mode == M_RDMA_WRITE ? "the target's "
			"region does not hold the pattern written" : "the target's "
			"word does not count every fetch-and-add");
	if (word_bad)
		fprintf(stderr, PROG ": WARNING: the word is %" PRIu64 " after %"
			PRIu64 " fetch-and-adds of 1\n", tg->word, rd->completed);
	if (tg->bad_len || tg->seq_err || tg->unknown_src)
		fprintf(stderr, PROG ": WARNING: the target saw bad carrier messages "
			"(length %" PRIu64 ", sequence %" PRIu64 ", unknown source %"
			PRIu64 ")\n", tg->bad_len, tg->seq_err, tg->unknown_src);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, mode_name());
		fprintf(f, ",\"ok\":%s,\"supported\":true,\"elapsed_s\":%.6f,"
			"\"window\":%u,\"ops\":%" PRIu64 ",\"bytes\":%" PRIu64
			",\"ops_per_s\":%.3f,\"mb_per_s\":%.6f,\"issued\":%" PRIu64
			",\"completed\":%" PRIu64 ",\"carriers\":%" PRIu64
			",\"enobufs\":%" PRIu64 ",\"eagain\":%" PRIu64 ",\"bad_len\":%"
			PRIu64 ",\"bad_data\":%" PRIu64 ",\"seq_errors\":%" PRIu64
			",\"unknown_src\":%" PRIu64 "}\n",
			errs ? "false" : "true", rd->elapsed, cfg.window, rd->ops,
			rd->bytes, rd->rate, mbps, rd->issued, rd->completed,
			tg->carriers, rd->enobufs, rd->eagain, tg->bad_len,
			rd->bad_data + tg->bad_data + word_bad, tg->seq_err,
			tg->unknown_src);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

/* reqresp's own settings, after json_common(). */
static void json_reqresp(FILE *f)
{
	fprintf(f, ",\"window\":%u,\"rdma_size\":%u,\"ack_size\":%u,"
		"\"rr_op\":\"%s\",\"notify\":%s,\"verify\":%s", cfg.window,
		cfg.rdma_size, cfg.ack_size, cfg.rr_read ? "read" : "write",
		cfg.notify || cfg.verify ? "true" : "false",
		cfg.verify ? "true" : "false");
}

static int report_reqresp(void)
{
	struct pp_result *pp = &shm->pp;
	struct rdma_result *rd = &shm->rd;
	struct rr_result *rr = &shm->rr;
	uint64_t enobufs = rd->enobufs + atomic_load(&shm->srv.enobufs);
	uint64_t eagain = rd->eagain + atomic_load(&shm->srv.eagain);
	uint64_t bad_len = pp->bad_len + rr->bad_len + rr->unknown_src;
	uint64_t bad_data = pp->bad_data + rr->bad_data + rr->no_cookie;
	uint64_t rdma_bad = rd->bad_data + rr->rdma_bad;
	const char *op = cfg.rr_read ? "read" : "write";
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	double mbps;
	int errs;
	FILE *f;

	if (!pp->valid || !rd->valid || !pp->rtts || pp->elapsed <= 0) {
		fprintf(stderr, PROG ": reqresp: no measurement\n");
		return 1;
	}
	mbps = pp->rate * cfg.rdma_size / 1e6;
	errs = bad_len || bad_data || rdma_bad || pp->stale || rr->seq_err ||
	       rr->rdma_failed;
	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("%-10s fam %-2d size %-7u thr %-2d win %-4u %-5s %-7u %12.0f tx/s "
	       "%10.2f MB/s   p50 %.1f p99 %.1f p999 %.1f us | n %" PRIu64
	       " in %.3f s, min %.1f mean %.1f max %.1f us, issued %" PRIu64
	       ", completed %" PRIu64 ", requests %" PRIu64 ", responses %"
	       PRIu64 ", notices %" PRIu64 ", ENOBUFS %" PRIu64 ", EAGAIN %"
	       PRIu64 ", stale %" PRIu64 ", bad len %" PRIu64 " data %" PRIu64
	       " seq %" PRIu64 " rdma %" PRIu64 ", rdma failed %" PRIu64 "%s\n",
	       mode_name(), cfg.family, cfg.size, cfg.threads, cfg.window, op,
	       cfg.rdma_size, pp->rate, mbps, pp->p50, pp->p99, pp->p999,
	       pp->rtts, pp->elapsed, pp->min, pp->mean, pp->max, rd->issued,
	       rd->completed, rr->requests, rr->responses, rr->notices, enobufs,
	       eagain, pp->stale, bad_len, bad_data, rr->seq_err, rdma_bad,
	       rr->rdma_failed, lbl);
	fflush(stdout);
	if (rdma_bad)
		fprintf(stderr, PROG ": WARNING: wrong data: %s\n", cfg.rr_read ?
			"an RDMA read fetched other bytes than the client's buffer "
			"held" : "a client's buffer does not hold what the RDMA write "
			"of its request carried");
	if (rr->rdma_failed)
		fprintf(stderr, PROG ": WARNING: %" PRIu64 " RDMA %ss failed\n",
			rr->rdma_failed, op);
	if (bad_len || bad_data || pp->stale || rr->seq_err)
		fprintf(stderr, PROG ": WARNING: bad messages: requests of the wrong "
			"length %" PRIu64 ", content %" PRIu64 ", sequence %" PRIu64
			", unknown source %" PRIu64 ", without a cookie %" PRIu64
			"; responses of the wrong length %" PRIu64 ", content %"
			PRIu64 ", answering no outstanding request %" PRIu64 "\n",
			rr->bad_len, rr->bad_data, rr->seq_err, rr->unknown_src,
			rr->no_cookie, pp->bad_len, pp->bad_data, pp->stale);
	if ((cfg.notify || cfg.verify) && rr->notices < rr->responses)
		fprintf(stderr, PROG ": note: %" PRIu64 " of %" PRIu64 " notices "
			"came before the server stopped\n", rr->notices,
			rr->responses);

	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, mode_name());
		fprintf(f, ",\"ok\":%s,\"supported\":true,\"elapsed_s\":%.6f",
			errs ? "false" : "true", pp->elapsed);
		json_reqresp(f);
		fprintf(f, ",\"transactions\":%" PRIu64 ",\"tx_per_s\":%.3f,"
			"\"mb_per_s\":%.6f,\"bytes\":%" PRIu64 ",\"rtt_p50_us\":%.3f,"
			"\"rtt_p99_us\":%.3f,\"rtt_p999_us\":%.3f,\"rtt_min_us\":%.3f,"
			"\"rtt_mean_us\":%.3f,\"rtt_max_us\":%.3f,\"issued\":%" PRIu64
			",\"completed\":%" PRIu64 ",\"requests\":%" PRIu64
			",\"responses\":%" PRIu64 ",\"notices\":%" PRIu64
			",\"rdma_failed\":%" PRIu64 ",\"enobufs\":%" PRIu64
			",\"eagain\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"bad_len\":%"
			PRIu64 ",\"bad_data\":%" PRIu64 ",\"rdma_bad\":%" PRIu64
			",\"seq_errors\":%" PRIu64 ",\"unknown_src\":%" PRIu64
			",\"no_cookie\":%" PRIu64 "}\n",
			pp->rtts, pp->rate, mbps, rd->bytes, pp->p50, pp->p99,
			pp->p999, pp->min, pp->mean, pp->max, rd->issued,
			rd->completed, rr->requests, rr->responses, rr->notices,
			rr->rdma_failed, enobufs, eagain, pp->stale,
			pp->bad_len + rr->bad_len, pp->bad_data + rr->bad_data,
			rdma_bad, rr->seq_err, rr->unknown_src, rr->no_cookie);
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return errs ? 3 : 0;
}

/* No RDMA on this family or transport: a result that says so, exit 4. */
static int report_unsupported(void)
{
	char lbl[300] = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (cfg.label[0])
		snprintf(lbl, sizeof(lbl), "  [%s]", cfg.label);
	printf("%-10s fam %-2d size %-7u unsupported: %s%s\n", mode_name(),
	       cfg.family, cfg.size, shm->unsup_msg, lbl);
	fflush(stdout);
	if (cfg.json && (f = open_memstream(&text, &len))) {
		json_common(f, mode_name());
		fprintf(f, ",\"ok\":false,\"supported\":false");
		if (cfg.mode == M_REQRESP)
			json_reqresp(f);
		else
			fprintf(f, ",\"window\":%u", cfg.window);
		fprintf(f, ",\"reason\":");
		json_str(f, shm->unsup_msg);
		fprintf(f, "}\n");
		fclose(f);
		json_emit(text, len);
		free(text);
	}
	return 4;
}

/*
 * Check the family before starting anything: socket(), buffer sizes,
 * transport, bind on both addresses.  Returns 0 or 1 (error printed).
 */
static int preflight(bool verbose)
{
	char err[400];
	uint16_t port;
	int snd = 0, rcv = 0, fd, fd2, home, ret = 1;

	home = netns_home();
	if (home == -2)
		return 1;
	if (enter_netns(cfg.netns_passive, home))
		goto out_home;
	fd = open_sock(cfg.daddr, &port, err, sizeof(err), &snd, &rcv);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out_home;
	}
	/* (the messages of the RDMA modes are 8-byte carriers) */
	if (!rdma_mode() && snd > 0 && (uint64_t)snd / 2 < cfg.size)
		fprintf(stderr, PROG ": WARNING: effective SO_SNDBUF is %d bytes; "
			"RDS refuses messages above half of it (%u requested): run as "
			"root or raise net.core.wmem_max\n", snd, cfg.size);
	else if (verbose && snd > 0 && (uint64_t)snd < cfg.sndbuf)
		fprintf(stderr, PROG ": note: SO_SNDBUF is %d, below the %" PRIu64
			" asked for\n", snd, cfg.sndbuf);
	if (!rdma_mode() && rcv > 0 && (uint64_t)rcv / 2 < cfg.size)
		fprintf(stderr, PROG ": WARNING: effective SO_RCVBUF is %d bytes, "
			"below one message: the receiver will be congested all the "
			"time; run as root or raise net.core.rmem_max\n", rcv);
	ret = 0;
	if (cfg.saddr.s_addr != cfg.daddr.s_addr || home >= 0) {
		ret = 1;
		if (enter_netns(cfg.netns_active, home))
			goto out_fd;
		fd2 = open_sock(cfg.saddr, &port, err, sizeof(err), NULL, NULL);
		if (fd2 < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			goto out_fd;
		}
		close(fd2);
		ret = 0;
	}
out_fd:
	close(fd);
out_home:
	if (home >= 0) {
		if (enter_netns(NULL, home))
			ret = 1;
		close(home);
	}
	return ret;
}

/* probe: open both ends in this process and pass one message. */
int run_probe(void)
{
	char err[400], m[500];
	uint16_t rport, sport;
	struct sockaddr_in dst, from;
	uint8_t *buf = xmalloc((size_t)cfg.size + 1);
	int rfd, sfd, mflags, r, rc = 1, home = -1;
	uint64_t e1 = 0, e2 = 0, deadline;

	if (preflight(false))
		return 1;
	/* a socket stays in the namespace it was made in */
	home = netns_home();
	if (home == -2)
		goto out_home;
	if (enter_netns(cfg.netns_passive, home))
		goto out_home;
	rfd = open_sock(cfg.daddr, &rport, err, sizeof(err), NULL, NULL);
	if (rfd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		goto out_home;
	}
	if (enter_netns(cfg.netns_active, home)) {
		close(rfd);
		goto out_home;
	}
	sfd = open_sock(cfg.saddr, &sport, err, sizeof(err), NULL, NULL);
	if (sfd < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		close(rfd);
		goto out_home;
	}
	memcpy(buf, pattern, cfg.size);
	put_hdr(buf, 0, 0);
	sock_dst(&dst, cfg.daddr, rport);
	deadline = now_ns() + sec2ns(cfg.timeout);
	r = send_msg(sfd, buf, cfg.size, &dst, &shm->snd[0], &e1, &e2, deadline);
	if (r) {
		if (r > 0)
			snprintf(m, sizeof(m), "sendto: still refused after %.1f s "
				 "(%" PRIu64 " ENOBUFS, %" PRIu64 " EAGAIN)",
				 cfg.timeout, e1, e2);
		else
			describe(m, sizeof(m), "sendto", -r, send_hint(-r));
		fprintf(stderr, PROG ": probe family %d: %s\n", cfg.family, m);
		goto out;
	}
	for (;;) {
		ssize_t n = recv_one(rfd, buf, (size_t)cfg.size + 1, &from, &mflags);
		uint64_t seq, now;
		bool hs;

		if (n >= 0) {
			if (check_msg(buf, n, mflags, &seq, &hs) != V_OK) {
				fprintf(stderr, PROG ": probe family %d: the message came "
					"back damaged (%zd bytes)\n", cfg.family, n);
				goto out;
			}
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			describe(m, sizeof(m), "recvmsg", errno, NULL);
			fprintf(stderr, PROG ": probe family %d: %s\n", cfg.family, m);
			goto out;
		}
		now = now_ns();
		if (now >= deadline) {
			fprintf(stderr, PROG ": probe family %d: the message did not "
				"arrive within %.1f s\n", cfg.family, cfg.timeout);
			goto out;
		}
		wait_fd(rfd, POLLIN, deadline - now < IDLE_SLICE ? deadline - now
							  : IDLE_SLICE);
	}
	printf("probe    fam %-2d ok: %s:%u -> %s:%u, %u bytes (%s)\n", cfg.family,
	       cfg.saddr_s, sport, cfg.daddr_s, rport, cfg.size, cfg.family_src);
	rc = 0;
out:
	close(sfd);
	close(rfd);
out_home:
	if (home >= 0)
		close(home);
	free(buf);
	return rc;
}

/*
 * The active end holds every sending socket open at once (--inproc: with
 * the passive end's, in one process): raise the soft open-file limit if
 * that takes more, or say why the run cannot be made.  Returns 0 or 1.
 */
static int check_nofile(void)
{
	/* stdio, the pipes, the passive socket, the JSON file, a margin */
	const rlim_t spare = 32;
	rlim_t need = (rlim_t)cfg.threads * (rlim_t)cfg.sockets + spare;
	struct rlimit rl;
	char hard[24];

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
		struct rlimit up = { need, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return 0;
	}
	if (rl.rlim_max == RLIM_INFINITY)
		snprintf(hard, sizeof(hard), "unlimited");
	else
		snprintf(hard, sizeof(hard), "%llu",
			 (unsigned long long)rl.rlim_max);
	fprintf(stderr, PROG ": --threads %d x --sockets %d: %llu sockets and "
		"about %llu other files need an open-file limit of %llu, above "
		"RLIMIT_NOFILE's %llu (hard limit %s): raise it (ulimit -n %llu) "
		"or use fewer sockets\n", cfg.threads, cfg.sockets,
		(unsigned long long)(need - spare), (unsigned long long)spare,
		(unsigned long long)need, (unsigned long long)rl.rlim_cur, hard,
		(unsigned long long)need);
	return 1;
}

int run_bench(void)
{
	bool stream = cfg.mode == M_STREAM;
	struct end passive = {
		.name = stream ? "receiving" : rdma_mode() ? "target" :
			cfg.mode == M_REQRESP ? "server" : "echo server",
	};
	struct end active = {
		.name = stream ? "sending" : rdma_mode() ? "initiator" : "client",
	};
	struct end *meas, *other;
	uint16_t dport = 0;
	uint64_t stall = sec2ns(cfg.timeout) + 5 * NSEC;
	int rc = 0;

	if (check_nofile() || preflight(true))
		return 1;
	if (pipe(go_pipe) < 0 || pipe(report_pipe) < 0) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return 1;
	}
	if (start_end(&passive, false) < 0)
		return 1;
	if (!collect_reports(&passive, 1, &dport))
		goto abort;
	active.dport = dport;
	if (start_end(&active, true) < 0)
		goto abort;
	if (!collect_reports(&active, cfg.threads, NULL))
		goto abort;

	/* Go. */
	beat(now_ns());
	close(go_pipe[1]);
	go_pipe[1] = -1;

	meas = stream ? &passive : &active;
	other = stream ? &active : &passive;
	while (!end_finished(meas)) {
		uint64_t now = now_ns();
		uint64_t hb = atomic_load(&shm->heartbeat);

		if (interrupted) {
			fprintf(stderr, PROG ": interrupted\n");
			atomic_store(&shm->failed, 1);
			break;
		}
		if (now > hb && now - hb > stall) {
			fprintf(stderr, PROG ": the %s end shows no progress for "
				"%.0f s; stopping it\n", meas->name,
				(double)stall / 1e9);
			atomic_store(&shm->failed, 1);
			break;
		}
		(void)end_finished(other);	/* reaps it; a crash marks failure */
		if (atomic_load(&shm->failed))
			break;
		sleep_ns(10 * MSEC);
	}
	atomic_store(&shm->stop, 1);
	if (!end_stop(meas))
		atomic_store(&shm->failed, 1);
	if (!end_stop(other))
		atomic_store(&shm->failed, 1);
	if (interrupted)
		return 130;
	if (atomic_load(&shm->unsupported))
		return report_unsupported();
	if (atomic_load(&shm->failed))
		return 1;
	if (cfg.mode == M_STREAM)
		rc = report_stream();
	else if (rdma_mode())
		rc = report_rdma();
	else if (cfg.mode == M_REQRESP)
		rc = report_reqresp();
	else
		rc = report_pingpong();
	return rc;

abort:
	atomic_store(&shm->abort, 1);
	atomic_store(&shm->stop, 1);
	if (go_pipe[1] >= 0) {
		close(go_pipe[1]);
		go_pipe[1] = -1;
	}
	end_stop(&passive);
	end_stop(&active);
	if (interrupted)
		return 130;
	return atomic_load(&shm->unsupported) ? report_unsupported() : 1;
}
