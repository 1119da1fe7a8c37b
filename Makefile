# Host-side entry points; see README.md.
.PHONY: demo check build series repro stress configs deb install-test docs clean

demo:
	host/demo.sh

check:
	host/check.sh

build:
	host/setup.sh
	host/prepare-tree.sh
	host/build.sh

series:
	host/series.sh update check

# make repro [EXP=mpeg-grep] [VARIANT=short]: the paper's experiments, or
# one of them.
EXPERIMENTS = mpeg-grep rt web deadlines overhead vtime coop pbs pbs-groupa pbs-groupb rialto qas latency scx
EXP ?= $(EXPERIMENTS)
repro:
	for e in $(EXP); do host/repro.sh $$e $(VARIANT) || exit 1; done

# make stress [SECONDS=60]: bvt_stress in a 2- and a 4-vCPU boot.
SECONDS ?= 60
stress:
	host/stress.sh $(SECONDS)

# make configs [CONFIGS='nocoop nopbs norsv noqas']: every test in a boot
# of the kernel with each mechanism off in turn.
CONFIGS ?= nocoop nopbs norsv noqas
configs:
	host/configs.sh "$(CONFIGS)"

# make deb [CONFIG=auto|distro|prod] [LOCALMODCONFIG=1]: Debian packages
# of the patched kernel and of its tools, checked; see host/deb.sh.
deb:
	host/deb.sh

# make install-test [SUITE=trixie|bookworm]: the packages installed into a
# Debian image, booted through GRUB, tested and removed; see
# host/install-test.sh.
install-test:
	host/install-test.sh

# make docs: the rst through the kernel's Sphinx, the man pages linted.
docs:
	host/docs.sh

clean:
	rm -rf build
