#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# setup-host.sh - install the host packages udmem's build, tests and demo need
# (Debian bookworm, as root).  Does nothing when everything is present.
set -eu

PKGS="qemu-system-x86 qemu-system-arm qemu-system-misc qemu-user
device-tree-compiler busybox-static cpio kmod xz-utils bc gcc make libc6-dev
cpp rsync flex bison libelf-dev libssl-dev
gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-riscv64-linux-gnu
libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-riscv64-cross
sparse python3 python3-numpy python3-pytest python3-venv python3-pip
python3-build python3-setuptools python3-wheel mypy shellcheck
clang libclang-rt-14-dev
debian-archive-keyring ca-certificates
mmdebstrap debhelper dh-dkms dh-python pybuild-plugin-pyproject python3-all
lintian fakeroot"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup-host: missing packages:$missing (run as root, or install them)" >&2
		exit 1
	fi
	echo "setup-host: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q update >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# ruff is not packaged for bookworm: take it from PyPI.
if ! command -v ruff >/dev/null 2>&1; then
	python3 -m pip install -q ruff >/dev/null 2>&1 ||
		python3 -m pip install -q --break-system-packages ruff >/dev/null
fi
# oelint-adv checks the Yocto layer meta-udmem (tests/unit/yocto): PyPI only.
if ! command -v oelint-adv >/dev/null 2>&1; then
	python3 -m pip install -q oelint-adv >/dev/null 2>&1 ||
		python3 -m pip install -q --break-system-packages oelint-adv >/dev/null
fi
exit 0
