#!/usr/bin/env python3
"""Markdown table of the fio JSON files run.sh wrote.

    summarize.py OUT_DIR WHERE FS_DESCRIPTION
"""
import json, os, sys
out, where, fs = sys.argv[1:4]
print("fio limits in %s (%s)\n" % (where, fs))
print("| job | figure | mean latency | 1 / mean latency (per job) |")
print("|---|---:|---:|---:|")
for name in ("seqwrite", "randwrite", "filecreate", "filestat", "filedelete"):
    with open(os.path.join(out, name + ".json")) as f:
        doc = json.load(f)
    for job in doc["jobs"]:
        # The file engines count their operations under one direction
        # (filecreate: read); take the one that did the operations.
        d = max(("read", "write", "trim"), key=lambda k: job[k]["total_ios"])
        st = job[d]
        lat = st.get("clat_ns", {}).get("mean") or st.get("lat_ns", {}).get("mean")
        if name == "seqwrite":
            fig = "%.0f MiB/s" % (st["bw_bytes"] / 1048576.0)
        elif name == "randwrite":
            fig = "%.0f IOPS" % st["iops"]
        else:
            # iops is the rate of all the group's jobs together.
            fig = "%.0f files/s (%d files)" % (st["iops"], st["total_ios"])
        print("| %s | %s | %s | %s |" % (
            job["jobname"], fig, "-" if not lat else "%.1f us" % (lat / 1000.0),
            "-" if not lat or name == "seqwrite" or "qd1" not in job["jobname"] and
            name == "randwrite" else "%.0f/s" % (1e9 / lat)))
print("\nJSON per job in %s" % out)
