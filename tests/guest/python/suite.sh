# SPDX-License-Identifier: GPL-2.0 OR MIT
# python: the udmem Python package's pytest suite, run with the host's own
# Debian python3 (root over 9p) against the modules built for this target.
top=$(cat /udmem/host-top)
if [ ! -x /host/usr/bin/python3 ]; then
	tap_fail pytest "no host root at /host (this suite needs a host9p target)"
else
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
		PYTHONDONTWRITEBYTECODE=1 UDMEM_SUITE=python \
		PYTHONPATH="$top/python/src:$top/tests/qemu" \
		UDMEM_MODULES="$top/build/$UDMEM_TARGET/modules" \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider -p udmem_pytest_tap \
		"$top/python/tests" 2>&1 | grep -E '^(ok|not ok) - |^[0-9]+ (passed|failed)|^(FAILED|ERROR)'
fi
