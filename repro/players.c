// SPDX-License-Identifier: GPL-2.0
/*
 * players: N adaptive video players in one process, the coop_poll talk's
 * experiment (Sinha, Krasic, Goel, UBC 2007).  Each player is a thread
 * that decodes a clip with FFmpeg's libavcodec, as repro/player.c does,
 * and adapts like Qstream: frame j is displayed at its deadline D_j (one
 * frame time apart, the players' timelines staggered), and before it the
 * player decodes the frame's layers, a base one and up to L-1 more that
 * improve it, as many as it can in time: the base layer is started while
 * D_j is ahead, another only if it can end by D_j, and one that ends
 * after D_j is wasted.  A layer is the
 * decoding of one frame of the clip, which is intra-only so that any
 * frame decodes alone.  At D_j the player runs its display event: how late
 * it runs after D_j is its dispatch tardiness.
 *
 * Modes:
 *   plain  the player sleeps until D_j when it has nothing to decode; the
 *          policy it runs under (fair share, EEVDF, ...) is the one the
 *          process was started with, which its threads inherit;
 *   coop   the player calls coop_poll() with D_j and, while it has layers
 *          to decode, an event (0 for a base layer, 1 + layers for more:
 *          base layers first), and yields by calling again when the
 *          earliest deadline of the others it is told of (or the end of
 *          the domain's turn) comes before its next layer could end,
 *          polling for it if not one layer would end by then;
 *   calibrate  one player decodes flat out: the CPU time of a layer.
 *
 * Player k runs on CPU k % CPUs.  The threads open the clip, say "ready"
 * on standard output and wait for a line on standard input; after a
 * second of warm-up they are measured for SECONDS.  Prints one JSON
 * object:
 *
 *   {"players": N, "mode": M, "layers": L, "seconds": S,
 *    "ctxt_per_s": X, "frames_due": N, "frames_shown": N,
 *    "layers_in_time": N, "layers_late": N, "layer_cpu_ms": X,
 *    "policed": N, "tardiness_ms": [...]}
 *
 * (layer_cpu_ms: the mean CPU time of a layer; ctxt_per_s: the whole
 * system's context switches, /proc/stat; a frame is shown if its base
 * layer was decoded in time).
 *
 *   players CLIP SECONDS N L plain|coop|calibrate [FPS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"
#include "../tools/sched/coop_poll.h"

#define WARMUP_S	1.0
/* Layers decoded before the start, for a warm decoder and estimate. */
#define WARM_LAYERS	20
/* Call again this early, before the slice the call gave ends. */
#define POLL_EARLY_S	50e-6
#define MAX_SAMPLES	4096

struct decoder {
	AVFormatContext *fmt;
	AVCodecContext *dec;
	AVPacket *pkt;
	AVFrame *frame;
	int stream;
};

static int decoder_open(struct decoder *d, const char *path)
{
	const AVCodec *codec;

	memset(d, 0, sizeof(*d));
	if (avformat_open_input(&d->fmt, path, NULL, NULL) < 0 ||
	    avformat_find_stream_info(d->fmt, NULL) < 0)
		return -1;
	d->stream = av_find_best_stream(d->fmt, AVMEDIA_TYPE_VIDEO, -1, -1,
					&codec, 0);
	if (d->stream < 0)
		return -1;
	d->dec = avcodec_alloc_context3(codec);
	avcodec_parameters_to_context(d->dec,
				      d->fmt->streams[d->stream]->codecpar);
	d->dec->thread_count = 1;
	d->pkt = av_packet_alloc();
	d->frame = av_frame_alloc();
	return avcodec_open2(d->dec, codec, NULL) < 0 ? -1 : 0;
}

/* Decode the next frame of the clip, from its start again at its end. */
static int decode_layer(struct decoder *d)
{
	int ret;

	for (;;) {
		ret = av_read_frame(d->fmt, d->pkt);
		if (ret == AVERROR_EOF) {
			av_seek_frame(d->fmt, d->stream, 0, AVSEEK_FLAG_BACKWARD);
			avcodec_flush_buffers(d->dec);
			continue;
		}
		if (ret < 0)
			return -1;
		if (d->pkt->stream_index == d->stream &&
		    avcodec_send_packet(d->dec, d->pkt) == 0) {
			av_packet_unref(d->pkt);
			break;
		}
		av_packet_unref(d->pkt);
	}
	while (avcodec_receive_frame(d->dec, d->frame) == 0)
		av_frame_unref(d->frame);
	return 0;
}

static const char *clip, *mode;
static double seconds, period, go_at;
static int nplayers, nlayers, ncpus;
static pthread_barrier_t ready;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static atomic_int failed;

