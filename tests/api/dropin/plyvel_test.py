#!/usr/bin/python3
"""Debian's python3-plyvel, a program built for
Debian's LevelDB, reads through DeLSM's drop-in libleveldb.so.1d a database
that it created earlier on Debian's LevelDB.

    plyvel_test.py <drop-in library dir>

runs, for a database written with snappy and one written without
compression, two child processes of this interpreter (it must be Debian's
/usr/bin/python3, the one python3-plyvel is installed for):

  create  on Debian's LevelDB (no LD_LIBRARY_PATH): several thousand keys of
          50 B..3 KiB over three sessions (close and reopen between them),
          overwrites, deletions, a write batch, tables on at least two
          levels and a WAL tail left at the last close. It checks LevelDB
          reads back exactly what was written and records it.
  read    with LD_LIBRARY_PATH at the drop-in directory: it requires that
          the libleveldb mapped into the process is DeLSM's, opens the
          database with plyvel (DeLSM converts it), and requires the forward
          and reverse iterators, a prefix iterator and get() to return
          exactly what was recorded, and deleted keys to be absent; then it
          writes, reopens and reads again.

Afterwards the database must be in DeLSM's layout: no LevelDB table left and
DeLSM's LOG reporting the committed conversion. The data is random: the seed
is printed and DELSM_TEST_SEED=<n> (or PLYVEL_TEST_SEED) replays it. Working files go to a
directory of their own under $DELSM_TEST_DIR (else $TMPDIR, else /tmp), removed when the test passes.
A missing plyvel fails the test (CI installs python3-plyvel).
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def mapped_leveldb():
    """Real paths of every libleveldb file mapped into this process."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and "libleveldb" in os.path.basename(fields[5]):
                paths.add(os.path.realpath(fields[5]))
    return paths


def under(path, directory):
    directory = os.path.realpath(directory)
    return os.path.commonpath([path, directory]) == directory


def open_db(path, compression, create=False):
    import plyvel  # a missing plyvel is a failure (ImportError)
    # Small write buffers and tables so a few MiB make many tables.
    return plyvel.DB(path, create_if_missing=create, compression=compression,
                     write_buffer_size=64 * 1024, max_file_size=64 * 1024,
                     block_size=1024)


def contents(db, **kwargs):
    return list(db.iterator(**kwargs))


def random_key(rng):
    if rng.random() < 0.05:  # some binary keys: any byte, NUL and 0xff too
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
    return b"key%06d" % rng.randrange(6000)


def random_value(rng):
    size = rng.choice([50, 200, 700, 1500, 3000])
    if rng.random() < 0.3:  # incompressible
        return rng.randbytes(size)
    text = b"v%d:" % rng.randrange(10**9)
    return (text + bytes(97 + (i % 26) for i in range(size)))[:size]


def levels_with_files(db):
    counts = []
    for level in range(7):
        prop = db.get_property(b"leveldb.num-files-at-level%d" % level)
        counts.append(int(prop))
    return counts


def create(path, compression, seed, expected_path, dropin_dir):
    import plyvel  # loads libleveldb.so.1d
    libs = mapped_leveldb()
    if len(libs) != 1 or any(under(p, dropin_dir) for p in libs):
        fail("create must run on Debian's LevelDB, mapped: %s" % sorted(libs))
    rng = random.Random(seed)
    model = {}
    deleted = set()

    def put(db, key, value):
        db.put(key, value)
        model[key] = value
        deleted.discard(key)

    def delete(db, key):
        db.delete(key)
        model.pop(key, None)
        deleted.add(key)

    # Session 1: a fill, then everything compacted down to deeper levels.
    db = open_db(path, compression, create=True)
    for _ in range(4000):
        put(db, random_key(rng), random_value(rng))
    db.compact_range()
    db.close()
    # Session 2: overwrites, deletions and a batch: new tables above the
    # compacted ones.
    db = open_db(path, compression)
    for _ in range(1500):
        put(db, rng.choice(sorted(model)), random_value(rng))
    for key in rng.sample(sorted(model), 500):
        delete(db, key)
    with db.write_batch() as batch:
        for _ in range(300):
            key = random_key(rng)
            if key in model and rng.random() < 0.5:
                batch.delete(key)
                model.pop(key)
                deleted.add(key)
            else:
                value = random_value(rng)
                batch.put(key, value)
                model[key] = value
                deleted.discard(key)
    for _ in range(1000):
        put(db, random_key(rng), random_value(rng))
    db.close()
    # Session 3: LevelDB's open turned session 2's WAL into a table; these
    # writes stay in the WAL only, as the close leaves them.
    db = open_db(path, compression)
    counts = levels_with_files(db)
    for _ in range(200):
        put(db, random_key(rng), random_value(rng)[:100])
    for key in rng.sample(sorted(model), 50):
        delete(db, key)
    want = sorted(model.items())
    if contents(db) != want:
        fail("Debian's LevelDB does not read back what plyvel wrote")
    db.close()

    if sum(1 for c in counts if c > 0) < 2:
        fail("tables on fewer than two levels: %s" % counts)
    tables = [n for n in os.listdir(path) if n.endswith(".ldb")]
    wals = [n for n in os.listdir(path)
            if n.endswith(".log") and os.path.getsize(os.path.join(path, n))]
    if not tables or not wals:
        fail("want LevelDB tables and a WAL tail, have %s" %
             sorted(os.listdir(path)))
    print("created: %d keys, %d deleted, tables per level %s, %d tables, "
          "WAL %s" % (len(want), len(deleted), counts, len(tables), wals))
    with open(expected_path, "w") as out:
        json.dump({"entries": [[k.hex(), v.hex()] for k, v in want],
                   "deleted": sorted(k.hex() for k in deleted - set(model))},
                  out)


