#!/usr/bin/env bash
# Times the README's first command, `scripts/demo`, on a freshly made Debian 12 system: a
# debootstrap (minbase) chroot of bookworm, with nothing installed beyond it, into which a clone of
# this checkout's HEAD is copied. The demo installs its own packages (scripts/setup --demo), builds
# `burst` and runs the example on the local cloud; the time printed is the whole command's.
#
#   sudo bench/demo_fresh_debian.sh [ROOT]   (ROOT: where the chroot goes; default /srv/burst-deb12)
#
# Needs root, debootstrap and the Debian mirror in /etc/apt. The pristine chroot is kept in
# ROOT-pristine so a second run starts from the same fresh system without downloading it again.
# Results: bench/README.md, "First run on a fresh machine".
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/srv/burst-deb12}
pristine=$root-pristine
mirror=${BURST_DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "demo_fresh_debian: run as root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "demo_fresh_debian: apt-get install debootstrap" >&2; exit 2; }

unmount() { umount -R "$root/proc" "$root/dev" "$root/sys" "$root/run" 2>/dev/null || true; }
trap unmount EXIT
if [ ! -d "$pristine" ]; then
  debootstrap --variant=minbase bookworm "$pristine" "$mirror"
  cp /etc/resolv.conf "$pristine/etc/" 2>/dev/null || true
fi
unmount
rm -rf "$root"
cp -a "$pristine" "$root"
mount --bind /proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount --bind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/run"
git clone -q "$PWD" "$root/root/burst"
echo "demo_fresh_debian: $(git rev-parse --short HEAD) on a fresh bookworm chroot, $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd /root/burst && start=$(date +%s) && rc=0 && { scripts/demo >/root/demo.log 2>&1 || rc=$?; }
    echo "scripts/demo: exit $rc in $(( $(date +%s) - start )) s (log: /root/demo.log in the chroot)"
    tail -n 4 /root/demo.log; exit $rc'
