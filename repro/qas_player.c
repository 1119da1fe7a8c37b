// SPDX-License-Identifier: GPL-2.0
/*
 * qas_player: the MPEG player of the QAS paper's section 5.1 (Table 1), on
 * SCHED_BVT's quality-assuring reservations (tools/sched/qas.h).
 *
 * The clip is MPEG-2 with N B frames after every reference frame (I or P)
 * in stream order.  Its periods are a reference frame and the N B frames
 * that follow it: N + 1 frame times.  The mandatory part decodes the
 * reference frame, and each B frame is an optional part.  (The paper's
 * period was a whole group of pictures, its mandatory part all of its I
 * and P frames; libavcodec keeps only the last two reference frames, so
 * a B frame must be decoded before the reference after the next one.)
 *
 *   qas_player FILE GROUPS
 *
 * reads the clip into memory, says "ready", and then takes commands on
 * standard input, one a line, each playing the clip's first GROUPS
 * periods from its start:
 *
 *   play	with the reservation set this thread was given (qas-admit
 *		--apply): a mandatory part, then one optional part for the B
 *		frames.  Each period decodes its reference frame, goes on to
 *		the optional part, and starts each B frame only while that part
 *		lasts and the period is the one it began (a B frame started
 *		completes: the decoder cannot be stopped in a frame, the
 *		paper's non-preemptible case), then lets the rest of the period
 *		go.  The set ends with the command.
 *   measure	the same, with a set the player gives itself, that its
 *		frames fit in: the distributions of the frames' times for
 *		qas-admit.
 *
 * One process measures and plays, as the paper's player measured its
 * stream before playing it: under TCG the same decoding ran a third
 * faster or slower in another process.  After each command it prints one
 * JSON line: the B frames decoded ("decoded"; the last one of a period
 * may have ended after it: "b_late") and dropped, the reference frames
 * that ended after their period ("ref_late") or after the mandatory part
 * ("mand_overruns"), the periods lost, the kernel's counters, the number
 * of periods with 0..N B frames decoded, and each frame's time, ns:
 * "x_ns" the mandatory parts (the reference frame), "y_ns" the B frames,
 * N a period (0: dropped).  The time of a frame is this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID), the clock the kernel
 * charges the parts with, from its check of its part to the next one's
 * (the first B frame's from the call that starts the part).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/sched/types.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"
#include "../tools/sched/qas.h"

#ifndef SCHED_BVT
#define SCHED_BVT	8
#endif

#define MAX_B	16

static AVCodecContext *dec;
static AVFrame *frame;
static AVPacket **pkts;
static long nr_pkts;

/* 1 I, 2 P, 3 B: from the picture header after the 00 00 01 00 code. */
static int picture_type(const AVPacket *pkt)
{
	const unsigned char *d = pkt->data;
	int i;

	for (i = 0; i + 5 < pkt->size; i++)
		if (!d[i] && !d[i + 1] && d[i + 2] == 1 && !d[i + 3])
			return (d[i + 5] >> 3) & 7;
	return 0;
}

static bool is_b(long i)
{
	return picture_type(pkts[i]) == 3;
}

static void decode(long i)
{
	if (avcodec_send_packet(dec, pkts[i]) == 0)
		while (avcodec_receive_frame(dec, frame) == 0)
			av_frame_unref(frame);
}

static void *alloc_or_die(void *p)
{
	if (!p) {
		fprintf(stderr, "qas_player: out of memory\n");
		exit(1);
	}
	return p;
}

