# Host-side entry points; see README.md.
.PHONY: demo check build series clean

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

clean:
	rm -rf build
