#!/usr/bin/env python3
"""Which ext4 blocks a run wrote: block write requests traced on the device
(perf's block:block_rq_issue) classified by the region of the file system
they land in, from the file system's own layout.

    block_classes.py PERF_DATA DUMPE2FS_OUTPUT JOURNAL_STAT

PERF_DATA: `perf record -e block:block_rq_issue --filter 'dev == D' -a`
DUMPE2FS_OUTPUT: `dumpe2fs DEVICE` (group layout: inode tables, bitmaps,
superblocks and group descriptors)
JOURNAL_STAT: `debugfs -R "stat <8>" DEVICE` (the journal inode's extents)

Regions: journal, inode tables, bitmaps, superblocks and group descriptors;
everything else is "data_and_dirs" (file data and directory blocks, which
ext4 allocates from the same space). A request spanning regions is split.
Prints megabytes per region and per issuing thread (kworker = writeback,
jbd2 = journal commits, the benchmark's own name = syncfs/fsync it waited
for).
"""
import bisect
import collections
import re
import subprocess
import sys

BLOCK = 4096
SECTOR = 512


def read_layout(dumpe2fs_path, journal_path):
    """Sorted (first_block, last_block, region) of every metadata region."""
    regions = []
    with open(dumpe2fs_path) as f:
        for line in f:
            m = re.search(r"Inode table at (\d+)-(\d+)", line)
            if m:
                regions.append((int(m[1]), int(m[2]), "inode_table"))
                continue
            for what in ("Block bitmap", "Inode bitmap"):
                m = re.search(what + r" at (\d+)", line)
                if m:
                    regions.append((int(m[1]), int(m[1]), "bitmap"))
            m = re.search(r"superblock at (\d+), Group descriptors at (\d+)-(\d+)",
                          line)
            if m:
                regions.append((int(m[1]), int(m[3]), "super_gdt"))
    with open(journal_path) as f:
        for first, last in re.findall(r"\(\d+(?:-\d+)?\):(\d+)-(\d+)", f.read()):
            regions.append((int(first), int(last), "journal"))
    if not any(r[2] == "journal" for r in regions):
        sys.exit("block_classes: no journal extents in " + journal_path)
    regions.sort()
    return regions


def classify(regions, requests):
    starts = [r[0] for r in regions]
    by_region = collections.Counter()
    by_thread = collections.Counter()
    for thread, sector, sectors in requests:
        first = sector * SECTOR // BLOCK
        last = ((sector + sectors) * SECTOR - 1) // BLOCK
        block = first
        while block <= last:
            i = bisect.bisect_right(starts, block) - 1
            if i >= 0 and regions[i][0] <= block <= regions[i][1]:
                end, region = min(last, regions[i][1]), regions[i][2]
            else:
                following = starts[i + 1] if i + 1 < len(starts) else last + 1
                end, region = min(last, following - 1), "data_and_dirs"
            nbytes = (end - block + 1) * BLOCK
            by_region[region] += nbytes
            by_thread[thread] += nbytes
            block = end + 1
    return by_region, by_thread


def write_requests(perf_data):
    """(thread, first sector, sectors) of every traced write request."""
    out = subprocess.run(["perf", "script", "-i", perf_data], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r"block_rq_issue: \S+ (\S+) \d+ \(\) (\d+) \+ (\d+)", line)
        if not m or "W" not in m[1] or int(m[3]) == 0:
            continue
        comm = line.split()[0]
        thread = comm.split("/")[0] if "/" in comm else re.sub(r"[-:]?\d+$", "", comm)
        yield thread, int(m[2]), int(m[3])


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    regions = read_layout(sys.argv[2], sys.argv[3])
    by_region, by_thread = classify(regions, write_requests(sys.argv[1]))
    total = sum(by_region.values())
    print("written %.0f MB" % (total / 1e6))
    for region, nbytes in by_region.most_common():
        print("  %-14s %9.0f MB  %5.1f%%" % (region, nbytes / 1e6,
                                             100.0 * nbytes / max(total, 1)))
    print("  by thread: " + ", ".join(
        "%s %.0f MB" % (t, b / 1e6) for t, b in by_thread.most_common(6)))


if __name__ == "__main__":
    main()
