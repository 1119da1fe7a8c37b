#!/bin/bash
# patches/new-files lists the files the series adds, in commit groups:
#   commit <message file under patches/> [after <glue patch number>]
#   <path>[@<CONFIG>,<CONFIG>...]
# A group is committed before the glue patches of patches/series, or
# right after the one it names.  A path with @ is the file cut down to
# its Kconfig entries of those names (and what precedes the first
# entry): kernel/Kconfig.bvt grows by one option per mechanism.
# A line "patch stages/<name>.patch" in a group is a step of a file the
# series adds whole earlier: the class grows in steps (SMP, PI,
# tracepoints), and each mechanism brings its trace events, its KUnit
# cases and its documentation with it.  A stage patch is a plain
# "diff -u" of new files (a/ and b/ paths) from what they are before the
# step to what they are after; the series starts from the files as they
# are in this tree with every stage patch taken back, last first (see
# host/series.sh).
# "new-files.sh list" prints every path once; "new-files.sh groups" prints
# one line per commit: the message file, the glue patch it follows or -,
# then its paths, and its stage patch as patch:<path>; "new-files.sh
# stages" prints the stage patches in series order.
. "$(dirname "$0")/common.sh"

awk -v mode="${1:-list}" '
	/^#/ || NF == 0 { next }
	$1 == "commit" {
		if (mode == "groups" && line != "") print line
		line = $2 " " ($3 == "after" ? $4 : "-")
		next
	}
	$1 == "patch" {
		if (mode == "stages") print $2
		line = line " patch:" $2
		next
	}
	mode == "stages" { next }
	mode == "list" { sub(/@.*/, "", $1); if (!seen[$1]++) print $1; next }
	{ line = line " " $1 }
	END { if (mode == "groups" && line != "") print line }
' "$TOP/patches/new-files"
