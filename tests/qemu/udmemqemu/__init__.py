# SPDX-License-Identifier: GPL-2.0 OR MIT
"""udmem's QEMU test harness: Debian kernels booted under TCG, udmem's tests inside.

Modules, in the order a run uses them:
  config  where things live; the targets (tests/qemu/targets/*.conf)
  apt     a private apt for Debian's kernel packages
  fetch   download and unpack a target's kernel, headers, kbuild, busybox
  build   the modules and the static guest programs
  image   the initramfs (with init.sh as /init) and the device tree
  qemu    the QEMU command line
  boot    boot a guest with its host-side peers, collect the console
  parse   results from a console
  runner  targets, host unit tests, the harness self-test
  cli     the udmem-qemu command line
"""
