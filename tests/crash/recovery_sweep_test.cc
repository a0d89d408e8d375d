// The recovery sweep: Open and RepairDB must never lose acknowledged data
// silently. Over databases in every mode (below), for each file Open or
// RepairDB reads, the sweep damages it (a flipped byte, a truncation to
// half, a zero-fill at full length) or removes it, and separately fails each
// call Open and RepairDB make, one at a time, through the SST-directory
// FileSystem (testing/fault_injection_file_system.h) and the Env that
// carries WAL, MANIFEST and CURRENT (testing/fault_injection_env.h), with
// EMFILE, EIO or ENOENT. After each point:
//
//  * Open fails with a Status naming the problem (the damaged file or its
//    directory; the injected error's text), or it succeeds, and then every
//    acknowledged key reads its value or an error (never NotFound for a
//    key acknowledged and not deleted), no deleted key comes back, no key
//    shows a value never written to it (Get of every key and a full scan);
//  * with the fault cleared (the damaged file put back from the saved copy,
//    in place, so every hard link to it sees it; the call no longer
//    failing) the next Open reads everything;
//  * RepairDB on the damaged database (and RepairDB with a failing call)
//    never brings back a deleted key nor serves a value never written; a
//    RepairDB that fails on a transient fault leaves a database that opens
//    with everything; a repair that succeeds under a transient fault keeps
//    everything too (a fault is not damage: nothing may be set aside for it).
//
// Modes (one parameterised test name each, so ctest shows which failed):
// the default (kSyncfs, inline values at the default threshold),
// values_stay_put, inline values off (inline_threshold=0), kFsync,
// kDeferred, parallel flush (flush_threads=2), and databases left by a
// kill -9 in the middle of a flush, a compaction and a repair (the kill
// lands at a drawn disk call: testing/power_loss_state.h's CutPowerAtCall
// runs a hook that raises SIGKILL in the child). A LevelDB database killed
// mid-conversion (its leveldb-conversion/ staging files) belongs to the
// conversion tests: kModes has a clearly named hook for it.
//
// Damage to a WAL follows LevelDB's contract (paranoid_checks off: a
// damaged record is skipped and logged; a truncated tail is what a crash
// leaves): writes that only the damaged WAL holds (the last, unflushed
// phase of the workload) are not required to survive it. Every other point
// requires every acknowledged write.
//
// The default suite runs a sample (every file kind with one damage drawn by
// the seed, and a few call points of each kind of call: the first and one
// drawn). DELSM_SWEEP_ALL=1 runs every point: every file with every damage,
// every call of every kind with each of the three errors. The seed is
// printed; DELSM_TEST_SEED replays it. Counts measured are in
// tests/RELIABILITY.md ("The recovery sweep").
//
// Checks at points of findings not yet fixed ("known open", KnownAtOpen and
// KnownAtRepair, each marked KNOWN: with what is wrong) are not run by
// default, so the suite passes on everything else; DELSM_SWEEP_KNOWN=1
// runs them, and they fail.
//
// The modes, the workload and what each key may read as are in
// recovery_sweep_workload.h; the kinds of file and the damages done to them
// in recovery_sweep_damage.h. This file holds the known-open findings, the
// checks after each point, and the sweep itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/log_format.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/crash/recovery_sweep_damage.h"
#include "tests/crash/recovery_sweep_workload.h"
#include "tests/durability_harness.h"
#include "tests/test_support.h"
#include "tests/write_model.h"

