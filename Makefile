# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# udmem top-level Makefile.
#
#   make test [TARGETS=arm64,x86_64]   host tests, then every QEMU target's guest tests
#   make demo                          the benchmark on the arm64-6.12 guest (BOARD=zcu102: the board)
#   make check                         style gates: checkpatch --strict (kernel and user space),
#                                      sparse, W=1, ruff, mypy, shellcheck
#   make modules KERNEL_SRC=...        the kernel modules (see kernel/Makefile)
#   make all                           libudmem and the udmem tool for this machine
#   make install [PREFIX=/usr/local] [DESTDIR=]
#                                      libudmem, udmem.h, the tool and the UAPI headers
#                                      (include/uapi/linux/*.h to $(PREFIX)/include/linux/)
#   make deb                           the Debian packages (and lintian's report) in build/deb/

QEMU := tests/qemu/udmem-qemu

all:
	@if [ -f lib/Makefile ]; then $(MAKE) -C lib; fi
	@if [ -f cli/Makefile ]; then $(MAKE) -C cli; fi

modules:
	$(MAKE) -C kernel

PREFIX     ?= /usr/local
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR    ?=

# Programs write #include <linux/u-dma-buf-ioctl.h> and <linux/uiomem.h>.
install-headers:
	install -d $(DESTDIR)$(INCLUDEDIR)/linux
	install -m 0644 include/uapi/linux/*.h $(DESTDIR)$(INCLUDEDIR)/linux/

install: all install-headers
	$(MAKE) -C lib install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) -C cli install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

setup:
	@scripts/setup-host.sh

test: setup
	$(QEMU) test $(if $(TARGETS),--targets $(TARGETS))

demo: setup
	scripts/demo.sh

check: setup
	scripts/check.sh

# A copy of the tree without build/, so that dpkg-buildpackage's outputs
# land in build/deb/ and the work tree stays clean.
DEB_VERSION := $(shell dpkg-parsechangelog -S Version 2>/dev/null)
deb:
	rm -rf build/deb && mkdir -p build/deb/udmem-$(DEB_VERSION)
	tar -c --exclude=./build --exclude=./.git --exclude='*.o' . | \
		tar -x -C build/deb/udmem-$(DEB_VERSION)
	# The system python3 (a python3 earlier on PATH lacks the Debian modules).
	cd build/deb/udmem-$(DEB_VERSION) && PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		dpkg-buildpackage -us -uc -b
	lintian --info --display-info --fail-on error,warning build/deb/*.changes

clean:
	rm -rf build
	-$(MAKE) -C kernel clean KERNEL_SRC=/nonexistent 2>/dev/null || true

.PHONY: all modules install install-headers setup test demo check deb clean
