# SPDX-License-Identifier: GPL-2.0 OR MIT
# install: the journey of a user on a Debian system (a rootfs target, booted
# with systemd and udev): `apt install ./*.deb` of what `make deb` built
# builds the modules with DKMS for the running kernel, modules-load.d and
# modprobe.d load them, the udev rule gives group udmem the devices and the
# writable sync attributes, a user in the group runs the CLI, a C program
# linked with `pkg-config --libs libudmem` and the Python example, a user
# outside it gets EACCES with a message naming the device; purging leaves no
# module, source, rule or Python file behind.

W=/tmp/install-test
rm -rf $W && mkdir -p $W/debs
kver=$(uname -r)
for p in udmem-dkms libudmem1 libudmem-dev udmem-tools python3-udmem; do
	cp "$UDMEM_BUILD/../deb/${p}_"*.deb $W/debs/ 2>/dev/null
done

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

set -- $W/debs/*.deb
if [ $# != 5 ]; then
	tap_fail debs-present "want 5 packages from make deb in $UDMEM_BUILD/../deb, have: $*"
	exit 0
fi
tap_ok debs-present

# ---- install: the guest has no network, so apt resolves from the local
# files and what is installed
export DEBIAN_FRONTEND=noninteractive
in_t apt-install 0 apt-get install -y $W/debs/*.deb
cp $W/out $W/apt.log
dkms status udmem > $W/dkms 2>&1
if grep -q "^udmem/.*, $kver, .*: installed" $W/dkms; then
	tap_ok dkms-built-for-running-kernel
else
	tap_fail dkms-built-for-running-kernel "dkms status: $(tr '\n' ' ' < $W/dkms); $(grep -i -e error -e fail $W/apt.log | head -n 3 | tr '\n' ' ')"
fi
for m in u-dma-buf u-dma-buf-mgr uiomem; do
	f=$(modinfo -n "$m" 2>/dev/null)
	case $f in
	/lib/modules/$kver/updates/dkms/*) tap_ok "module-$m-from-dkms" ;;
	*) tap_fail "module-$m-from-dkms" "modinfo -n $m: '$f'" ;;
	esac
done
tap_check group-udmem-exists getent group udmem

# ---- load as at boot: modules-load.d and modprobe.d, through the unit
# systemd runs at boot (systemd-modules-load.service)
ivshmem=$(udmem_pci_dev 0x1af4 0x1110)
{
	grep -v '^#' /usr/share/doc/udmem-dkms/examples/modules-load.conf
} > /etc/modules-load.d/udmem.conf
echo "options u-dma-buf udmabuf0=0x10000" > /etc/modprobe.d/udmem.conf
if [ -n "$ivshmem" ]; then
	echo 1 > "$ivshmem/enable"
	bar=$(sed -n 3p "$ivshmem/resource" | cut -d' ' -f1)
	echo "options uiomem uiomem0_addr=$bar uiomem0_size=0x10000" >> /etc/modprobe.d/udmem.conf
fi
in_t modules-load-service 0 systemctl restart systemd-modules-load.service
udevadm settle
for m in u_dma_buf u_dma_buf_mgr uiomem; do
	tap_check "module-$m-loaded" test -d "/sys/module/$m"
done

# ---- udev: the group's access
# perm PATH: "group:mode" of PATH
perm() { stat -L -c '%G:%a' "$1" 2>&1; }
tap_eq udev-buffer-node udmem:660 "$(perm /dev/udmabuf0)"
tap_eq udev-mgr-node udmem:660 "$(perm /dev/u-dma-buf-mgr)"
for a in sync_offset sync_size sync_direction sync_for_cpu sync_for_device sync_mode; do
	tap_eq "udev-buffer-sysfs-$a" udmem:664 "$(perm /sys/class/u-dma-buf/udmabuf0/$a)"
done
if [ -n "$ivshmem" ]; then
	tap_eq udev-region-node udmem:660 "$(perm /dev/uiomem0)"
	tap_eq udev-region-sysfs-sync_for_cpu udmem:664 "$(perm /sys/class/uiomem/uiomem0/sync_for_cpu)"
else
	tap_skip udev-region-node "no ivshmem device for a uiomem region"
fi

# ---- a user in the group, one outside
useradd -m -G udmem alice 2>/dev/null
useradd -m bob 2>/dev/null
in_t user-list-json 0 as alice udmem list --json
in_grep user-list-json-buffer $W/out '"name": "udmabuf0"'
in_t user-sync-ioctl 0 as alice udmem sync udmabuf0 --for cpu --offset 4K --size 4K
tap_eq user-sync-reached-driver 4096 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
in_t user-sysfs-sync-write 0 as alice sh -c 'echo 8192 > /sys/class/u-dma-buf/udmabuf0/sync_size'
tap_eq user-sysfs-sync-value 8192 "$(cat /sys/class/u-dma-buf/udmabuf0/sync_size)"
in_t user-create-through-mgr 0 as alice udmem create inst-t0 8K
in_t user-delete-through-mgr 0 as alice udmem delete inst-t0
if [ -e /dev/uiomem0 ]; then
	in_t user-region-info 0 as alice udmem dump uiomem0 --length 16
fi

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
	printf("%s %llu %d\n", udmem_buffer_name(b),
	       (unsigned long long)udmem_buffer_size(b), ret);
	udmem_buffer_close(b);
	return ret ? 1 : 0;
}
CEOF
chmod 644 $W/prog.c
chmod 755 $W
in_t user-c-program-builds 0 as alice sh -c "cc -o /home/alice/prog $W/prog.c \$(pkg-config --cflags --libs libudmem)"
if ldd /home/alice/prog 2>/dev/null | grep -q -E 'libudmem.so.1 => /(usr/)?lib/'; then
	tap_ok user-c-program-links-libudmem-so
else
	tap_fail user-c-program-links-libudmem-so "ldd: $(ldd /home/alice/prog 2>&1 | tr '\n' ' ')"
fi
in_t user-c-program-runs 0 as alice /home/alice/prog udmabuf0
tap_eq user-c-program-output "udmabuf0 65536 0" "$(cat $W/out)"
in_t user-python-example 0 as alice python3 /usr/share/doc/python3-udmem/examples/ten_lines.py
tap_eq user-python-example-offset 2048 "$(sed -n 2p $W/out)"

in_t outsider-info-fails 1 as bob udmem info udmabuf0
in_grep outsider-info-message $W/err \
	"^udmem: udmabuf0: open: Permission denied (errno 13, EACCES)$"
in_t outsider-mgr-fails 1 as bob udmem create inst-t1 4K
in_grep outsider-mgr-message $W/err "errno 13, EACCES"
in_t outsider-python-fails 1 as bob python3 -c 'import udmem; udmem.Buffer.open("udmabuf0")'
in_grep outsider-python-message $W/err "PermissionError.*udmabuf0"

# ---- removal: unload, purge, nothing left
rm -f /etc/modules-load.d/udmem.conf /etc/modprobe.d/udmem.conf
for m in uiomem u-dma-buf-mgr u-dma-buf; do
	[ -d "/sys/module/$(echo $m | tr - _)" ] && modprobe -r "$m"
done
in_t apt-purge 0 apt-get purge -y udmem-dkms libudmem1 libudmem-dev udmem-tools python3-udmem
left=$(find /lib/modules /usr/lib/modules -name 'u-dma-buf*.ko*' -o -name 'uiomem.ko*' 2>/dev/null;
	ls -d /usr/src/udmem-* /var/lib/dkms/udmem /lib/udev/rules.d/60-udmem.rules \
		/usr/lib/python3/dist-packages/udmem /usr/bin/udmem /usr/include/udmem.h 2>/dev/null)
tap_eq purge-leaves-nothing "" "$(printf '%s' "$left" | tr '\n' ' ')"
# (dkms 3.0.10 prints a broken-pipe error for a module it does not know)
dkms status > $W/dkms 2>&1
tap_eq purge-dkms-forgets-udmem "" "$(grep '^udmem/' $W/dkms)"
userdel -r alice 2>/dev/null
userdel -r bob 2>/dev/null