namespace leveldb {
namespace {

using delsm_test::CopyTree;
using delsm_test::FaultStack;
using delsm_test::ListDir;
using delsm_test::Model;
using delsm_test::RemoveTree;
using recovery_sweep::ApplyDamage;
using recovery_sweep::ApplyPhase;
using recovery_sweep::BuildOptions;
using recovery_sweep::CheckOptions;
using recovery_sweep::Damage;
using recovery_sweep::DamageName;
using recovery_sweep::Expected;
using recovery_sweep::FileKind;
using recovery_sweep::FindInode;
using recovery_sweep::Impl;
using recovery_sweep::kAllKeys;
using recovery_sweep::kDamages;
using recovery_sweep::KeyOf;
using recovery_sweep::Kill;
using recovery_sweep::kKeys;
using recovery_sweep::kModes;
using recovery_sweep::kPhases;
using recovery_sweep::Mode;
using recovery_sweep::ModeByName;
using recovery_sweep::ReadWhole;
using recovery_sweep::RunWorkload;
using recovery_sweep::TuningFor;
using recovery_sweep::Walk;
using recovery_sweep::Workload;
using recovery_sweep::WriteInPlace;
using recovery_sweep::WriteOp;

bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}
bool SweepAll() { return EnvFlag("DELSM_SWEEP_ALL"); }
bool SweepKnown() { return EnvFlag("DELSM_SWEEP_KNOWN"); }

// The directory the sweep's databases live in: under TestRoot() when
// $DELSM_TEST_DIR or $TMPDIR names one, else in /dev/shm when it is there
// (a real file system whose syncfs and fsync return at once: the sweep
// opens databases thousands of times, and on a shared disk each Open's
// sync waits for everybody's dirty data), else /tmp. Removed with its
// contents when the object goes away.
class SweepDir {
 public:
  SweepDir() {
    std::string root = delsm_test::TestRoot();
    struct stat st;
    if (root == "/tmp" && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        access("/dev/shm", W_OK) == 0) {
      root = "/dev/shm";
    }
    std::string templ = root + "/delsm_recovery_sweep_XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~SweepDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---------------------------------------------------------- known open

// True if flipping the byte at `pos` of the log file `data` (0x5a, as
// ApplyDamage does) makes a record of the file's last, partial block
// claim more bytes than the file has: log::Reader then takes it for a
// torn tail, the end of the file, and reports nothing. Every other flip
// of a record is a checksum, length or type error the reader reports.
bool FlipReadsAsTornTail(const std::string& data, size_t pos) {
  const size_t size = data.size();
  size_t offset = 0;
  while (offset < size) {
    const size_t block_start = offset / log::kBlockSize * log::kBlockSize;
    const size_t block_end =
        std::min(size, block_start + static_cast<size_t>(log::kBlockSize));
    const size_t left = block_end - offset;
    if (left < static_cast<size_t>(log::kHeaderSize)) {
      offset = block_end;  // the block's zero-filled trailer
      continue;
    }
    const unsigned char* h =
        reinterpret_cast<const unsigned char*>(data.data() + offset);
    const size_t length = h[4] | (h[5] << 8);
    if (pos == offset + 4 || pos == offset + 5) {
      const size_t flipped = pos == offset + 4 ? (h[4] ^ 0x5a) | (h[5] << 8)
                                               : h[4] | ((h[5] ^ 0x5a) << 8);
      const bool last_partial_block =
          block_end == size &&
          size - block_start < static_cast<size_t>(log::kBlockSize);
      return last_partial_block && log::kHeaderSize + flipped > left;
    }
    offset += log::kHeaderSize + length;
    if (pos < offset) return false;
  }
  return false;
}

// What the sweep knows of a point before running it.
struct PointFacts {
  const Mode* mode;
  std::string kind;       // FileKind of the damaged file, "" for a failed call
  Damage damage;          // for a damaged file
  bool flip_torn;         // a flipped manifest byte reads as a torn tail
  bool repair_committed;  // killed_in_repair: the killed repair committed
};

// The known-open finding (a short name) that the checks after Open (and,
// with the damage undone, the next Open) fail on at this point; "" if none.
std::string KnownAtOpen(const PointFacts& f) {
  // KNOWN: a flipped length byte in the manifest's last block reads as a
  // torn tail (db/log_reader.cc: "payload cut off by the end of the
  // file"); Open silently recovers the version before that record
  // (deleted keys back) and writes a new manifest from it, so the loss
  // stays when the byte is put back. LevelDB's Open does the same
  // (its log::Reader is this one): the sweep asks more than LevelDB here.
  if (f.kind == "manifest" && f.damage == Damage::kFlip && f.flip_torn) {
    return "manifest flip read as a torn tail";
  }
  // KNOWN: the same for a manifest cut short: the reader cannot tell a
  // record cut by the damage from one a crash cut while it was written
  // (never synced, so never acted on), and ends the manifest there; an
  // older version is recovered. LevelDB's Open does the same.
  if (f.kind == "manifest" && f.damage == Damage::kTruncate) {
    return "manifest truncated: read as a torn tail";
  }
  return "";
}

// The known-open finding that the checks after RepairDB fail on at this
// point (a damaged file's, or a repair that succeeded under a failing
// call); "" if none.
std::string KnownAtRepair(const PointFacts& f) {
  const std::string& k = f.kind;
  // KNOWN: RepairDB after a meta file is damaged or lost brings back keys
  // whose tombstones only that meta file held: the older versions in
  // deeper SSTs are merged without them. Likewise, with a compaction killed
  // after its commit, a damaged manifest loses the record of the SSTs it
  // replaced, and what of them was not yet removed is merged. LevelDB's
  // RepairDB does the same for a damaged table (it keeps the readable
  // blocks; older versions of keys deleted in the others come back) and
  // never reads a manifest: the sweep asks more than LevelDB here.
  if (k == "l0_meta" || k == "l0_meta_n" || k == "deep_meta" ||
      k == "deep_meta_n") {
    return "tombstones of a damaged meta file";
  }
  // KNOWN: RepairDB reads no manifest, so after a compaction killed past
  // its commit (whatever else is damaged, the manifest included), the
  // SSTs it replaced but had not yet removed are merged again; where the
  // compaction dropped a tombstone with the value below it and the
  // removal had taken the tombstone's meta file first, the value comes
  // back. LevelDB's RepairDB also takes every table it finds, obsolete
  // compaction inputs included. An open defect for DeLSM, whose manifest
  // could tell repair which SSTs are replaced.
  if (f.mode->kill == Kill::kCompaction) {
    return "RepairDB merges the SSTs a killed compaction replaced";
  }
  // KNOWN: a RepairDB killed after its commit records in its manifest the
  // old SSTs its merge replaced, and the next RepairDB does not take back
  // what is left of them; with that manifest damaged too, the record is
  // lost, and the old SSTs are merged again (deleted keys back), as after
  // a compaction killed past its commit.
  if (f.mode->kill == Kill::kRepair && f.repair_committed &&
      k == "manifest") {
    return "RepairDB after a repair killed past its commit, manifest damaged";
  }
  return "";
}

// ---------------------------------------------------------------- checks

struct Tally {
  int points = 0;
  int open_failed_named = 0;
  int open_ok = 0;
  int repairs_ok = 0;
  int repairs_failed = 0;
  int get_errors = 0;  // Gets that reported a problem (not NotFound)
  // Checks not run (DELSM_SWEEP_KNOWN=1 runs them), by finding.
  std::map<std::string, int> known_skipped;
  // Opens that failed naming a path of the database other than the
  // damaged file (listed, not violations).
  std::vector<std::string> named_elsewhere;
  std::vector<std::string> violations;

  void Violation(const std::string& point, const std::string& what) {
    violations.push_back(point + ": " + what);
  }
};

// Reads every key with Get and a scan through `db`; returns the first
// problems ("" if none). Errors other than NotFound are allowed.
std::string CheckReads(DB* db, const Expected& exp, int promised_phases,
                       int* get_errors) {
  std::string problems;
  int n = 0;
  auto fail = [&](const std::string& p) {
    if (n++ < 4) problems += p + "; ";
  };
  for (const std::string& key : exp.Keys()) {
    std::string v;
    Status s = db->Get(ReadOptions(), key, &v);
    if (!s.ok() && !s.IsNotFound()) ++*get_errors;
    const std::string e = exp.CheckGet(key, s, v, promised_phases);
    if (!e.empty()) fail("Get: " + e);
  }
  std::map<std::string, std::string> found;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    found[it->key().ToString()] = it->value().ToString();
  }
  for (const auto& kv : found) {
    const std::string e =
        exp.CheckGet(kv.first, Status::OK(), kv.second, promised_phases);
    if (!e.empty()) fail("scan: " + e);
  }
  if (it->status().ok()) {
    // A scan that ended cleanly shows every key that must be there.
    for (const std::string& key : exp.Keys()) {
      if (found.count(key) != 0) continue;
      const std::string e =
          exp.CheckGet(key, Status::NotFound(""), "", promised_phases);
      if (!e.empty()) fail("scan without error: " + e);
    }
  }
  if (n > 4) problems += std::to_string(n - 4) + " more";
  return problems;
}

// Opens `dbname` plainly and requires every promised write (the fault
// cleared). "" or what is wrong.
std::string CheckAll(const Mode& m, const std::string& dbname,
                     const Expected& exp, int promised_phases) {
  DB* db = nullptr;
  Status s = delsm::Open(CheckOptions(m), TuningFor(m), dbname, &db);
  if (!s.ok()) return "Open: " + s.ToString();
  std::unique_ptr<DB> holder(db);
  int errors = 0;
  std::string problems = CheckReads(db, exp, promised_phases, &errors);
  if (errors > 0) {
    problems += std::to_string(errors) + " Gets failed; ";
  }
  Impl(db)->TEST_WaitForBackgroundWork();
  return problems;
}

// After RepairDB: a deleted key must not come back and no key may show a
// value never written to it (a repair may lose what the damage took).
std::string CheckRepaired(const Mode& m, const std::string& dbname,
                          const Expected& exp, int promised_phases,
                          bool must_keep_all) {
  DB* db = nullptr;
  Status s = delsm::Open(CheckOptions(m), TuningFor(m), dbname, &db);
  if (!s.ok()) return "Open after RepairDB: " + s.ToString();
  std::unique_ptr<DB> holder(db);
  std::string problems;
  int n = 0;
  for (const std::string& key : exp.Keys()) {
    std::string v;
    s = db->Get(ReadOptions(), key, &v);
    std::string e = exp.CheckGet(key, s, v, promised_phases);
    if (!must_keep_all && (e.find("came back") == std::string::npos &&
                           e.find("never written") == std::string::npos)) {
      e.clear();
    }
    if (must_keep_all && e.empty() && !s.ok() && !s.IsNotFound()) {
      e = "Get " + Expected::Short(key) + ": " + s.ToString();
    }
    if (!e.empty() && n++ < 4) problems += "after RepairDB: " + e + "; ";
  }
  Impl(db)->TEST_WaitForBackgroundWork();
  return problems;
}

// "" if `s` (an Open that failed) names `rel`: its file name or the
// directory holding it.
bool NamesFile(const Status& s, const std::string& dbname,
               const std::string& rel) {
  const std::string msg = s.ToString();
  const size_t slash = rel.rfind('/');
  const std::string base =
      slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (msg.find(base) != std::string::npos) return true;
  if (slash != std::string::npos) {
    const std::string dir = rel.substr(0, slash);
    const std::string last = dir.substr(dir.rfind('/') + 1);
    if (msg.find(last) != std::string::npos) return true;
  }
  return false;
}

std::string ParentOf(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// The body of the killed modes' child (RecoverySweepChild.Child): runs the
// workload on the DB named by the environment, with the disk call
// DELSM_SWEEP_KILL_AT of the operation to be cut raising SIGKILL.
struct ChildEnv {
  std::string dir, stack, mode;
  uint64_t seed = 0, kill_at = 0;
  bool Read() {
    const char* d = std::getenv("DELSM_SWEEP_CHILD_DIR");
    const char* st = std::getenv("DELSM_SWEEP_CHILD_STACK");
    const char* m = std::getenv("DELSM_SWEEP_CHILD_MODE");
    const char* s = std::getenv("DELSM_SWEEP_CHILD_SEED");
    const char* k = std::getenv("DELSM_SWEEP_CHILD_KILL_AT");
    if (!d || !st || !m || !s || !k) return false;
    dir = d;
    stack = st;
    mode = m;
    seed = std::strtoull(s, nullptr, 10);
    kill_at = std::strtoull(k, nullptr, 10);
    return true;
  }
};

TEST(RecoverySweepChild, Child) {
  ChildEnv ce;
  if (!ce.Read()) return;  // run on its own: nothing to do
  const Mode* m = ModeByName(ce.mode);
  if (m == nullptr) _exit(2);
  if (mkdir(ce.stack.c_str(), 0755) != 0) _exit(3);
  FaultStack stack(ce.stack);
  stack.power_fs.ShareCallCounter(&stack.env);
  stack.power_fs.SetPowerCutHook([] { raise(SIGKILL); });
  stack.env.SetPowerCutHook([] { raise(SIGKILL); });
  const std::string err = RunWorkload(
      *m, ce.seed, ce.dir, &stack.fault_fs, &stack.env,
      [&] { stack.power_fs.CutPowerAtCall(ce.kill_at); },
      [] { raise(SIGKILL); });
  std::fprintf(stderr, "child workload: %s\n", err.c_str());
  _exit(4);
}

class RecoverySweep : public testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    seed_ = delsm_test::RandomSeed(std::string("recovery sweep (") +
                                   GetParam().name + ")");
    rnd_.seed(static_cast<uint32_t>(seed_));
    ops_ = Workload(seed_);
    pristine_ = tmp_.path() + "/pristine";
    work_ = tmp_.path() + "/work";
    ASSERT_NO_FATAL_FAILURE(Build());
    // The database as built opens with every acknowledged write.
    ASSERT_TRUE(Fresh().empty());
    const std::string base = CheckAll(GetParam(), work_, Exp(kPhases), kPhases);
    ASSERT_TRUE(base.empty()) << "the undamaged database: " << base;
  }

