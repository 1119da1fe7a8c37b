// SPDX-License-Identifier: GPL-2.0
/*
 * work.cgi: the CGI program of the PBS paper's Group B (pbs_groupb.py).
 * GET /work.cgi?ms=X computes for X ms of its own CPU time, the paper's
 * "additional processing time proportional to the file size requested",
 * and answers with a one-line summary page.  The paper's CGI also read
 * the file from disk; here that would only add 9p's time, the same under
 * every policy, so the request's size is its CPU time and nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

int main(void)
{
	const char *query = getenv("QUERY_STRING");
	double ms = 0, cpu;

	if (query && !strncmp(query, "ms=", 3))
		ms = atof(query + 3);
	if (ms < 0 || ms > 10000) {
		printf("Status: 400 Bad Request\r\n\r\n");
		return 0;
	}
	compute(ms, now_s(CLOCK_MONOTONIC) + 3600);
	cpu = now_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("Content-Type: text/plain\r\n\r\nworked %.3f ms, cpu %.3f ms\n",
	       ms, cpu * 1e3);
	return 0;
}
