#!/usr/bin/env python3
"""Rewrite the steps of the series through a transform of their files.

    host/series-retree.py MODULE [BRANCH]

For each commit of BRANCH (default bvt-series) after the pristine tag in
build/series-tree, numbered from 1 as in patches/series, the files that
MODULE's FILES lists are passed through MODULE.transform(n, path, text),
which returns the new text, None to keep the file, or MODULE.DELETE to
take it out of that step; MODULE.message(n, text), if there is one,
rewrites the commit message.  The commits are made again on the new
trees, each on the one before, with their authors and dates, and BRANCH
is moved to the last.

This is how lines that an early step carries for a later one move there
(host/README.md, procedure 3): the transform takes them out of every
step before the landing step and leaves that step and the ones after it
as they are, so the landing step's diff gains them and the series still
ends with the same files.  A transform should check that what it takes
out is gone from every step it rewrites (raise SystemExit naming the
step), so that a version of a file it did not foresee stops it.  Then
"host/series.sh write" and "BVT_SERIES_TOUCHED=50 host/series.sh touched".
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.join(os.environ.get("BUILD", os.path.join(TOP, "build")),
                    "series-tree")


def load(path):
    spec = importlib.util.spec_from_file_location("transform", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().split("\n\n")[1])
    mod = load(sys.argv[1])
    branch = sys.argv[2] if len(sys.argv) == 3 else "bvt-series"
    delete = getattr(mod, "DELETE", object())
    index = tempfile.NamedTemporaryFile(prefix="retree-index-", delete=False)
    index.close()
    env = dict(os.environ, GIT_INDEX_FILE=index.name)

    def git(*args, data=None, extra=None):
        return subprocess.run(["git", "-C", REPO, *args], input=data,
                              env=dict(env, **(extra or {})), check=True,
                              capture_output=True).stdout

    commits = git("rev-list", "--reverse", "pristine.." + branch).split()
    parent = git("rev-parse", "pristine").strip()
    for n, c in enumerate(c.decode() for c in commits):
        n += 1
        git("read-tree", c)
        for path in mod.FILES:
            if not git("ls-tree", c, "--", path):
                continue
            text = git("show", f"{c}:{path}").decode()
            new = mod.transform(n, path, text)
            if new is None or new == text:
                continue
            if new is delete or new == delete:
                git("update-index", "--force-remove", path)
                continue
            blob = git("hash-object", "-w", "--stdin",
                       data=new.encode()).strip().decode()
            mode = git("ls-tree", c, "--", path).split()[0].decode()
            git("update-index", "--cacheinfo", f"{mode},{blob},{path}")
        tree = git("write-tree").strip().decode()
        msg = git("log", "-1", "--format=%B", c).decode().rstrip("\n") + "\n"
        if hasattr(mod, "message"):
            msg = mod.message(n, msg)
        who = git("log", "-1", "--date=raw",
                  "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd",
                  c).decode().strip().split("\0")
        parent = git("commit-tree", tree, "-p", parent, data=msg.encode(),
                     extra=dict(zip(("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                                     "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
                                     "GIT_COMMITTER_EMAIL",
                                     "GIT_COMMITTER_DATE"), who))).strip()
        parent = parent.decode()
    os.unlink(index.name)
    git("update-ref", "refs/heads/" + branch, parent)
    # The worktree has the branch out: its index follows the new tip.
    subprocess.run(["git", "-C", REPO, "reset", "-q"], check=True)
    print(f"{branch}: {len(commits)} commits rewritten, now {parent[:12]}")


if __name__ == "__main__":
    main()
