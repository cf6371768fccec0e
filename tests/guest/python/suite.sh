# SPDX-License-Identifier: GPL-2.0 OR MIT
# python: the udmem Python package's pytest suite, run with the host's own
# Debian python3 (root over 9p) against the modules built for this target.
top=$(cat /udmem/host-top)
if [ ! -x /host/usr/bin/python3 ]; then
	tap_fail pytest "no host root at /host (this suite needs a host9p target)"
else
	# The guest's /run is a tmpfs; the host's /tmp stays as it is (the
	# repository may live there), read-only.
	mkdir -p /run/udmem-tmp
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/run/udmem-tmp TMPDIR=/run/udmem-tmp \
		PYTHONDONTWRITEBYTECODE=1 UDMEM_SUITE=python \
		PYTHONPATH="$top/python/src:$top/tests/qemu" \
		UDMEM_MODULES="$top/build/$UDMEM_TARGET/modules" \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider -p udmem_pytest_tap \
		"$top/python/tests" > /run/udmem-tmp/pytest.log 2>&1
	# Result lines go to the harness; without any, show why.
	grep -E '^(ok|not ok) - ' /run/udmem-tmp/pytest.log ||
		tail -n 20 /run/udmem-tmp/pytest.log | sed 's/^/# pytest: /'
fi
