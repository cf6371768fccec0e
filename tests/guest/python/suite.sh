# SPDX-License-Identifier: GPL-2.0 OR MIT
# python: the udmem Python package's pytest suite, run with Debian's python3
# from the root over 9p (the host's own, or the target architecture's Debian
# packages with the repository shared as /udmem-top) against the modules
# built for this target.
top=$(cat /udmem/host-top)

# py_chroot CMD...: CMD in the root over 9p, with a clean environment.  The
# root is read-only and an unpacked root has no byte code: every Python
# process would compile each module it imports again (numpy's, pytest's,
# pip's) under emulation.  PYTHONPYCACHEPREFIX keeps the byte code in the
# guest's tmpfs, so each module is compiled once a boot.  A root with byte
# code of its own (the host's, where Debian's packages compiled it) is used
# as it is: with the prefix set, Python would not look there.
if ls -d /host/usr/lib/python3*/__pycache__ > /dev/null 2>&1; then
	py_bytecode=PYTHONDONTWRITEBYTECODE=1
else
	py_bytecode=PYTHONPYCACHEPREFIX=/run/udmem-tmp/pycache
fi
py_chroot() {
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/run/udmem-tmp TMPDIR=/run/udmem-tmp "$py_bytecode" "$@"
}

# The package as a user installs it on the board: pip installs the wheel
# (pure Python, built on the host into build/<target>/dist by the harness;
# tests/unit/python-dist builds and checks both distributions) into a fresh
# venv (numpy from the system: no index is reached), and the ten-line example
# runs with that venv's python against the real drivers.
py_dist() {
	d=/run/udmem-tmp/dist
	rm -rf $d && mkdir -p $d
	set -- "/host$top/build/$UDMEM_TARGET/dist/"udmem-*-py3-none-any.whl
	if [ ! -f "$1" ]; then
		tap_fail dist-wheel-present "no wheel in $top/build/$UDMEM_TARGET/dist"
		return
	fi
	whl=${1#/host}
	if py_chroot sh -c "python3 -m venv --without-pip --system-site-packages $d/venv &&
		python3 -m pip --python $d/venv/bin/python install -q --no-index --no-deps $whl" \
		> $d/pip.log 2>&1; then
		tap_ok dist-wheel-installs-in-fresh-venv
	else
		tap_fail dist-wheel-installs-in-fresh-venv "$(tail -n 3 $d/pip.log | tr '\n' ' ')"
		return
	fi
	where=$(py_chroot sh -c "cd / && $d/venv/bin/python -c 'import udmem; print(udmem.__file__)'" 2>&1)
	case $where in
	$d/venv/*) tap_ok dist-imports-from-venv ;;
	*) tap_fail dist-imports-from-venv "udmem came from: $where" ;;
	esac
	loaded=""
	for m in u-dma-buf u-dma-buf-mgr; do
		[ -d "/sys/module/$(echo $m | tr - _)" ] && continue
		udmem_insmod $m && loaded="$m $loaded"
	done
	out=$(py_chroot sh -c "cd / && $d/venv/bin/python $top/python/examples/ten_lines.py" 2>&1)
	# shellcheck disable=SC2086 # the two words the example prints
	set -- $out
	if [ "${1#0x}" != "$1" ] && [ "$2" = 2048 ]; then
		tap_ok dist-example-ten-lines
	else
		tap_fail dist-example-ten-lines "printed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
	for m in $loaded; do
		udmem_rmmod "$m" || tap_fail "dist-rmmod-$m" "rmmod $m failed"
	done
}
if [ ! -x /host/usr/bin/python3 ]; then
	tap_fail pytest "no root with python3 at /host (this suite needs a host9p target)"
elif [ ! -d "/host$top/python" ] &&
	! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro udmemtop "/host$top"; then
	tap_fail pytest "cannot mount the repository (9p tag udmemtop) at /host$top"
else
	# The guest's /run is a tmpfs; the host's /tmp stays as it is (the
	# repository may live there), read-only.
	mkdir -p /run/udmem-tmp
	# vgem (the target's guest_kmods, from the initramfs) gives the DMA-BUF
	# import example a foreign DMA-BUF; without it that test SKIPs.
	py_kmods=
	for m in drm drm_kms_helper drm_shmem_helper vgem; do
		[ -d "/sys/module/$m" ] && continue
		[ -f "/udmem/kmods/$m.ko" ] || break
		insmod "/udmem/kmods/$m.ko" || break
		py_kmods="$m $py_kmods"
	done
	# vivid (with its V4L2 modules, in this order) gives the V4L2 capture
	# example a camera; without it that test SKIPs.
	for m in mc videodev rc-core cec v4l2-dv-timings v4l2-tpg videobuf2-common \
			videobuf2-v4l2 videobuf2-memops videobuf2-dma-contig videobuf2-vmalloc vivid; do
		l=$(echo $m | tr - _)
		[ -d "/sys/module/$l" ] && continue
		[ -f "/udmem/kmods/$m.ko" ] || break
		if [ $m = vivid ]; then
			insmod /udmem/kmods/vivid.ko n_devs=1 allocators=1 || break
		else
			insmod "/udmem/kmods/$m.ko" || break
		fi
		py_kmods="$l $py_kmods"
	done
	# IIO's dmaengine buffer (6.11's DMABUF interface) gives udmem.iio's
	# device tests the test IIO device; without it they SKIP.
	for m in industrialio industrialio-buffer-dma industrialio-buffer-dmaengine; do
		l=$(echo $m | tr - _)
		[ -d "/sys/module/$l" ] && continue
		[ -f "/udmem/kmods/$m.ko" ] || break
		insmod "/udmem/kmods/$m.ko" || break
		py_kmods="$l $py_kmods"
	done
	py_chroot UDMEM_SUITE=python \
		PYTHONPATH="$top/python/src:$top/tests/qemu" \
		UDMEM_MODULES="$top/build/$UDMEM_TARGET/modules" \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider -p udmem_pytest_tap \
		--durations=8 "$top/python/tests" > /run/udmem-tmp/pytest.log 2>&1
	# Result lines go to the harness; without any, show why.
	grep -E '^(ok|not ok) - ' /run/udmem-tmp/pytest.log ||
		tail -n 20 /run/udmem-tmp/pytest.log | sed 's/^/# pytest: /'
	# The slowest tests, for whoever trims the run time.
	sed -n '/slowest .*durations/,/^$/p' /run/udmem-tmp/pytest.log | sed 's/^/# pytest: /'
	# Each comes out again: a DMA-BUF of ours left behind would hold vgem,
	# videobuf2 or the DRM core.  On 6.12, rc_core keeps two references
	# with no module using it after vivid and cec are gone: the remote-
	# control core is nowhere on a DMA-BUF's path, so that is a SKIP.
	for m in $py_kmods; do
		for _ in 1 2 3; do
			rmmod "$m" 2> /dev/null && break
			sleep 1
		done
		grep -q "^$m " /proc/modules || continue
		if [ "$m" = rc_core ]; then
			tap_skip "rmmod-$m" "the kernel's rc_core stays in use after vivid and cec: $(grep "^$m " /proc/modules)"
		else
			tap_fail "rmmod-$m" "rmmod $m failed: $(grep "^$m " /proc/modules)"
		fi
	done
	py_dist
fi
