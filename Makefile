# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# udmem top-level Makefile.
#
#   make test [TARGETS=arm64,x86_64]   host tests, then every QEMU target's guest tests
#   make demo                          the benchmark on the emulated ZynqMP-class board
#   make check                         style gates: checkpatch --strict (kernel and user space),
#                                      sparse, W=1, ruff, mypy, shellcheck
#   make modules KERNEL_SRC=...        the kernel modules (see kernel/Makefile)
#   make all                           libudmem and the udmem tool for this machine

QEMU := tests/qemu/udmem-qemu

all:
	@if [ -f lib/Makefile ]; then $(MAKE) -C lib; fi
	@if [ -f cli/Makefile ]; then $(MAKE) -C cli; fi

modules:
	$(MAKE) -C kernel

setup:
	@scripts/setup-host.sh

test: setup
	$(QEMU) test $(if $(TARGETS),--targets $(TARGETS))

demo: setup
	scripts/demo.sh

check: setup
	scripts/check.sh

clean:
	rm -rf build
	-$(MAKE) -C kernel clean KERNEL_SRC=/nonexistent 2>/dev/null || true

.PHONY: all modules setup test demo check clean
