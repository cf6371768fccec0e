# SPDX-License-Identifier: GPL-2.0 OR MIT
# install: the journey of a user on a Debian system (a rootfs target, booted
# with systemd and udev), in two boots.
#
# First boot: `apt install ./*.deb` of what `make deb` built (version
# $UDMEM_DEB_VERSION) builds the modules with DKMS for the running kernel,
# modules-load.d and modprobe.d load them, the udev rule gives group udmem
# the devices and the writable sync attributes, a user in the group runs the
# CLI, a C program linked with `pkg-config --libs libudmem` and the Python
# example, a user outside it gets EACCES with a message naming the device.
# Then the packages of the next version ($UDMEM_UPGRADE_VERSION, built by
# rootfs.py) are installed over them: DKMS rebuilds, the old version's
# module, DKMS tree and sources are gone, and the user's flows still work
# with the old module still loaded; then the guest reboots.
#
# Second boot (UDMEM_RESUME=after-upgrade): systemd-modules-load loaded the
# new modules at boot, udev gave the group its access again, the user's
# flows work (the C program built against the old library runs with the
# new one); removing udmem-dkms and purging the packages leave no module,
# DKMS entry, source, udev rule, file or file of group udmem behind.

W=/var/tmp/udmem-install	# kept across the reboot
kver=$(uname -r)
old=$UDMEM_DEB_VERSION
new=$UDMEM_UPGRADE_VERSION
PKGS="udmem-dkms libudmem1 libudmem-dev udmem-tools python3-udmem"
MODS="u-dma-buf u-dma-buf-mgr uiomem"
export DEBIAN_FRONTEND=noninteractive

# in_t NAME WANT_RC CMD...: run CMD, output in $W/out and $W/err, check its exit code
in_t() {
	_n=$1
	_want=$2
	shift 2
	"$@" > $W/out 2> $W/err
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		tap_ok "$_n"
	else
		tap_fail "$_n" "'$*' exited $_rc, want $_want: $(tail -n 3 $W/err | tr '\n' ' ')"
	fi
}
# in_grep NAME FILE PATTERN
in_grep() {
	if grep -q -e "$3" "$2"; then
		tap_ok "$1"
	else
		tap_fail "$1" "no '$3' in: $(head -n 3 "$2" | tr '\n' ' ')"
	fi
}
# as USER CMD...: CMD as USER in a login-like environment
as() {
	_u=$1
	shift
	runuser -u "$_u" -- env HOME="/home/$_u" PATH=/usr/local/bin:/usr/bin:/bin "$@"
}
# timed NAME CMD...: in_t NAME 0 CMD..., and say how long it took
timed() {
	_t0=$(cut -d. -f1 /proc/uptime)
	in_t "$@"
	echo "# $1: $(($(cut -d. -f1 /proc/uptime) - _t0)) s"
}
# perm PATH: "group:mode" of PATH
perm() { stat -L -c '%G:%a' "$1" 2>&1; }