  void TearDown() override {
    const Tally& t = tally_;
    std::printf(
        "recovery sweep (%s) %s: seed %llu, %d points, %d Opens failed naming "
        "the problem, %d Opens succeeded (%d Gets reported an error), %d "
        "RepairDB succeeded, %d failed, %zu violations\n",
        GetParam().name, SweepAll() ? "all points" : "fast subset",
        static_cast<unsigned long long>(seed_), t.points, t.open_failed_named,
        t.open_ok, t.get_errors, t.repairs_ok, t.repairs_failed,
        t.violations.size());
    for (const auto& k : t.known_skipped) {
      std::printf("  known open, %d checks not run: %s\n", k.second,
                  k.first.c_str());
    }
    for (size_t i = 0; i < t.named_elsewhere.size() && i < 5; i++) {
      std::printf("  Open failed naming another path: %s\n",
                  t.named_elsewhere[i].c_str());
    }
    for (size_t i = 0; i < t.violations.size() && i < 40; i++) {
      ADD_FAILURE() << t.violations[i];
    }
    if (t.violations.size() > 40) {
      ADD_FAILURE() << t.violations.size() - 40 << " more violations";
    }
    if (!t.violations.empty()) {
      ADD_FAILURE() << "replay with DELSM_TEST_SEED=" << seed_;
    }
  }