struct player {
	int id;
	pthread_t thread;
	struct decoder d;
	double est;		/* the CPU time of a layer, a running mean */
	double cpu, layers_cpu;
	long layers_done, policed;
	/* measured */
	long frames_due, frames_shown, layers_in_time, layers_late;
	double tardiness[MAX_SAMPLES];
	int samples;
};

static struct player *players;

static void wait_for_go(void)
{
	pthread_mutex_lock(&go_lock);
	while (!go_at)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
}

/*
 * Decode a layer and learn what one costs.  Under TCG a layer is now and
 * then charged several times its cost (the host deschedules the vCPU): a
 * sample counts for twice the estimate at most, or the estimate could
 * grow past every gap, and the player would never decode again.
 */
static void layer(struct player *p)
{
	double c = now_s(CLOCK_THREAD_CPUTIME_ID), cost;

	if (decode_layer(&p->d))
		atomic_store(&failed, 1);
	cost = now_s(CLOCK_THREAD_CPUTIME_ID) - c;
	p->layers_cpu += cost;
	p->layers_done++;
	if (p->est && cost > 2 * p->est)
		cost = 2 * p->est;
	p->est = p->est ? 0.9 * p->est + 0.1 * cost : cost;
}

/* Can a layer started now end by @t?  With a margin for the estimate. */
static bool layer_fits(struct player *p, double t)
{
	return now_s(CLOCK_MONOTONIC) + 1.5 * p->est <= t;
}

/*
 * Does the frame due at @due, with @layers decoded, get another one?  The
 * base layer is tried as long as the frame is not due (it also keeps the
 * estimate true); more only if they can end in time.
 */
static bool wants_layer(struct player *p, double due, int layers)
{
	if (layers >= nlayers)
		return false;
	return layers ? layer_fits(p, due) : now_s(CLOCK_MONOTONIC) < due;
}

static bool measuring(double t)
{
	return t >= go_at + WARMUP_S && t < go_at + WARMUP_S + seconds;
}

/* The display event of a frame due at @due with @layers in time. */
static void display(struct player *p, double due, int layers)
{
	double t = now_s(CLOCK_MONOTONIC);

	if (!measuring(due))
		return;
	p->frames_due++;
	p->frames_shown += layers > 0;
	if (p->samples < MAX_SAMPLES)
		p->tardiness[p->samples++] = (t - due) * 1e3;
}

static void count_layer(struct player *p, double due, int *layers)
{
	bool in_time = now_s(CLOCK_MONOTONIC) <= due;

	if (in_time)
		++*layers;
	if (measuring(due)) {
		p->layers_in_time += in_time;
		p->layers_late += !in_time;
	}
}

static void play_plain(struct player *p, double start, double end)
{
	double due;
	int layers;

	for (due = start; due < end; due += period) {
		layers = 0;
		while (wants_layer(p, due, layers)) {
			layer(p);
			count_layer(p, due, &layers);
		}
		sleep_until(due);
		display(p, due, layers);
	}
}

/* The deadline of the frame due at @due, and its next layer, if any. */
static void coop_request(struct sched_bvt_coop *in, double due, int layers,
			 bool more)
{
	coop_in_init(in);
	coop_in_deadline(in, (unsigned long long)(due * 1e9));
	if (more)
		coop_in_event(in, layers ? 1 + layers : 0);
}

static void play_coop(struct player *p, double start, double end)
{
	struct sched_bvt_coop in, out;
	double due, yield_by;
	int layers;
	bool more;

	for (due = start; due < end; due += period) {
		layers = 0;
		for (;;) {
			/* With nothing to decode in time it sleeps until due. */
			more = wants_layer(p, due, layers);
			coop_request(&in, due, layers, more);
			if (coop_poll(&in, &out)) {
				atomic_store(&failed, 1);
				return;
			}
			if (now_s(CLOCK_MONOTONIC) >= due)
				break;
			if (!more)
				continue;
			/*
			 * Layers while they end by the others' earliest
			 * deadline.  If not one would, poll until it is
			 * near (a layer cannot be cut short, and no other
			 * member could use the gap either: blocking would
			 * only hand it round them), then call again.
			 */
			yield_by = out.deadline / 1e9;
			if (!layer_fits(p, yield_by)) {
				while (now_s(CLOCK_MONOTONIC) < yield_by - POLL_EARLY_S)
					;
				continue;
			}
			do {
				layer(p);
				count_layer(p, due, &layers);
			} while (wants_layer(p, due, layers) &&
				 layer_fits(p, yield_by));
		}
		display(p, due, layers);
	}
	coop_poll(NULL, NULL);
}

