#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# check.sh - style gates: checkpatch --strict (kernel and user-space C),
# sparse, W=1, ruff, mypy, shellcheck.
# Prints one TAP line per gate and file group, then "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
CACHE=${UDMEM_CACHE:-$HOME/.cache/udmem}
pass=0 fail=0 skip=0
ok() { echo "ok - check/$1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - check/$1 # $2"; fail=$((fail + 1)); }
skipped() { echo "ok - check/$1 # SKIP $2"; skip=$((skip + 1)); }
# The lines of a finding, as TAP comments.
detail() { printf '%s\n' "$1" | sed 's/^/#   /'; }

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

# checkpatch TYPES-TO-IGNORE FILE...: one TAP line for each FILE.  One
# checkpatch run for them all (a perl start each cost half the time); its
# terse findings start with the file's name.
run_checkpatch() {
	local ignore=$1 all out f

	shift
	all=$("$cp/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore "$ignore" -f "$@" 2>&1 | grep -E ': (ERROR|WARNING|CHECK):')
	for f in "$@"; do
		out=$(printf '%s\n' "$all" | awk -v f="$f:" 'index($0, f) == 1')
		if [ -n "$out" ]; then
			not_ok "checkpatch/$f" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
			detail "$out"
		else
			ok "checkpatch/$f"
		fi
	done
}

# Kernel code: everything checkpatch checks, SPDX tags included.
KERNEL_IGNORE=FILE_PATH_CHANGES,LINUX_VERSION_CODE
# User-space C (libudmem, the tool, the bench, host tests) follows the kernel
# style too, minus what only makes sense in the kernel: stdint types
# (PREFER_KERNEL_TYPES), the kernel's __printf() macro, <inttypes.h> names
# such as PRIu64 (CAMELCASE), and volatile, which is how user space forces
# the bench's page touches (the kernel has READ_ONCE instead).
USER_IGNORE=FILE_PATH_CHANGES,PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE,VOLATILE

kfiles=$(git ls-files 'kernel/*.c' 'kernel/*.h' 'include/uapi/*.h' 'tests/kmod/*.c' 2>/dev/null)
ufiles=$(git ls-files 'lib/*.[ch]' 'cli/*.[ch]' 'bench/*.[ch]' 'tests/unit/*.c' \
	'tests/unit/*/*.c' 2>/dev/null)
if [ -z "$kfiles$ufiles" ]; then
	skipped checkpatch "no C sources yet"
elif cp=$(checkpatch_dir); then
	# shellcheck disable=SC2086 # one file name a word
	[ -z "$kfiles" ] || run_checkpatch "$KERNEL_IGNORE" $kfiles
	# shellcheck disable=SC2086
	[ -z "$ufiles" ] || run_checkpatch "$USER_IGNORE" $ufiles
else
	not_ok checkpatch "could not fetch checkpatch.pl from linux-source-6.1"
fi

# Kernel-version tests live in one place only.
vfiles=$(git grep -l LINUX_VERSION_CODE -- kernel tests/kmod | grep -v '^kernel/compat.h$')
if [ -n "$vfiles" ]; then
	not_ok version-checks-only-in-compat.h "LINUX_VERSION_CODE in: $(echo "$vfiles" | tr '\n' ' ')"
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
		detail "$warn"
	else
		ok "kbuild/$t/W=1+sparse"
	fi
	rm -rf "$tmp"
done

# ruff over the Python sources and the harness's launcher, tests/qemu/udmem-qemu
# (Python without the .py, which imports the udmemqemu package beside it).
pyfiles="$(git ls-files '*.py' 2>/dev/null) tests/qemu/udmem-qemu"
# shellcheck disable=SC2086
if ! command -v ruff >/dev/null 2>&1; then
	not_ok ruff "ruff is not installed (scripts/setup-host.sh installs it)"
elif out=$(ruff check $pyfiles 2>&1); then
	ok ruff
else
	not_ok ruff "$(echo "$out" | head -n 2 | tr '\n' ' ')"
	detail "$out"
fi

# mypy --strict over the Python package (it ships py.typed) and its generator;
# the configuration is python/pyproject.toml's [tool.mypy].  Against the
# system's numpy (python3-numpy): a numpy that pip put in the user's site
# (~/.local) has other type stubs, and the gate must not depend on it.
if ! command -v mypy >/dev/null 2>&1; then
	not_ok mypy "mypy is not installed (scripts/setup-host.sh installs it)"
elif out=$(cd python && PYTHONNOUSERSITE=1 mypy 2>&1); then
	ok mypy
else
	not_ok mypy "$(echo "$out" | head -n 2 | tr '\n' ' ')"
	detail "$out"
fi

# Every shell script goes through shellcheck, in its own dialect.  The
# guest's scripts (its /init and the suites) run under busybox sh (POSIX);
# the suites are sourced after `. /udmem/lib.sh` (SC1091: not here to follow).
# The debug-kernel scripts are bash (lib.sh says so with a directive);
# build-kernel's lib.sh is followed, for the variables it sets.
if ! command -v shellcheck >/dev/null 2>&1; then
	not_ok shellcheck "shellcheck is not installed (scripts/setup-host.sh installs it)"
else
	for f in $(git ls-files 'scripts/*.sh' '.ci/run' 'tests/guest/*.sh' \
		'tests/qemu/udmemqemu/init.sh' 'tests/qemu/udmemqemu/rootfs-init.sh' \
		'tests/qemu/debug/*.sh' 'tests/qemu/debug/build-kernel'); do
		case $f in
		tests/guest/* | tests/qemu/udmemqemu/*init.sh) opts="-s sh" ;;
		tests/qemu/debug/*) opts="-x" ;;	# follows its "source=lib.sh"
		*) opts="" ;;
		esac
		# shellcheck disable=SC2086
		out=$(shellcheck $opts -e SC1091 -f gcc "$f" 2>&1)
		if [ -z "$out" ]; then
			ok "shellcheck/$f"
		else
			not_ok "shellcheck/$f" "$(echo "$out" | head -n 2 | tr '\n' ' ')"
			detail "$out"
		fi
	done
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
