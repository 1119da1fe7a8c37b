#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint every manual page (*.[1-8]) in this directory with mandoc and groff;
# fail on any message.  Needs mandoc (apt-get install mandoc) and groff;
# man(1), if present, is asked too.
#
#   tools/sched/man/lint.sh [PAGE]...
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)

for tool in mandoc groff; do
	if ! command -v "$tool" >/dev/null; then
		echo "lint.sh: $tool is not installed" >&2
		exit 2
	fi
done

if [ "$#" -gt 0 ]; then
	pages=("$@")
else
	shopt -s nullglob
	pages=("$dir"/*.[1-8])
	shopt -u nullglob
fi
if [ "${#pages[@]}" -eq 0 ]; then
	echo "lint.sh: no manual pages in $dir" >&2
	exit 1
fi

export LC_ALL=C.UTF-8 MANWIDTH=80
failed=0

# Run "$@", and report it if it says anything or fails.
check() {
	local out status=0

	out=$("$@" 2>&1) || status=$?
	if [ -n "$out" ] || [ "$status" -ne 0 ]; then
		echo "lint.sh: $* (exit $status):" >&2
		[ -z "$out" ] || printf '%s\n' "$out" >&2
		failed=1
	fi
}

for page in "${pages[@]}"; do
	check mandoc -T lint -W warning "$page"
	check groff -ww -man -Tutf8 -z "$page"
	if command -v man >/dev/null; then
		# man writes the page to stdout: keep only its messages.
		check bash -c 'man --warnings -E UTF-8 -l "$1" >/dev/null' man "$page"
	fi
done

if [ "$failed" -ne 0 ]; then
	exit 1
fi
