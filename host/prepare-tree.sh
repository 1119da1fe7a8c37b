#!/bin/bash
# Make $SRC the pinned Debian kernel source with our series on top:
#   - the glue patches in patches/series, applied with "git am" on a
#     pristine commit in a scratch worktree, then checked out in $SRC;
#   - the files the series adds (listed in patches/new-files), copied in.
# Both only rewrite files whose content changed, so the kernel build stays
# incremental.
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
	"${GIT[@]}" init -q
	"${GIT[@]}" add -A -f	# Debian's .gitignore hides the whole top level
	"${GIT[@]}" commit -q -m "Linux $KERNEL_VERSION (Debian $KERNEL_DEB_VERSION)"
	"${GIT[@]}" tag pristine
fi

# Glue patches: applied in a scratch worktree, redone when a patch changed.
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

# New files.
while read -r f; do
	if ! cmp -s "$TOP/$f" "$SRC/$f"; then
		mkdir -p "$(dirname "$SRC/$f")"
		cp "$TOP/$f" "$SRC/$f"
		echo "  updated $f" >&2
	fi
done < <("$TOP/host/new-files.sh" list)
