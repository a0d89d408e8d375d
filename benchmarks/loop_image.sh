# Sourced (not run) by the scripts that need a file system of their own:
# the databases go on a fresh file system on a loop device, so that its
# device counters see only this work and its caches hold no other user's
# files. Needs root. Callers use `set -euo pipefail`, so a failed step ends
# the script (and the EXIT trap cleans up what was made).
#
# loop_image_mount NAME [FS]: creates a sparse image of ${LOOP_SIZE:-8G}
# bytes as /var/tmp/delsm-NAME-*.img, formats it as FS (ext4, xfs or btrfs;
# default ext4) with mkfs's default options plus ${MKFS_OPTIONS:-} and
# mounts it at a fresh /tmp/delsm-NAME-mnt-*; sets mnt (the mount point)
# and dev (the loop device's name, e.g. loop3, for /sys/block/$dev/stat and
# /sys/fs/ext4/$dev). An EXIT trap unmounts it, detaches the device and
# removes the mount point and the image.
#
# loop_image_mkfs_missing FS: prints what is missing to format FS (nothing,
# and status 1, when mkfs.FS is there).

loop_image_mkfs_missing() {
  case "$1" in
    ext4 | xfs | btrfs) ;;
    *) echo "unknown file system '$1' (ext4, xfs or btrfs)"; return 0 ;;
  esac
  if ! command -v "mkfs.$1" >/dev/null 2>&1; then
    local pkg=e2fsprogs
    [ "$1" = xfs ] && pkg=xfsprogs
    [ "$1" = btrfs ] && pkg=btrfs-progs
    echo "mkfs.$1 is not installed (Debian package $pkg; scripts/setup.sh installs it)"
    return 0
  fi
  if ! grep -qw "$1" /proc/filesystems && ! modprobe "$1" 2>/dev/null; then
    echo "the kernel has no $1 support (not in /proc/filesystems, modprobe $1 failed)"
    return 0
  fi
  return 1
}

loop_image_cleanup() {
  if [ -n "${mnt:-}" ] && mountpoint -q "$mnt"; then
    # A process still using the file system (an interrupted test) keeps it
    # busy: detach it lazily so the image can still be removed.
    umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
  fi
  # mount -o loop detaches on umount (autoclear); make sure of it.
  if [ -n "${dev:-}" ]; then losetup -d "/dev/$dev" 2>/dev/null || true; fi
  if [ -n "${mnt:-}" ]; then rmdir "$mnt" 2>/dev/null || true; fi
  if [ -n "${loop_image:-}" ]; then rm -f "$loop_image"; fi
}

loop_image_mount() {
  local fs=${2:-ext4} missing
  if missing=$(loop_image_mkfs_missing "$fs"); then
    echo "loop_image_mount: $missing" >&2
    return 1
  fi
  loop_image=$(mktemp "/var/tmp/delsm-$1-XXXXXX.img")
  mnt=
  dev=
  trap loop_image_cleanup EXIT
  mnt=$(mktemp -d "/tmp/delsm-$1-mnt-XXXXXX")
  truncate -s "${LOOP_SIZE:-8G}" "$loop_image"
  case "$fs" in
    ext4) mkfs.ext4 -q -F ${MKFS_OPTIONS:-} "$loop_image" ;;
    xfs) mkfs.xfs -q -f ${MKFS_OPTIONS:-} "$loop_image" ;;
    btrfs) mkfs.btrfs -q -f ${MKFS_OPTIONS:-} "$loop_image" ;;
  esac
  mount -o loop "$loop_image" "$mnt"
  dev=$(basename "$(findmnt -n -o SOURCE "$mnt")")
}

# loop_image_drop_caches: empties every cache of the mounted image (page,
# inode and dentry caches, and the host's pages of the image file): unmount,
# write the image back and drop its pages, mount again at $mnt. Updates dev.
loop_image_drop_caches() {
  umount "$mnt"
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$loop_image"
  mount -o loop "$loop_image" "$mnt"
  dev=$(basename "$(findmnt -n -o SOURCE "$mnt")")
}
