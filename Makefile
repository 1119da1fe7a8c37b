# Host-side entry points; see README.md.
.PHONY: demo check build series repro clean

demo:
	host/demo.sh

check:
	host/check.sh

build:
	host/setup.sh
	host/prepare-tree.sh
	host/build.sh

series:
	host/series.sh check

# make repro EXP=mpeg-grep [VARIANT=short]: one of the paper's experiments.
EXP ?= mpeg-grep
repro:
	host/repro.sh $(EXP) $(VARIANT)

clean:
	rm -rf build
