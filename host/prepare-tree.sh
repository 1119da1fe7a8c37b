#!/bin/bash
# Make $SRC the pinned Debian kernel source with the series on top: the
# patches of patches/series applied with "git am" on a pristine commit (in
# a scratch worktree, redone when a patch changed; "git am" takes no fuzz),
# then this tree's files of the series copied in, so that an edit builds
# before "make series" has put it into the series.  Both only rewrite files
# whose content changed, so the kernel build stays incremental.
. "$(dirname "$0")/common.sh"

TARBALL=/usr/src/linux-source-6.12.tar.xz
GIT=(git -C "$SRC" -c user.name=bvt -c user.email=bvt@localhost)

if ! "${GIT[@]}" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	step "unpacking $TARBALL into $SRC"
	have=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	[ "$have" = "$KERNEL_DEB_VERSION" ] ||
		die "linux-source-6.12 is $have, expected $KERNEL_DEB_VERSION"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1
	grep -q "^SUBLEVEL = ${KERNEL_VERSION##*.}\$" "$SRC.tmp/Makefile" ||
		die "unexpected kernel version in $TARBALL"
	mv "$SRC.tmp" "$SRC"
	"${GIT[@]}" init -q -b master
	"${GIT[@]}" add -A -f	# Debian's .gitignore hides the whole top level
	"${GIT[@]}" commit -q -m "Linux $KERNEL_VERSION (Debian $KERNEL_DEB_VERSION)"
	"${GIT[@]}" tag pristine
fi

stamp=$(cd "$TOP/patches" && cat series $(grep -v '^#' series) | sha1sum | cut -c1-40)
if [ "$(cat "$SRC/.git/bvt-series-stamp" 2>/dev/null)" != "$stamp" ]; then
	step "applying patches/series"
	work=$BUILD/apply-tree
	git -C "$SRC" worktree remove --force "$work" 2>/dev/null || rm -rf "$work"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$work" pristine
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		git -C "$work" -c user.name=bvt -c user.email=bvt@localhost \
			am -q "$TOP/patches/$p" || die "patch $p does not apply"
	done <"$TOP/patches/series"
	patched=$(git -C "$work" rev-parse HEAD)
	git -C "$SRC" worktree remove --force "$work"
	"${GIT[@]}" reset -q --hard "$patched"
	echo "$stamp" >"$SRC/.git/bvt-series-stamp"
fi

# This tree's files of the series, and none that it no longer has.
mine=$(series_files | sort)
while read -r f; do
	if ! cmp -s "$TOP/$f" "$SRC/$f"; then
		mkdir -p "$(dirname "$SRC/$f")"
		cp "$TOP/$f" "$SRC/$f"
		echo "  updated $f" >&2
	fi
done <<<"$mine"
"${GIT[@]}" diff --name-only --diff-filter=A pristine HEAD | sort |
	comm -23 - <(echo "$mine") | while read -r f; do
		rm -f "$SRC/$f"
		echo "  removed $f" >&2
	done