# dkms_is PREFIX VERSION: DKMS has built and installed udmem/VERSION for the
# running kernel, and knows no other version of udmem
dkms_is() {
	dkms status udmem > $W/dkms 2>&1
	_other=$(grep "^udmem/" $W/dkms | grep -v "^udmem/$2, ")
	if grep -q "^udmem/$2, $kver, .*: installed" $W/dkms && [ -z "$_other" ]; then
		tap_ok "$1-dkms-built-$2-only"
	else
		tap_fail "$1-dkms-built-$2-only" "dkms status: $(tr '\n' ' ' < $W/dkms)"
	fi
}
# modules_are PREFIX VERSION: each module is one file in the running
# kernel's tree, in updates/dkms, and the very file DKMS built for VERSION
modules_are() {
	for _m in $MODS; do
		_files=$(find "/lib/modules/$kver" -name "$_m.ko*" | tr '\n' ' ')
		_built=$(find "/var/lib/dkms/udmem/$2/$kver" -name "$_m.ko*" 2>/dev/null | head -n 1)
		# shellcheck disable=SC2086
		set -- "$1" "$2" $_files
		if [ $# != 3 ]; then
			tap_fail "$1-module-$_m-is-$2" "want one file, have: $_files"
		elif [ "${3#/lib/modules/"$kver"/updates/dkms/}" = "$3" ]; then
			tap_fail "$1-module-$_m-is-$2" "$3 is not in updates/dkms"
		elif [ -z "$_built" ] || ! cmp -s "$3" "$_built"; then
			tap_fail "$1-module-$_m-is-$2" "$3 is not what DKMS built for $2 ('$_built')"
		else
			tap_ok "$1-module-$_m-is-$2"
		fi
	done
}
# versions_are PREFIX VERSION: the five packages are installed at VERSION
versions_are() {
	# shellcheck disable=SC2086
	_got=$(dpkg-query -W -f '${Version} ' $PKGS 2>&1)
	tap_eq "$1-packages-at-$2" "$2 $2 $2 $2 $2 " "$_got"
}
# udev_access PREFIX: the rule gave group udmem the nodes and the sync attributes
udev_access() {
	udevadm settle
	tap_eq "$1-udev-buffer-node" udmem:660 "$(perm /dev/udmabuf0)"
	tap_eq "$1-udev-mgr-node" udmem:660 "$(perm /dev/u-dma-buf-mgr)"
	for _a in sync_offset sync_size sync_direction sync_for_cpu sync_for_device sync_mode; do
		tap_eq "$1-udev-buffer-sysfs-$_a" udmem:664 "$(perm /sys/class/u-dma-buf/udmabuf0/$_a)"
	done
	if [ -n "$ivshmem" ]; then
		tap_eq "$1-udev-region-node" udmem:660 "$(perm /dev/uiomem0)"
		tap_eq "$1-udev-region-sysfs-sync_for_cpu" udmem:664 \
			"$(perm /sys/class/uiomem/uiomem0/sync_for_cpu)"
	else
		tap_skip "$1-udev-region-node" "no ivshmem device for a uiomem region"
	fi
}
# user_flows PREFIX VERSION: alice (in the group) uses the devices with the
# tools, libudmem VERSION and Python; bob (outside it) is refused
user_flows() {
	in_t "$1-user-list-json" 0 as alice udmem list --json
	in_grep "$1-user-list-json-buffer" $W/out '"name": "udmabuf0"'
	in_t "$1-user-tool-version" 0 as alice udmem --version
	tap_eq "$1-user-tool-version-is-$2" "udmem $2" "$(cat $W/out)"
	in_t "$1-user-sync-ioctl" 0 as alice udmem sync udmabuf0 --for cpu --offset 4K --size 4K
	tap_eq "$1-user-sync-reached-driver" 4096 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
	in_t "$1-user-sysfs-sync-write" 0 as alice sh -c \
		'echo 8192 > /sys/class/u-dma-buf/udmabuf0/sync_size'
	tap_eq "$1-user-sysfs-sync-value" 8192 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
	in_t "$1-user-create-through-mgr" 0 as alice udmem create inst-t0 8K
	in_t "$1-user-delete-through-mgr" 0 as alice udmem delete inst-t0
	if [ -e /dev/uiomem0 ]; then
		in_t "$1-user-region-dump" 0 as alice udmem dump uiomem0 --length 16
	fi
	# The program was built against the first version's library: after the
	# upgrade it runs with the new libudmem.so.1.
	in_t "$1-user-c-program-runs" 0 as alice /home/alice/prog udmabuf0
	tap_eq "$1-user-c-program-output" "udmabuf0 65536 0 $2" "$(cat $W/out)"
	in_t "$1-user-python-example" 0 as alice python3 /usr/share/doc/python3-udmem/examples/ten_lines.py
	tap_eq "$1-user-python-example-offset" 2048 "$(sed -n 2p $W/out)"
	in_t "$1-user-python-version" 0 as alice python3 -c 'import udmem; print(udmem.__version__)'
	tap_eq "$1-user-python-version-is-$2" "$2" "$(cat $W/out)"

	in_t "$1-outsider-info-fails" 1 as bob udmem info udmabuf0
	in_grep "$1-outsider-info-message" $W/err \
		"^udmem: udmabuf0: open: Permission denied (errno 13, EACCES)$"
	in_t "$1-outsider-mgr-fails" 1 as bob udmem create inst-t1 4K
	in_grep "$1-outsider-mgr-message" $W/err "errno 13, EACCES"
	in_t "$1-outsider-python-fails" 1 as bob python3 -c 'import udmem; udmem.Buffer.open("udmabuf0")'
	in_grep "$1-outsider-python-message" $W/err "PermissionError.*udmabuf0"
}
# unload: remove our modules (the newest first)
unload() {
	for _m in uiomem u-dma-buf-mgr u-dma-buf; do
		[ -d "/sys/module/$(echo $_m | tr - _)" ] && modprobe -r "$_m"
	done
}

ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
if [ -n "$ivshmem" ]; then
	echo 1 > "$ivshmem/enable"	# memory decoding, for the region's accesses
fi

if [ "$UDMEM_RESUME" != after-upgrade ]; then
	# ======== first boot: install, use, upgrade ========
	rm -rf $W && mkdir -p $W/old $W/new
	for p in $PKGS; do
		cp "$UDMEM_BUILD/../deb/${p}_${old}_"*.deb $W/old/ 2>/dev/null
		cp "$UDMEM_UPGRADE_DEBS/${p}_${new}_"*.deb $W/new/ 2>/dev/null
	done
	set -- $W/old/*.deb $W/new/*.deb
	if [ -z "$old" ] || [ -z "$new" ] || [ $# != 10 ]; then
		tap_fail debs-present "want 5 packages of $old from make deb in $UDMEM_BUILD/../deb and 5 of $new in $UDMEM_UPGRADE_DEBS, have: $*"
		exit 0
	fi
	tap_ok debs-present

	# ---- install: the guest has no network, so apt resolves from the
	# local files and what is installed
	timed apt-install 0 apt-get install -y $W/old/*.deb
	cp $W/out $W/apt.log
	dkms_is install "$old"
	modules_are install "$old"
	versions_are install "$old"
	tap_check group-udmem-exists getent group udmem

	# ---- load as at boot: modules-load.d and modprobe.d, through the unit
	# systemd runs at boot (systemd-modules-load.service)
	grep -v '^#' /usr/share/doc/udmem-dkms/examples/modules-load.conf \
		> /etc/modules-load.d/udmem.conf
	echo "options u-dma-buf udmabuf0=0x10000" > /etc/modprobe.d/udmem.conf
	if [ -n "$ivshmem" ]; then
		bar=$(sed -n 3p "$ivshmem/resource" | cut -d' ' -f1)
		echo "options uiomem uiomem0_addr=$bar uiomem0_size=0x10000" >> /etc/modprobe.d/udmem.conf
	fi
	in_t modules-load-service 0 systemctl restart systemd-modules-load.service
	for m in u_dma_buf u_dma_buf_mgr uiomem; do
		tap_check "module-$m-loaded" test -d "/sys/module/$m"
	done
	udev_access install

	# ---- a user in the group, one outside
	useradd -m -G udmem alice 2>/dev/null
	useradd -m bob 2>/dev/null
	cat > $W/prog.c <<'CEOF'
#include <stdio.h>
#include <string.h>
#include <udmem.h>

int main(int argc, char **argv)
{
	struct udmem_buffer *b;
	void *p;
	int ret = udmem_buffer_open(argv[1], 0, &b);

	if (ret) {
		fprintf(stderr, "open %s: %s\n", argv[1], udmem_strerror(ret));
		return 1;
	}
	ret = udmem_buffer_map(b, &p);
	if (ret) {
		fprintf(stderr, "map: %s\n", udmem_strerror(ret));
		return 1;
	}
	memset(p, 0x5a, 64);
	ret = udmem_buffer_sync_for_device(b, 0, 64, UDMEM_DIR_TO_DEVICE);
	printf("%s %llu %d %s\n", udmem_buffer_name(b),
	       (unsigned long long)udmem_buffer_size(b), ret, udmem_api_version());
	udmem_buffer_close(b);
	return ret ? 1 : 0;
}
CEOF
	chmod 644 $W/prog.c
	chmod 755 $W
	in_t user-c-program-builds 0 as alice sh -c \
		"cc -o /home/alice/prog $W/prog.c \$(pkg-config --cflags --libs libudmem)"
	if ldd /home/alice/prog 2>/dev/null | grep -q -E 'libudmem.so.1 => /(usr/)?lib/'; then
		tap_ok user-c-program-links-libudmem-so
	else
		tap_fail user-c-program-links-libudmem-so "ldd: $(ldd /home/alice/prog 2>&1 | tr '\n' ' ')"
	fi
	tap_check man-page-of-a-function test -f /usr/share/man/man3/udmem_buffer_close.3.gz
	user_flows install "$old"

	# ---- upgrade to the next version, the modules of the old one loaded
	# and in use by nobody
	timed apt-upgrade 0 apt-get install -y $W/new/*.deb
	cp $W/out $W/apt-upgrade.log
	versions_are upgrade "$new"
	dkms_is upgrade "$new"
	modules_are upgrade "$new"
	left=$(ls -d "/usr/src/udmem-$old" "/var/lib/dkms/udmem/$old" 2>/dev/null)
	tap_eq upgrade-old-dkms-tree-gone "" "$(printf '%s' "$left" | tr '\n' ' ')"
	tap_check upgrade-new-sources-present test -f "/usr/src/udmem-$new/dkms.conf"
	udev_access upgrade
	user_flows upgrade "$new"

	# ---- a real reboot: the boot must load the new modules
	rootfs_reboot after-upgrade
	exit 0
fi

# ======== second boot: what the boot loaded, then removal ========
for m in u_dma_buf u_dma_buf_mgr uiomem; do
	tap_check "boot-module-$m-loaded" test -d "/sys/module/$m"
done
# By the program's own identifier, not -u: at boot the unit runs and exits
# before journald reads the queued messages, so journald cannot tell their
# unit (it finds it from the sender's cgroup) and -u sees nothing.
journalctl -b -o cat -t systemd-modules-load > $W/modules-load.log 2>&1
for m in u.dma.buf u.dma.buf.mgr uiomem; do
	in_grep "boot-module-$m-by-modules-load" $W/modules-load.log "Inserted module '$m'"
done
# (a module without MODULE_VERSION has no srcversion on Debian's kernels)
for m in $MODS; do
	f=$(modinfo -n "$m" 2>/dev/null)
	src=$(modinfo -F srcversion "$f" 2>&1)
	if [ -z "$src" ]; then
		tap_skip "boot-module-$m-running-is-installed-file" "$f has no srcversion"
	else
		tap_eq "boot-module-$m-running-is-installed-file" "$src" \
			"$(cat "/sys/module/$(echo "$m" | tr - _)/srcversion" 2>&1)"
	fi
done
modules_are boot "$new"
udev_access boot
user_flows boot "$new"

# ---- removal: udmem-dkms alone, then a purge of everything
rm -f /etc/modules-load.d/udmem.conf /etc/modprobe.d/udmem.conf
unload
timed apt-remove-dkms 0 apt-get remove -y udmem-dkms
left=$(find "/lib/modules/$kver" -name 'u-dma-buf*.ko*' -o -name 'uiomem.ko*';
	ls -d /usr/src/udmem-* /var/lib/dkms/udmem /lib/udev/rules.d/60-udmem.rules 2>/dev/null)
tap_eq remove-dkms-leaves-no-module "" "$(printf '%s' "$left" | tr '\n' ' ')"
# (dkms 3.0.10 prints a broken-pipe error for a module it does not know)
dkms status > $W/dkms 2>&1
tap_eq remove-dkms-forgets-udmem "" "$(grep '^udmem/' $W/dkms)"
in_t remove-dkms-keeps-tools 0 udmem --version

# shellcheck disable=SC2086
timed apt-purge 0 apt-get purge -y $PKGS
left=$(find "/lib/modules/$kver" -name 'u-dma-buf*.ko*' -o -name 'uiomem.ko*';
	ls -d /usr/src/udmem-* /var/lib/dkms/udmem /lib/udev/rules.d/60-udmem.rules \
		/etc/udev/rules.d/60-udmem.rules /usr/lib/python3/dist-packages/udmem \
		/usr/lib/python3/dist-packages/udmem-*.dist-info /usr/bin/udmem \
		/usr/include/udmem.h /usr/share/man/man3/libudmem.3.gz \
		/usr/lib/*/libudmem.so* /usr/share/doc/udmem-dkms 2>/dev/null)
tap_eq purge-leaves-nothing "" "$(printf '%s' "$left" | tr '\n' ' ')"
# shellcheck disable=SC2086
tap_eq purge-dpkg-forgets-packages "" "$(dpkg-query -W -f '${db:Status-Status} ${Package}\n' \
	$PKGS 2>/dev/null | grep -v '^not-installed ' | tr '\n' ' ')"
dkms status > $W/dkms 2>&1
tap_eq purge-dkms-forgets-udmem "" "$(grep '^udmem/' $W/dkms)"
# The system group stays (Debian does not delete a system group on purge:
# files elsewhere may carry its number); nothing of ours may still use it.
gid=$(getent group udmem | cut -d: -f3)
if [ -n "$gid" ] && [ "$gid" -lt 1000 ]; then
	tap_ok purge-group-udmem-is-a-system-group
else
	tap_fail purge-group-udmem-is-a-system-group "getent: '$(getent group udmem)'"
fi
owned=$(find / /dev /run /etc /var -xdev -group udmem 2>/dev/null | head -n 5)
tap_eq purge-no-file-of-group-udmem "" "$(printf '%s' "$owned" | tr '\n' ' ')"
userdel -r alice 2>/dev/null
userdel -r bob 2>/dev/null
rm -rf $W
