# SPDX-License-Identifier: GPL-2.0
#
# User-facing build file (the kbuild-facing one is Kbuild).
#
#   make                  modules for the running kernel (+ tools/padlock-bench)
#   make KVER=<release>   ... for another installed kernel, or KDIR=<headers dir>
#   make dkms-install     install the sources under /usr/src and build/install
#                         them with DKMS (updates/dkms, shadowing in-tree modules)
#   make dkms-uninstall   the reverse
#   make setup            install what the tests need (Debian, root) and fetch
#                         the kernel matrix into $(PADLOCK_CACHE)
#   make matrix           build against every kernel of the matrix, W=1, table
#   make demo             the main job: VM with the simulated CPU, the drivers
#                         loaded, the comparison report
#   make check            the whole test suite; ends with "N passed, N failed"
#   make check-long       the same with the large counts (fuzzing, long
#                         differential runs; RESUME=1 goes on with a stopped run)
#   make checkpatch       checkpatch.pl --strict over the sources
#   make bench-figures    padlock-bench against cryptsetup benchmark and
#                         kcapi-speed in one VM (build/bench-figures/)
#   make debug-kernel     build Debian's 6.12 source with KASAN, lockdep,
#                         kmemleak and the randomized crypto self-tests
#   make check-debug      the debug-kernel lane: our drivers and the in-tree
#                         ones through the randomized self-tests, the suite
#                         under KASAN/lockdep/kmemleak, a deliberate fault
#   make qemu             QEMU with PadLock in its software CPU, from Debian's
#                         source package and the series in
#                         tools/testing/qemu/upstream, for tools/testing/vm/run
#                         --cpu-model qemu and tools/testing/user/run (make
#                         setup builds it too; this rebuilds it after a change)

VERSION := $(shell cat VERSION)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PADLOCK_CACHE ?= /var/cache/padlock
export PADLOCK_CACHE

DKMS_NAME := padlock
DKMS_SRC := $(DESTDIR)/usr/src/$(DKMS_NAME)-$(VERSION)
MODPROBE_CONF := $(DESTDIR)/etc/modprobe.d/padlock-blacklist-via-rng.conf

all: modules bench

modules:
	@test -d $(KDIR) || { echo "No kernel headers in $(KDIR): apt-get install linux-headers-$(KVER) (or pass KDIR=...)."; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

bench:
	@if [ -e tools/padlock-bench/Makefile ]; then $(MAKE) -C tools/padlock-bench; fi

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	-@if [ -e tools/padlock-bench/Makefile ]; then $(MAKE) -C tools/padlock-bench clean; fi
	rm -rf build

# What ships (make dkms-install, the padlock-dkms package): the build files,
# the three drivers and their headers; never drivers/sim/ or drivers/test/
# (the simulator and the test modules).  make dkms-sources prints the list.
DKMS_SOURCES := Kbuild Makefile VERSION dkms.conf \
	$(sort $(shell find include drivers/aes drivers/sha drivers/rng -type f -name '*.[ch]'))

dkms-sources:
	@printf '%s\n' $(DKMS_SOURCES)

dkms-install:
	@command -v dkms >/dev/null || { echo "dkms is missing: apt-get install dkms"; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp --parents -t $(DKMS_SRC) $(DKMS_SOURCES)
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' $(DKMS_SRC)/dkms.conf
	install -D -m 644 packaging/dkms/padlock-blacklist-via-rng.conf $(MODPROBE_CONF)
	dkms add -m $(DKMS_NAME) -v $(VERSION)
	dkms build -m $(DKMS_NAME) -v $(VERSION) -k $(KVER)
	dkms install -m $(DKMS_NAME) -v $(VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove -m $(DKMS_NAME) -v $(VERSION) --all
	rm -rf $(DKMS_SRC)
	rm -f $(MODPROBE_CONF)

setup:
	tools/testing/setup

fetch:
	tools/testing/kernels/fetch

matrix:
	tools/testing/kernels/build

demo:
	tools/testing/demo

check:
	tools/testing/check

check-long:
	PADLOCK_SCALE=long tools/testing/check $(if $(RESUME),--resume)

checkpatch:
	tools/testing/checkpatch

# The installed-system tests: LUKS2 root image, padlock-dkms installed with
# apt, booted by QEMU with and without the package (tools/testing/image/check).
check-image:
	tools/testing/image/check --upgrade && tools/testing/image/check --release trixie && \
		tools/testing/image/check --release bookworm-i386

bench-figures:
	tools/measure/bench-figures

debug-kernel:
	tools/testing/debug/kernel

check-debug:
	tools/testing/debug/check

qemu:
	tools/testing/qemu/build

# make deb: the Debian packages padlock-dkms and padlock-bench (debian/), built
# and lintian-checked in the bookworm build root, into build/deb/ (packaging/deb).
deb:
	packaging/deb

.PHONY: deb

.PHONY: all modules bench clean dkms-sources dkms-install dkms-uninstall setup fetch matrix demo check check-long check-image checkpatch debug-kernel check-debug bench-figures qemu
