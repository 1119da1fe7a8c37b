// SPDX-License-Identifier: GPL-2.0
/*
 * player: the video side of the mpeg/grep experiment.  Decodes a video
 * file with FFmpeg's libavcodec (one decoding thread) at the file's frame
 * rate, paced to an ideal display clock that starts when the first frame
 * is decoded (as a player starts showing once it has a picture): frame i
 * is due i frame times after that, the player sleeps until a frame's time
 * when it is early, and records how late every frame was.  The file loops
 * until the time is up.  With "wait", the player first opens the file, says
 * "ready" on standard output and waits for a line on standard input: loading
 * libavcodec's ~130 shared libraries costs seconds of CPU under TCG, and
 * that start-up is not what the experiment measures.  Then it prints one
 * JSON object:
 *
 *   {"frames": N, "fps": F, "late": N, "max_late_ms": X,
 *    "median_late_ms": X, "cpu_s": X, "lateness_ms": [...]}
 *
 * where a frame is late when it is ready more than one frame time after
 * it was due, and lateness_ms holds every frame's lateness (negative:
 * ready early).
 *
 *   player FILE SECONDS [wait]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"

int main(int argc, char **argv)
{
	AVFormatContext *fmt = NULL;
	const AVCodec *codec;
	AVCodecContext *dec;
	AVPacket *pkt = av_packet_alloc();
	AVFrame *frame = av_frame_alloc();
	double seconds, fps, period, start, end, cpu0, late_max = -1e9;
	double *late_ms, *sorted;
	long n = 0, cap, late = 0, i;
	int stream, ret;

	if (argc < 3 || argc > 4 || (seconds = atof(argv[2])) <= 0 ||
	    (argc == 4 && strcmp(argv[3], "wait"))) {
		fprintf(stderr, "usage: player FILE SECONDS [wait]\n");
		return 2;
	}
	if (avformat_open_input(&fmt, argv[1], NULL, NULL) < 0 ||
	    avformat_find_stream_info(fmt, NULL) < 0) {
		fprintf(stderr, "player: cannot open %s\n", argv[1]);
		return 1;
	}
	stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
	if (stream < 0) {
		fprintf(stderr, "player: no video in %s\n", argv[1]);
		return 1;
	}
	dec = avcodec_alloc_context3(codec);
	avcodec_parameters_to_context(dec, fmt->streams[stream]->codecpar);
	dec->thread_count = 1;
	if (avcodec_open2(dec, codec, NULL) < 0) {
		fprintf(stderr, "player: cannot open the decoder\n");
		return 1;
	}
	fps = av_q2d(fmt->streams[stream]->avg_frame_rate);
	if (fps <= 0)
		fps = 25;
	period = 1 / fps;
	cap = seconds * fps + 16;
	late_ms = calloc(cap, sizeof(*late_ms));

	if (argc == 4) {
		char line[16];

		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	start = 0;
	end = now_s(CLOCK_MONOTONIC) + seconds;
	while (n < cap && now_s(CLOCK_MONOTONIC) < end) {
		ret = av_read_frame(fmt, pkt);
		if (ret == AVERROR_EOF) {
			/* Loop: back to the start, decoder state dropped. */
			av_seek_frame(fmt, stream, 0, AVSEEK_FLAG_BACKWARD);
			avcodec_flush_buffers(dec);
			continue;
		}
		if (ret < 0)
			break;
		if (pkt->stream_index != stream || avcodec_send_packet(dec, pkt) < 0) {
			av_packet_unref(pkt);
			continue;
		}
		av_packet_unref(pkt);
		while (n < cap && avcodec_receive_frame(dec, frame) == 0) {
			double t = now_s(CLOCK_MONOTONIC), due;

			if (!n)
				start = t;
			due = start + n * period;

			late_ms[n] = (t - due) * 1e3;
			if (t - due > period)
				late++;
			if (late_ms[n] > late_max)
				late_max = late_ms[n];
			n++;
			if (t < due)
				sleep_until(due);
			av_frame_unref(frame);
		}
	}

	sorted = malloc(n * sizeof(*sorted));
	memcpy(sorted, late_ms, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	printf("{\"frames\": %ld, \"fps\": %.3f, \"late\": %ld, \"max_late_ms\": %.3f, "
	       "\"median_late_ms\": %.3f, \"cpu_s\": %.3f, \"lateness_ms\": [",
	       n, fps, late, n ? late_max : 0, n ? sorted[n / 2] : 0,
	       now_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0);
	for (i = 0; i < n; i++)
		printf("%s%.3f", i ? ", " : "", late_ms[i]);
	printf("]}\n");
	return 0;
}
