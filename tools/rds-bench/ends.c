// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rds-bench: the two ends.
 */
#include "bench.h"

/*
 * Passive end: stream receiver, echo server, RDMA target or reqresp server
 * (one socket).
 */
void run_passive(void)
{
	char err[400];
	uint16_t port = 0;
	bool unsup;
	int fd = open_sock(cfg.daddr, &port, err, sizeof(err), NULL, NULL);

	if (fd < 0) {
		send_report(0, 0, 0, 0, err);
		return;
	}
	if (rdma_mode() && target_register(fd, err, sizeof(err), &unsup) < 0) {
		if (unsup)
			rdma_unsupported(err);
		send_report(0, 0, 0, 0, err);
		close(fd);
		return;
	}
	send_report(0, 0, 1, port, NULL);
	if (wait_go()) {
		if (cfg.mode == M_STREAM)
			stream_receiver(fd);
		else if (rdma_mode())
			rdma_target(fd);
		else if (cfg.mode == M_REQRESP)
			rr_server(fd);
		else
			echo_server(fd);
	}
	close(fd);		/* frees the region too */
	free(region.buf);
	region.buf = NULL;
}

/*
 * Active end: cfg.threads senders (stream), clients (pingpong, reqresp) or
 * initiators (RDMA modes), each with its own socket (stream and pingpong:
 * cfg.sockets of them).  While they run, this thread forwards the end of
 * the run to them as SIGUSR1 so that blocked sends give up.
 */
void run_active(uint16_t dport)
{
	struct active_arg *args = calloc((size_t)cfg.threads, sizeof(*args));
	pthread_t *th = calloc((size_t)cfg.threads, sizeof(*th));
	bool *started = calloc((size_t)cfg.threads, sizeof(*started));
	int i, k, nopen = 0;

	if (!args || !th || !started) {
		send_report(1, 0, 0, 0, "out of memory");
		return;
	}
	for (i = 0; i < cfg.threads; i++) {
		args[i].idx = i;
		for (k = 0; k < MAX_SOCKETS; k++)
			args[i].fds[k] = -1;
	}
	/* one report per thread: its first socket that failed, or its port */
	for (i = 0; i < cfg.threads; i++) {
		char err[400];
		uint16_t port = 0;

		for (k = 0; k < cfg.sockets; k++) {
			args[i].fds[k] = open_sock(cfg.saddr, &port, err, sizeof(err),
						   NULL, NULL);
			if (args[i].fds[k] < 0)
				break;
			shm->sock_port[i * cfg.sockets + k] = port;
		}
		if (k < cfg.sockets) {
			send_report(1, i * cfg.sockets + k, 0, 0, err);
			continue;
		}
		nopen++;
		shm->snd[i].port = shm->sock_port[i * cfg.sockets];
		sock_dst(&args[i].dst, cfg.daddr, dport);
		send_report(1, i, 1, shm->snd[i].port, NULL);
	}
	if (nopen == cfg.threads) {
		for (i = 0; i < cfg.threads; i++) {
			int e = pthread_create(&th[i], NULL,
					       cfg.mode == M_STREAM ? stream_sender :
					       rdma_mode() ? rdma_initiator :
					       cfg.mode == M_REQRESP ? rr_client :
					       ping_client, &args[i]);
			if (e) {
				fprintf(stderr, PROG ": pthread_create: %s\n", strerror(e));
				atomic_store(&shm->failed, 1);
				atomic_store(&shm->stop, 1);
				break;
			}
			started[i] = true;
		}
		for (;;) {
			bool all = true;

			for (i = 0; i < cfg.threads; i++)
				if (started[i] && !atomic_load(&shm->snd[i].done))
					all = false;
			if (all)
				break;
			if (stopping())
				for (i = 0; i < cfg.threads; i++)
					if (started[i] && !atomic_load(&shm->snd[i].done))
						pthread_kill(th[i], SIGUSR1);
			sleep_ns(10 * MSEC);
		}
		for (i = 0; i < cfg.threads; i++)
			if (started[i])
				pthread_join(th[i], NULL);
		/* the echo server must not mistake closed clients for errors */
		atomic_store(&shm->stop, 1);
		if (cfg.mode == M_PINGPONG && !atomic_load(&shm->failed))
			ping_summarize(args, cfg.threads);
		if (rdma_mode() && !atomic_load(&shm->failed))
			rdma_summarize(args, cfg.threads);
		if (cfg.mode == M_REQRESP && !atomic_load(&shm->failed))
			rr_summarize(args, cfg.threads);
	}
	for (i = 0; i < cfg.threads; i++) {
		for (k = 0; k < cfg.sockets; k++)
			if (args[i].fds[k] >= 0)
				close(args[i].fds[k]);
		free(args[i].samples);
	}
	free(args);
	free(th);
	free(started);
}
