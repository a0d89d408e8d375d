// The recovery sweep, damaged files: Open and RepairDB must never lose
// acknowledged data silently. Over databases in every mode
// (recovery_sweep_fixture.h), for each file Open or RepairDB reads, the
// sweep damages it (a flipped byte, a truncation to half, a zero-fill at
// full length) or removes it (recovery_sweep_damage.h). After each point:
//
//  * Open fails with a Status naming the problem (the damaged file or its
//    directory), or it succeeds, and then every acknowledged key reads its
//    value or an error (never NotFound for a key acknowledged and not
//    deleted), no deleted key comes back, no key shows a value never
//    written to it (Get of every key and a full scan);
//  * with the damage undone (the damaged file put back from the saved
//    copy, in place, so every hard link to it sees it) the next Open reads
//    everything;
//  * RepairDB on the damaged database never brings back a deleted key nor
//    serves a value never written.
//
// Damage to a WAL follows LevelDB's contract (paranoid_checks off: a
// damaged record is skipped and logged; a truncated tail is what a crash
// leaves): writes that only the damaged WAL holds (the last, unflushed
// phase of the workload) are not required to survive it. Every other point
// requires every acknowledged write.
//
// The default suite damages one file of every kind, with one damage drawn
// by the seed; DELSM_SWEEP_ALL=1 damages every file with every damage.
// The failed calls are recovery_sweep_calls_test.cc's.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "tests/crash/recovery_sweep_checks.h"
#include "tests/crash/recovery_sweep_damage.h"
#include "tests/crash/recovery_sweep_fixture.h"
#include "tests/crash/recovery_sweep_workload.h"

namespace leveldb {
namespace {

using recovery_sweep::ApplyDamage;
using recovery_sweep::CheckAll;
using recovery_sweep::CheckOptions;
using recovery_sweep::CheckReads;
using recovery_sweep::CheckRepaired;
using recovery_sweep::Damage;
using recovery_sweep::DamageName;
using recovery_sweep::Expected;
using recovery_sweep::FileKind;
using recovery_sweep::FindInode;
using recovery_sweep::FlipReadsAsTornTail;
using recovery_sweep::Impl;
using recovery_sweep::kDamages;
using recovery_sweep::kModes;
using recovery_sweep::KnownAtOpen;
using recovery_sweep::KnownAtRepair;
using recovery_sweep::kPhases;
using recovery_sweep::Mode;
using recovery_sweep::PointFacts;
using recovery_sweep::ReadWhole;
using recovery_sweep::SweepAll;
using recovery_sweep::SweepKnown;
using recovery_sweep::TuningFor;
using recovery_sweep::Walk;
using recovery_sweep::WriteInPlace;

TEST(RecoverySweepChild, Child) { recovery_sweep::RunSweepChild(); }

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

class RecoverySweep : public recovery_sweep::SweepFixture {
 protected:
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

INSTANTIATE_TEST_SUITE_P(Modes, RecoverySweep, testing::ValuesIn(kModes),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace leveldb