static void calibrate(struct player *p, double end)
{
	while (now_s(CLOCK_MONOTONIC) < end)
		layer(p);
}

/* The caller's bvt.coop.nr_policed, from /proc (CONFIG_SCHED_DEBUG). */
static long policed(void)
{
	char line[256];
	long v = 0;
	FILE *f = fopen("/proc/thread-self/sched", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "bvt.coop.nr_policed", 19) &&
		    sscanf(strchr(line, ':') + 1, "%ld", &v) == 1)
			break;
	}
	if (f)
		fclose(f);
	return v;
}

static void *player_main(void *arg)
{
	struct player *p = arg;
	cpu_set_t set;
	double start, end;
	int i;

	CPU_ZERO(&set);
	CPU_SET(p->id % ncpus, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    decoder_open(&p->d, clip))
		atomic_store(&failed, 1);
	else
		for (i = 0; i < WARM_LAYERS; i++)
			layer(p);
	pthread_barrier_wait(&ready);
	wait_for_go();
	if (atomic_load(&failed))
		return NULL;
	end = go_at + WARMUP_S + seconds;
	p->cpu = now_s(CLOCK_THREAD_CPUTIME_ID);
	p->layers_cpu = 0;
	p->layers_done = 0;
	/* Staggered timelines: the deadlines of N players interleave. */
	start = go_at + period + p->id * period / nplayers;
	if (!strcmp(mode, "coop"))
		play_coop(p, start, end);
	else if (!strcmp(mode, "calibrate"))
		calibrate(p, end);
	else
		play_plain(p, start, end);
	p->cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - p->cpu;
	p->policed = policed();
	return NULL;
}

static unsigned long long ctxt(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	}
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long c0, c1;
	long due = 0, shown = 0, in_time = 0, late = 0, npol = 0, done = 0;
	double cpu_layers = 0, fps = 25;
	char line[16];
	int i, j, first = 1;

	if (argc < 6 || argc > 7 || (seconds = atof(argv[2])) <= 0 ||
	    (nplayers = atoi(argv[3])) <= 0 || (nlayers = atoi(argv[4])) <= 0 ||
	    (strcmp(argv[5], "plain") && strcmp(argv[5], "coop") &&
	     strcmp(argv[5], "calibrate"))) {
		fprintf(stderr, "usage: players CLIP SECONDS N L plain|coop|calibrate [FPS]\n");
		return 2;
	}
	clip = argv[1];
	mode = argv[5];
	if (argc == 7)
		fps = atof(argv[6]);
	period = 1 / fps;
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	players = calloc(nplayers, sizeof(*players));
	pthread_barrier_init(&ready, NULL, nplayers + 1);
	for (i = 0; i < nplayers; i++) {
		players[i].id = i;
		pthread_create(&players[i].thread, NULL, player_main, &players[i]);
	}
	pthread_barrier_wait(&ready);
	if (atomic_load(&failed)) {
		fprintf(stderr, "players: cannot set a player up\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	pthread_mutex_lock(&go_lock);
	go_at = now_s(CLOCK_MONOTONIC);
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	sleep_until(go_at + WARMUP_S);
	c0 = ctxt();
	sleep_until(go_at + WARMUP_S + seconds);
	c1 = ctxt();
	for (i = 0; i < nplayers; i++) {
		pthread_join(players[i].thread, NULL);
		due += players[i].frames_due;
		shown += players[i].frames_shown;
		in_time += players[i].layers_in_time;
		late += players[i].layers_late;
		cpu_layers += players[i].layers_cpu;
		done += players[i].layers_done;
		npol += players[i].policed;
	}
	if (atomic_load(&failed)) {
		fprintf(stderr, "players: a player failed\n");
		return 1;
	}
	printf("{\"players\": %d, \"mode\": \"%s\", \"layers\": %d, \"seconds\": %.3f, "
	       "\"fps\": %.3f, \"ctxt_per_s\": %.1f, \"frames_due\": %ld, "
	       "\"frames_shown\": %ld, \"layers_in_time\": %ld, \"layers_late\": %ld, "
	       "\"layers_done\": %ld, \"layer_cpu_ms\": %.4f, \"policed\": %ld, "
	       "\"tardiness_ms\": [",
	       nplayers, mode, nlayers, seconds, fps, (c1 - c0) / seconds, due,
	       shown, in_time, late, done, done ? cpu_layers / done * 1e3 : 0,
	       npol);
	for (i = 0; i < nplayers; i++) {
		for (j = 0; j < players[i].samples; j++) {
			printf("%s%.3f", first ? "" : ", ", players[i].tardiness[j]);
			first = 0;
		}
	}
	printf("]}\n");
	return 0;
}
