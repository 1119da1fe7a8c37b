#!/bin/bash
# patches/new-files lists the files the series adds, in commit groups:
#   commit <message file under patches/>
#   <path>...
# "new-files.sh list" prints every path; "new-files.sh groups" prints one
# line per commit: the message file, then its paths.
. "$(dirname "$0")/common.sh"

awk -v mode="${1:-list}" '
	/^#/ || NF == 0 { next }
	$1 == "commit" { if (mode == "groups" && line != "") print line; line = $2; next }
	mode == "list" { print $1; next }
	{ line = line " " $1 }
	END { if (mode == "groups" && line != "") print line }
' "$TOP/patches/new-files"