  Expected Exp(int promised_phases) const {
    return Expected(ops_, promised_phases);
  }

  // Builds the pristine database of the mode.
  void Build() {
    const Mode& m = GetParam();
    if (m.kill == Kill::kNone) {
      const std::string err = RunWorkload(
          m, seed_, pristine_, nullptr, nullptr, [] {}, [] {});
      ASSERT_TRUE(err.empty()) << err;
      return;
    }
    // How many disk calls the operation to be cut makes, measured on a
    // scratch copy of the same workload; the kill lands at one of them.
    uint64_t calls = 0;
    {
      const std::string root = tmp_.path() + "/measure";
      ASSERT_EQ(0, mkdir(root.c_str(), 0755));
      FaultStack stack(root);
      stack.power_fs.ShareCallCounter(&stack.env);
      uint64_t before = 0;
      const std::string err = RunWorkload(
          m, seed_, root + "/db", &stack.fault_fs, &stack.env,
          [&] { before = stack.power_fs.DiskCalls(); },
          [&] { calls = stack.power_fs.DiskCalls() - before; });
      ASSERT_TRUE(err.empty()) << err;
    }
    RemoveTree(tmp_.path() + "/measure");
    ASSERT_GT(calls, 0u);
    const uint64_t kill_at = 1 + rnd_() % calls;
    std::printf("recovery sweep (%s): killed at disk call %llu of %llu\n",
                m.name, static_cast<unsigned long long>(kill_at),
                static_cast<unsigned long long>(calls));
    const pid_t pid = delsm_test::SpawnSelf(
        "RecoverySweepChild.Child",
        {{"DELSM_SWEEP_CHILD_DIR", pristine_},
         {"DELSM_SWEEP_CHILD_STACK", tmp_.path() + "/child_stack"},
         {"DELSM_SWEEP_CHILD_MODE", m.name},
         {"DELSM_SWEEP_CHILD_SEED", std::to_string(seed_)},
         {"DELSM_SWEEP_CHILD_KILL_AT", std::to_string(kill_at)}});
    ASSERT_GT(pid, 0);
    const int status = delsm_test::WaitChild(pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "child status " << status;
    RemoveTree(tmp_.path() + "/child_stack");
    if (m.kill == Kill::kRepair) {
      repair_committed_ = RepairCommitted();
      std::printf("recovery sweep (%s): the killed repair %s\n", m.name,
                  repair_committed_ ? "had committed" : "had not committed");
    }
  }

  // Whether the repair killed in the pristine database had committed: it
  // numbers its manifest past every file it found, so CURRENT then names a
  // manifest newer than every WAL (in the DB directory or in lost/).
  bool RepairCommitted() const {
    std::string current;
    if (!ReadWhole(pristine_ + "/CURRENT", &current)) return false;
    uint64_t manifest = 0;
    if (std::sscanf(current.c_str(), "MANIFEST-%" SCNu64, &manifest) != 1) {
      return false;
    }
    uint64_t newest_wal = 0;
    for (const std::string& dir : {pristine_, pristine_ + "/lost"}) {
      for (const std::string& name : ListDir(dir)) {
        uint64_t n = 0;
        char tail[8] = {0};
        if (std::sscanf(name.c_str(), "%" SCNu64 ".%4s", &n, tail) == 2 &&
            std::strcmp(tail, "log") == 0) {
          newest_wal = std::max(newest_wal, n);
        }
      }
    }
    return manifest > newest_wal;
  }

  // A fresh copy of the pristine database at work_.
  std::string Fresh() {
    if (!RemoveTree(work_)) return "cannot remove " + work_;
    return CopyTree(pristine_, work_);
  }

  std::string Point(const std::string& what) const {
    return std::string(GetParam().name) + " " + what;
  }

  // One damage point: damage `rel` in a copy, Open, undo, Open; then the
  // same damage in a fresh copy, RepairDB, Open.
  void DamagePoint(const std::string& rel, Damage d) {
    const Mode& m = GetParam();
    const std::string kind = FileKind(rel);
    const int promised = kind == "wal" ? kPhases - 1 : kPhases;
    const Expected exp = Exp(promised);
    const std::string point =
        Point(std::string(DamageName(d)) + " " + rel + " (" + kind + ")");
    std::string original;
    ASSERT_TRUE(ReadWhole(pristine_ + "/" + rel, &original)) << rel;
    if (d != Damage::kRemove && original.empty()) return;  // nothing to damage
    const uint32_t where = rnd_();
    ASSERT_EQ("", Fresh());
    const std::string path = work_ + "/" + rel;
    struct stat st;
    ASSERT_EQ(0, lstat(path.c_str(), &st)) << path;
    ASSERT_EQ("", ApplyDamage(path, d, where));
    tally_.points++;
    PointFacts facts{&m, kind, d, false, repair_committed_};
    if (kind == "manifest" && d == Damage::kFlip) {
      facts.flip_torn = FlipReadsAsTornTail(original, where % original.size());
    }
    const std::string known_open = KnownAtOpen(facts);
    const std::string known_repair = KnownAtRepair(facts);

    if (!known_open.empty() && !SweepKnown()) {
      tally_.known_skipped[known_open]++;
    } else {
      ASSERT_NO_FATAL_FAILURE(
          OpenAndUndo(point, rel, d, st.st_ino, original, exp, promised));
    }

    // RepairDB on the same damage.
    if (!known_repair.empty() && !SweepKnown()) {
      tally_.known_skipped[known_repair]++;
      return;
    }
    ASSERT_EQ("", Fresh());
    ASSERT_EQ("", ApplyDamage(path, d, where));
    Status s = RepairDB(work_, CheckOptions(m));
    if (s.ok()) {
      tally_.repairs_ok++;
    } else {
      tally_.repairs_failed++;
    }
    const std::string p =
        CheckRepaired(m, work_, exp, promised, /*must_keep_all=*/false);
    if (!p.empty() && (s.ok() || p.find("Open after") == std::string::npos)) {
      tally_.Violation(point, p);
    }
  }

  // The Open half of a damage point: Open the damaged copy at work_ and
  // check it; put the damaged file (inode `ino`) back as `original`; Open
  // again and require everything.
  void OpenAndUndo(const std::string& point, const std::string& rel, Damage d,
                   ino_t ino, const std::string& original, const Expected& exp,
                   int promised) {
    const Mode& m = GetParam();
    const std::string path = work_ + "/" + rel;
    DB* db = nullptr;
    Status s = delsm::Open(CheckOptions(m), TuningFor(m), work_, &db);
    if (!s.ok()) {
      if (NamesFile(s, work_, rel)) {
        tally_.open_failed_named++;
      } else if (s.ToString().find(work_) != std::string::npos) {
        // A consequence the damage had elsewhere (a truncated manifest
        // lists a directory since removed; no CURRENT, no database).
        tally_.open_failed_named++;
        tally_.named_elsewhere.push_back(point + ": " + s.ToString());
      } else {
        tally_.Violation(
            point, "Open failed without naming the file: " + s.ToString());
      }
    } else {
      tally_.open_ok++;
      Impl(db)->TEST_WaitForBackgroundWork();  // may report the damage
      const std::string p = CheckReads(db, exp, promised, &tally_.get_errors);
      if (!p.empty()) tally_.Violation(point, "after Open: " + p);
      delete db;
    }
    // Undo the damage where the file still is (by inode: a compaction may
    // have linked it elsewhere), or put a removed file back.
    if (d == Damage::kRemove) {
      if (!Exists(path) && Exists(ParentOf(path))) {
        ASSERT_TRUE(WriteInPlace(path, original)) << path;
      }
    } else {
      std::vector<std::string> where_now;
      FindInode(work_, ino, &where_now);
      if (!where_now.empty()) {
        ASSERT_TRUE(WriteInPlace(where_now[0], original)) << where_now[0];
      }
    }
    const std::string p = CheckAll(m, work_, exp, promised);
    if (!p.empty()) tally_.Violation(point, "with the damage undone: " + p);
  }

  // One failed call: Open (or RepairDB) with call `n` of kind `op` of one
  // seam failing with `err`; then, the call no longer failing, an Open
  // that reads everything.
  template <typename Op>
  void CallPoint(bool repair, bool env_seam, Op op, const char* op_name,
                 uint64_t n, int err) {
    const Mode& m = GetParam();
    const Expected exp = Exp(kPhases);
    const std::string point =
        Point(std::string(repair ? "RepairDB" : "Open") + " " +
              (env_seam ? "env " : "fs ") + op_name + " #" + std::to_string(n) +
              " " + std::strerror(err));
    ASSERT_EQ("", Fresh());
    const std::string shadow = tmp_.path() + "/env_shadow";
    RemoveTree(shadow);
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultInjectionEnv env(Env::Default(), shadow);
    env.set_real_syncs(false);
    if (env_seam) {
      env.Arm(static_cast<EnvOp>(op), Spec(n, err));
    } else {
      fs.Arm(static_cast<FsOp>(op), Spec(n, err));
    }
    Options options = CheckOptions(m);
    options.env = &env;
    tally_.points++;
    Status s;
    bool fired = false;
    std::string first;
    if (repair) {
      s = RepairDBWithFileSystem(work_, options, &fs);
      fired = env_seam ? env.Fired() : fs.Fired();
      if (s.ok()) {
        tally_.repairs_ok++;
      } else {
        tally_.repairs_failed++;
      }
    } else {
      DB* db = nullptr;
      s = OpenWithFileSystem(options, TuningFor(m), work_, &fs, &db);
      if (s.ok()) {
        tally_.open_ok++;
        Impl(db)->TEST_WaitForBackgroundWork();
        const std::string p = CheckReads(db, exp, kPhases, &tally_.get_errors);
        if (!p.empty()) tally_.Violation(point, "after Open: " + p);
        delete db;
      }
      fired = env_seam ? env.Fired() : fs.Fired();
      if (!s.ok()) {
        // ENOENT may be reported as what it means (a missing manifest).
        if (s.ToString().find(std::strerror(err)) != std::string::npos ||
            (err == ENOENT &&
             s.ToString().find("missing") != std::string::npos)) {
          tally_.open_failed_named++;
        } else {
          tally_.Violation(point, std::string("Open failed without naming "
                                              "the failed call") +
                                      (fired ? "" : " (it never failed)") +
                                      ": " + s.ToString());
        }
      }
    }
    (void)fired;
    if (repair && s.ok() && !SweepKnown()) {
      PointFacts facts{&m, "", Damage::kFlip, false, repair_committed_};
      const std::string known = KnownAtRepair(facts);
      if (!known.empty()) {
        tally_.known_skipped[known]++;
        RemoveTree(shadow);
        return;
      }
    }
    const std::string p = CheckAll(m, work_, exp, kPhases);
    if (!p.empty()) {
      tally_.Violation(
          point,
          std::string(repair && s.ok() ? "RepairDB succeeded, then "
                                       : "the call no longer failing, ") +
              p);
    }
    RemoveTree(shadow);
  }

  static FaultSpec Spec(uint64_t n, int err) {
    FaultSpec spec;
    spec.nth = n;
    spec.err = err;
    return spec;
  }

  // Calls of each kind on each seam that a clean Open (with its
  // background work) or RepairDB makes on a fresh copy.
  void CountCalls(bool repair, std::vector<uint64_t>* fs_counts,
                  std::vector<uint64_t>* env_counts) {
    ASSERT_EQ("", Fresh());
    const std::string shadow = tmp_.path() + "/env_shadow";
    RemoveTree(shadow);
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultInjectionEnv env(Env::Default(), shadow);
    env.set_real_syncs(false);
    Options options = CheckOptions(GetParam());
    options.env = &env;
    if (repair) {
      ASSERT_OK(RepairDBWithFileSystem(work_, options, &fs));
    } else {
      DB* db = nullptr;
      ASSERT_OK(
          OpenWithFileSystem(options, TuningFor(GetParam()), work_, &fs, &db));
      Impl(db)->TEST_WaitForBackgroundWork();
      delete db;
    }
    fs_counts->clear();
    env_counts->clear();
    for (int k = 0; k < kNumFsOps; k++) {
      fs_counts->push_back(fs.Count(static_cast<FsOp>(k)));
    }
    for (int k = 0; k < kNumEnvOps; k++) {
      env_counts->push_back(env.Count(static_cast<EnvOp>(k)));
    }
    RemoveTree(shadow);
  }

  // The points n of a kind with `count` calls: all, or the first and one
  // drawn.
  std::vector<uint64_t> CallNumbers(uint64_t count) {
    std::vector<uint64_t> ns;
    if (count == 0) return ns;
    if (SweepAll()) {
      for (uint64_t n = 1; n <= count; n++) ns.push_back(n);
      return ns;
    }
    ns.push_back(1);
    const uint64_t drawn = 1 + rnd_() % count;
    if (drawn != 1) ns.push_back(drawn);
    return ns;
  }

  std::vector<int> Errors() {
    static const int kErrors[] = {EMFILE, EIO, ENOENT};
    if (SweepAll()) return {EMFILE, EIO, ENOENT};
    return {kErrors[rnd_() % 3]};
  }

  void SweepCalls(bool repair) {
    std::vector<uint64_t> fs_counts, env_counts;
    ASSERT_NO_FATAL_FAILURE(CountCalls(repair, &fs_counts, &env_counts));
    std::string counts;
    for (int k = 0; k < kNumFsOps; k++) {
      if (fs_counts[k] == 0) continue;
      counts += std::string(" fs ") + FsOpName(static_cast<FsOp>(k)) + " " +
                std::to_string(fs_counts[k]);
      for (uint64_t n : CallNumbers(fs_counts[k])) {
        for (int err : Errors()) {
          ASSERT_NO_FATAL_FAILURE(CallPoint(repair, false, static_cast<FsOp>(k),
                                            FsOpName(static_cast<FsOp>(k)), n,
                                            err));
        }
      }
    }
    for (int k = 0; k < kNumEnvOps; k++) {
      if (env_counts[k] == 0) continue;
      counts += std::string(" env ") + EnvOpName(static_cast<EnvOp>(k)) + " " +
                std::to_string(env_counts[k]);
      for (uint64_t n : CallNumbers(env_counts[k])) {
        for (int err : Errors()) {
          ASSERT_NO_FATAL_FAILURE(CallPoint(repair, true, static_cast<EnvOp>(k),
                                            EnvOpName(static_cast<EnvOp>(k)), n,
                                            err));
        }
      }
    }
    std::printf("recovery sweep (%s): calls %s makes:%s\n", GetParam().name,
                repair ? "RepairDB" : "Open", counts.c_str());
  }

  SweepDir tmp_;
  uint64_t seed_ = 0;
  std::mt19937 rnd_;
  std::vector<WriteOp> ops_;
  std::string pristine_, work_;
  bool repair_committed_ = false;  // killed_in_repair (Build)
  Tally tally_;
};

TEST_P(RecoverySweep, DamagedFiles) {
  std::vector<std::string> files;
  Walk(pristine_, "", &files);
  std::map<std::string, std::vector<std::string>> by_kind;
  for (const std::string& f : files) {
    const std::string kind = FileKind(f);
    // The conversion's staging files are the conversion tests' to sweep.
    if (kind.empty() || kind == "staging") continue;
    by_kind[kind].push_back(f);
  }
  std::string kinds;
  for (const auto& kv : by_kind) {
    kinds += " " + kv.first + " " + std::to_string(kv.second.size());
    if (SweepAll()) {
      for (const std::string& f : kv.second) {
        for (Damage d : kDamages) ASSERT_NO_FATAL_FAILURE(DamagePoint(f, d));
      }
    } else {
      const std::string& f = kv.second[rnd_() % kv.second.size()];
      ASSERT_NO_FATAL_FAILURE(DamagePoint(f, kDamages[rnd_() % 4]));
    }
  }
  std::printf("recovery sweep (%s): files by kind:%s\n", GetParam().name,
              kinds.c_str());
}

TEST_P(RecoverySweep, FailedCallsInOpen) { SweepCalls(/*repair=*/false); }

TEST_P(RecoverySweep, FailedCallsInRepair) { SweepCalls(/*repair=*/true); }

INSTANTIATE_TEST_SUITE_P(Modes, RecoverySweep, testing::ValuesIn(kModes),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace leveldb