def read(path, compression, expected_path, dropin_dir):
    import plyvel  # loads libleveldb.so.1d
    libs = mapped_leveldb()
    if len(libs) != 1 or not all(under(p, dropin_dir) for p in libs):
        fail("the drop-in is not what plyvel loaded: mapped %s" % sorted(libs))
    with open(expected_path) as f:
        expected = json.load(f)
    want = [(bytes.fromhex(k), bytes.fromhex(v))
            for k, v in expected["entries"]]
    deleted = [bytes.fromhex(k) for k in expected["deleted"]]

    db = open_db(path, compression)
    got = contents(db)
    if got != want:
        missing = set(want) - set(got)
        extra = set(got) - set(want)
        fail("iterator: %d entries, want %d; %d missing, %d unexpected" %
             (len(got), len(want), len(missing), len(extra)))
    if contents(db, reverse=True) != want[::-1]:
        fail("reverse iterator differs")
    if contents(db, prefix=b"key001") != [kv for kv in want
                                          if kv[0].startswith(b"key001")]:
        fail("prefix iterator differs")
    for key, value in want:
        if db.get(key) != value:
            fail("get(%s) differs" % key.hex())
    for key in deleted:
        if db.get(key) is not None:
            fail("deleted key %s is back" % key.hex())
    # The converted database is an ordinary, writable one.
    db.put(b"written-through-delsm", b"by plyvel")
    db.delete(want[0][0])
    db.close()
    db = open_db(path, compression)
    after = dict(want)
    del after[want[0][0]]
    after[b"written-through-delsm"] = b"by plyvel"
    if contents(db) != sorted(after.items()):
        fail("after a write and a reopen the contents differ")
    db.close()
    print("read through %s: %d entries, %d deleted keys absent" %
          (sorted(libs)[0], len(want), len(deleted)))


def run_child(args, env):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)] + args,
                          env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        fail("child %s exited %d" % (args[0], proc.returncode))


def check_converted(path):
    names = os.listdir(path)
    leftovers = [n for n in names
                 if n.endswith((".ldb", ".sst")) or n == "leveldb-conversion"]
    if leftovers:
        fail("LevelDB files left after the conversion: %s" % leftovers)
    log = ""
    for name in ("LOG", "LOG.old"):
        if name in names:
            with open(os.path.join(path, name), errors="replace") as f:
                log += f.read()
    if "LevelDB conversion: committed" not in log:
        fail("DeLSM's LOG does not report the conversion")
    levels = set(re.findall(r"LevelDB conversion: table #\d+ \(L(\d)", log))
    if len(levels) < 2:
        fail("DeLSM converted tables from fewer than two levels: %s" %
             sorted(levels))
    print("converted tables from levels %s" % ", ".join(sorted(levels)))


def driver(dropin_dir):
    if not os.path.exists(os.path.join(dropin_dir, "libleveldb.so.1d")):
        fail("no libleveldb.so.1d in " + dropin_dir)
    given = os.environ.get("DELSM_TEST_SEED") or os.environ.get(
        "PLYVEL_TEST_SEED")
    seed = int(given, 0) if given else random.randrange(2**32)
    print("plyvel_dropin: seed %d (replay with DELSM_TEST_SEED=%d)" %
          (seed, seed), flush=True)
    work = tempfile.mkdtemp(prefix="plyvel_test.",
                            dir=os.environ.get("DELSM_TEST_DIR") or None)
    base_env = {k: v for k, v in os.environ.items()
                if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    dropin_env = dict(base_env, LD_LIBRARY_PATH=os.path.realpath(dropin_dir))
    for compression in ("snappy", "none"):
        path = os.path.join(work, "db-" + compression)
        expected = os.path.join(work, "expected-" + compression + ".json")
        run_child(["create", path, compression, str(seed), expected,
                   dropin_dir], base_env)
        run_child(["read", path, compression, expected, dropin_dir],
                  dropin_env)
        check_converted(path)
    shutil.rmtree(work)
    print("ok")


def main():
    if len(sys.argv) == 2:
        driver(sys.argv[1])
    elif len(sys.argv) == 7 and sys.argv[1] == "create":
        _, _, path, compression, seed, expected, dropin = sys.argv
        create(path, None if compression == "none" else compression,
               int(seed), expected, dropin)
    elif len(sys.argv) == 6 and sys.argv[1] == "read":
        _, _, path, compression, expected, dropin = sys.argv
        read(path, None if compression == "none" else compression, expected,
             dropin)
    else:
        fail("usage: plyvel_test.py <drop-in library dir>")


if __name__ == "__main__":
    main()