static double open_clip(const char *path)
{
	AVFormatContext *fmt = NULL;
	const AVCodec *codec;
	AVPacket *pkt = av_packet_alloc();
	long cap = 1024;
	double fps;
	int stream;

	if (avformat_open_input(&fmt, path, NULL, NULL) < 0 ||
	    avformat_find_stream_info(fmt, NULL) < 0) {
		fprintf(stderr, "qas_player: cannot open %s\n", path);
		exit(1);
	}
	stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec,
				     0);
	if (stream < 0) {
		fprintf(stderr, "qas_player: no video in %s\n", path);
		exit(1);
	}
	dec = avcodec_alloc_context3(codec);
	avcodec_parameters_to_context(dec, fmt->streams[stream]->codecpar);
	dec->thread_count = 1;
	if (avcodec_open2(dec, codec, NULL) < 0) {
		fprintf(stderr, "qas_player: cannot open the decoder\n");
		exit(1);
	}
	fps = av_q2d(fmt->streams[stream]->avg_frame_rate);
	pkts = alloc_or_die(malloc(cap * sizeof(*pkts)));
	while (av_read_frame(fmt, pkt) >= 0) {
		if (pkt->stream_index == stream) {
			if (nr_pkts == cap) {
				cap *= 2;
				pkts = alloc_or_die(realloc(pkts,
							    cap * sizeof(*pkts)));
			}
			pkts[nr_pkts++] = alloc_or_die(av_packet_clone(pkt));
		}
		av_packet_unref(pkt);
	}
	av_packet_free(&pkt);
	avformat_close_input(&fmt);
	frame = alloc_or_die(av_frame_alloc());
	return fps > 0 ? fps : 25;
}

/*
 * From the clip's start, decode up to the first reference frame followed
 * by B frames (the first group of a clip is a lone I frame); returns its
 * index.
 */
static long first_group(int *nb)
{
	long i;

	avcodec_flush_buffers(dec);
	for (i = 0; i + 1 < nr_pkts; i++) {
		if (!is_b(i) && is_b(i + 1))
			break;
		decode(i);
	}
	for (*nb = 0; i + 1 + *nb < nr_pkts && is_b(i + 1 + *nb); (*nb)++)
		;
	return i;
}

static void print_ns(const char *name, const double *v, long n)
{
	long i;

	printf("\"%s\": [", name);
	for (i = 0; i < n; i++)
		printf("%s%.0f", i ? ", " : "", v[i]);
	printf("]");
}

/* The period the caller is in, by the kernel's count, and its part. */
static long long period_now(struct sched_bvt_qas *q)
{
	if (qas_get(0, q)) {
		perror("qas_player: BVT_CTL_QAS_GET");
		exit(1);
	}
	return q->nr_periods;
}

/*
 * Measuring, the player gives itself a set that its frames fit in: a
 * mandatory part of a quarter of the period and an optional part of 60 %
 * of it, not restricted.  So the frames' times include the same calls to
 * the kernel as when it plays.
 */
static void own_set(double period_ns)
{
	struct sched_attr attr = {
		.size = sizeof(attr), .sched_policy = SCHED_BVT,
	};

	if (syscall(SYS_sched_setattr, 0, &attr, 0) ||
	    qas_set_period(period_ns, 0, 0) ||
	    qas_reserve_time(period_ns / 4, 0, 1) < 0 ||
	    qas_reserve_time(period_ns * 3 / 5, 0, 0) < 0) {
		perror("qas_player: giving itself a set");
		exit(1);
	}
}

/* What a command counted, and its frames' times (ns). */
struct stats {
	long decoded, b_late, dropped, ref_late, mand_overruns, lost;
	long per_period[MAX_B + 1];
	double *x, *y;
};

/* Does the group of packet i hold a reference frame and nb B frames? */
static bool whole_group(long i, int nb)
{
	int b;

	if (i + nb >= nr_pkts || is_b(i))
		return false;
	for (b = 1; b <= nb; b++)
		if (!is_b(i + b))
			return false;
	return true;
}

