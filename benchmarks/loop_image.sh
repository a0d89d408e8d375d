# Sourced (not run) by the benchmark scripts that need a dedicated ext4:
# the databases go on a file system of their own on a loop device, so that
# its device counters see only the benchmark and its caches hold no other
# user's files. Needs root. Callers use `set -euo pipefail`, so a failed
# step ends the script (and the EXIT trap cleans up what was made).
#
# loop_image_mount NAME: creates an image of ${LOOP_SIZE:-8G} bytes as
# /var/tmp/delsm-NAME-*.img, formats it ext4 and mounts it at a fresh
# /tmp/delsm-NAME-mnt-*; sets mnt (the mount point) and dev (the loop
# device's name, e.g. loop3, for /sys/fs/ext4/$dev). An EXIT trap unmounts
# it, detaches the device and removes the mount point and the image.

loop_image_cleanup() {
  umount "$mnt" 2>/dev/null || true
  # mount -o loop detaches on umount (autoclear); make sure of it.
  if [ -n "$dev" ]; then losetup -d "/dev/$dev" 2>/dev/null || true; fi
  rmdir "$mnt" 2>/dev/null || true
  rm -f "$loop_image"
}

loop_image_mount() {
  loop_image=$(mktemp "/var/tmp/delsm-$1-XXXXXX.img")
  mnt=$(mktemp -d "/tmp/delsm-$1-mnt-XXXXXX")
  dev=
  trap loop_image_cleanup EXIT
  truncate -s "${LOOP_SIZE:-8G}" "$loop_image"
  mkfs.ext4 -q -F "$loop_image"
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
