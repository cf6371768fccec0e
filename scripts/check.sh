#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# check.sh - style gates: checkpatch --strict, sparse, W=1, ruff.
# Prints one TAP line per gate and file group, then "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
CACHE=${UDMEM_CACHE:-$HOME/.cache/udmem}
pass=0 fail=0 skip=0
ok() { echo "ok - check/$1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - check/$1 # $2"; fail=$((fail + 1)); }
skipped() { echo "ok - check/$1 # SKIP $2"; skip=$((skip + 1)); }

# checkpatch.pl comes with Debian's linux-source package; keep its scripts in the cache.
checkpatch_dir() {
	local dir=$CACHE/checkpatch
	if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
		# The harness's private apt configuration (set up by its first fetch) has
		# bookworm and bookworm-security whatever the host's sources are.
		tests/qemu/udmem-qemu env x86_64 >/dev/null || return 1
		mkdir -p "$dir/deb" && (cd "$dir/deb" && APT_CONFIG=$CACHE/apt/apt.conf \
			apt-get -q download linux-source-6.1 >/dev/null 2>&1) || return 1
		dpkg-deb --fsys-tarfile "$dir"/deb/linux-source-6.1_*.deb |
			tar -x -C "$dir/deb" --wildcards '*/linux-source-6.1.tar.xz' || return 1
		tar -xJf "$dir"/deb/usr/src/linux-source-6.1.tar.xz -C "$dir" --strip-components=1 \
			--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' || return 1
		rm -rf "$dir/deb"
	fi
	echo "$dir"
}

kfiles=$(git ls-files 'kernel/*.c' 'kernel/*.h' 'include/uapi/*.h' 'tests/kmod/*.c' 2>/dev/null)
if [ -z "$kfiles" ]; then
	skipped checkpatch "no kernel sources yet"
elif cp=$(checkpatch_dir); then
	for f in $kfiles; do
		out=$("$cp/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
			--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,LINUX_VERSION_CODE -f "$f" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):')
		if [ -n "$out" ]; then
			not_ok "checkpatch/$f" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
			echo "$out" | sed 's/^/#   /'
		else
			ok "checkpatch/$f"
		fi
	done
else
	not_ok checkpatch "could not fetch checkpatch.pl from linux-source-6.1"
fi

# Kernel-version tests live in one place only.
vfiles=$(git grep -l LINUX_VERSION_CODE -- kernel tests/kmod | grep -v '^kernel/compat.h$')
if [ -n "$vfiles" ]; then
	not_ok version-checks-only-in-compat.h "LINUX_VERSION_CODE in: $(echo $vfiles)"
else
	ok version-checks-only-in-compat.h
fi

# sparse and W=1 over the modules, for a coherent (x86_64) and a non-coherent (arm64) target.
for t in x86_64 arm64; do
	if ! envs=$(tests/qemu/udmem-qemu env "$t" 2>/dev/null); then
		not_ok "kbuild/$t" "no headers for $t"
		continue
	fi
	eval "$envs"
	tmp=$(mktemp -d)
	cp -a kernel include "$tmp/"
	# shellcheck disable=SC2086
	out=$(make -C "$tmp/kernel" $KMAKE W=1 C=2 CHECK="sparse -Wno-unknown-attribute" -j2 2>&1)
	rc=$?
	warn=$(echo "$out" | grep -E 'warning:|error:' | grep -v '^make')
	if [ $rc -ne 0 ]; then
		not_ok "kbuild/$t/W=1+sparse" "build failed: $(echo "$warn" | head -n 2 | tr '\n' ' ')"
	elif [ -n "$warn" ]; then
		not_ok "kbuild/$t/W=1+sparse" "$(echo "$warn" | head -n 2 | tr '\n' ' ')"
		echo "$warn" | sed 's/^/#   /'
	else
		ok "kbuild/$t/W=1+sparse"
	fi
	rm -rf "$tmp"
done

pyfiles="$(git ls-files '*.py' 2>/dev/null) tests/qemu/udmem-qemu"
if [ -z "$pyfiles" ]; then
	skipped ruff "no Python sources"
elif ! command -v ruff >/dev/null 2>&1; then
	not_ok ruff "ruff is not installed (scripts/setup-host.sh installs it)"
elif out=$(ruff check $pyfiles 2>&1); then
	ok ruff
else
	not_ok ruff "$(echo "$out" | head -n 2 | tr '\n' ' ')"
	echo "$out" | sed 's/^/#   /'
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