/* Period g: the reference frame at i, then its nb B frames as time allows. */
static int play_period(struct stats *st, long g, long i, int nb)
{
	struct sched_bvt_qas q;
	long long mine;
	long ret;
	double t;
	int b, k;

	ret = qas_begin_period();
	if (ret < 0) {
		perror("qas_player: BVT_CTL_QAS_BEGIN");
		return -1;
	}
	st->lost += ret;
	/* The mandatory part: from here to the optional part. */
	t = now_s(CLOCK_THREAD_CPUTIME_ID);
	mine = period_now(&q);
	decode(i);
	if (period_now(&q) != mine)
		st->ref_late++;
	else if (q.part)	/* it overran: the B frames' part began */
		st->mand_overruns++;
	st->x[g] = (now_s(CLOCK_THREAD_CPUTIME_ID) - t) * 1e9;
	/* The first B frame's time counts from the part's start. */
	t = now_s(CLOCK_THREAD_CPUTIME_ID);
	/*
	 * Should the period end just here, this ends the next one's
	 * mandatory part: a window of microseconds, against 160 ms.
	 */
	if (period_now(&q) == mine && !q.part)
		qas_next_reservation();
	for (k = 0, b = 1; b <= nb; b++) {
		/* A B frame from its check to the next one's. */
		if (b > 1)
			t = now_s(CLOCK_THREAD_CPUTIME_ID);
		/* Started only in the optional part of its period. */
		if (period_now(&q) != mine || q.part != 1) {
			st->dropped++;
			continue;
		}
		decode(i + b);
		st->y[g * nb + b - 1] = (now_s(CLOCK_THREAD_CPUTIME_ID) - t) *
					1e9;
		st->decoded++;
		k++;
	}
	/* Only the last B frame decoded can have ended late. */
	if (k && period_now(&q) != mine)
		st->b_late++;
	st->per_period[k]++;
	return 0;
}

static void print_stats(const struct stats *st, double fps, int nb,
			long periods, double cpu_s)
{
	struct sched_bvt_qas q;
	int b;

	period_now(&q);
	printf("{\"fps\": %.3f, \"b_frames\": %d, \"periods\": %ld, ",
	       fps, nb, periods);
	printf("\"decoded\": %ld, \"b_late\": %ld, \"dropped\": %ld, ",
	       st->decoded, st->b_late, st->dropped);
	printf("\"ref_late\": %ld, \"mand_overruns\": %ld, \"lost\": %ld, ",
	       st->ref_late, st->mand_overruns, st->lost);
	printf("\"cpu_s\": %.3f, \"nr_periods\": %llu, ", cpu_s,
	       (unsigned long long)q.nr_periods);
	printf("\"nr_overruns\": %llu, \"nr_period_ends\": %llu, ",
	       (unsigned long long)q.nr_overruns,
	       (unsigned long long)q.nr_period_ends);
	printf("\"nr_mandatory_misses\": %llu, \"per_period\": [",
	       (unsigned long long)q.nr_mandatory_misses);
	for (b = 0; b <= nb; b++)
		printf("%s%ld", b ? ", " : "", st->per_period[b]);
	printf("], ");
	print_ns("x_ns", st->x, periods);
	printf(", ");
	print_ns("y_ns", st->y, periods * nb);
	printf("}\n");
	fflush(stdout);
}

/* The command measure or play: GROUPS periods from the clip's start. */
static int run(bool measure, double fps, long groups)
{
	struct stats st = { };
	struct sched_bvt_qas q;
	long i, g;
	double cpu0;
	int nb;

	i = first_group(&nb);
	if (nb < 1 || nb > MAX_B) {
		fprintf(stderr, "qas_player: %d B frames a group\n", nb);
		return 1;
	}
	if (measure)
		own_set((nb + 1) * 1e9 / fps);
	period_now(&q);
	if (q.nr_parts != 2) {
		fprintf(stderr, "qas_player: needs a set of 2 parts\n");
		return 1;
	}
	st.x = alloc_or_die(calloc(groups, sizeof(*st.x)));
	st.y = alloc_or_die(calloc(groups * nb, sizeof(*st.y)));
	cpu0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (g = 0; g < groups && whole_group(i, nb); g++, i += nb + 1)
		if (play_period(&st, g, i, nb))
			return 1;
	print_stats(&st, fps, nb, g, now_s(CLOCK_THREAD_CPUTIME_ID) - cpu0);
	free(st.x);
	free(st.y);
	qas_end_period();
	return 0;
}

int main(int argc, char **argv)
{
	char line[32];
	long groups;
	double fps;

	groups = argc == 3 ? atol(argv[2]) : 0;
	if (groups <= 0) {
		fprintf(stderr, "usage: qas_player FILE GROUPS\n");
		return 2;
	}
	fps = open_clip(argv[1]);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "measure\n") || !strcmp(line, "play\n")) {
			if (run(line[0] == 'm', fps, groups))
				return 1;
		} else {
			fprintf(stderr, "qas_player: no command %s", line);
			return 2;
		}
	}
	return 0;
}
