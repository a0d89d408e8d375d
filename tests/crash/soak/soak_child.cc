// The crash soak's writer child: opens the database, checks that it holds
// the model the parent handed over, then runs a random workload until it is
// killed. Mutations follow the intent/ack protocol of soak_protocol.h.
// Besides writing, the child checks what it can only check while running:
// a snapshot keeps showing the state it was taken at while writes,
// flushes and compactions go on, and an iterator shows the state at its
// creation, in order, without duplicates, however long it is held.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "tests/crash/soak/soak_protocol.h"

namespace delsm_soak {
namespace {

using leveldb::DB;
using leveldb::Iterator;
using leveldb::ReadOptions;
using leveldb::Status;

// Reads [Key(lo), Key(hi)) through `it` forward or backward and compares
// it with `expected`: keys strictly ordered, no duplicate, exactly the live
// keys of `expected` in that range, each with its value. Returns "" if all
// agree, else the first difference.
std::string CheckRange(Iterator* it, uint32_t lo, uint32_t hi, bool reverse,
                       const Model& expected) {
  const std::string lo_key = Key(lo);
  const std::string hi_key = Key(hi);
  std::vector<std::pair<std::string, std::string>> got;
  if (!reverse) {
    for (it->Seek(lo_key); it->Valid() && it->key().compare(hi_key) < 0;
         it->Next()) {
      got.emplace_back(it->key().ToString(), it->value().ToString());
    }
  } else {
    it->Seek(hi_key);
    if (it->Valid()) {
      it->Prev();
    } else {
      it->SeekToLast();
    }
    for (; it->Valid() && it->key().compare(lo_key) >= 0; it->Prev()) {
      got.emplace_back(it->key().ToString(), it->value().ToString());
    }
  }
  if (!it->status().ok()) return "iterator: " + it->status().ToString();
  const char* dir = reverse ? "backward" : "forward";
  for (size_t i = 1; i < got.size(); i++) {
    const int c = got[i - 1].first.compare(got[i].first);
    if (reverse ? c <= 0 : c >= 0) {
      return std::string(dir) + " scan: " + got[i].first + " after " +
             got[i - 1].first + " (out of order or duplicate)";
    }
  }
  std::vector<std::pair<uint32_t, uint64_t>> want(expected.lower_bound(lo),
                                                  expected.lower_bound(hi));
  if (reverse) std::reverse(want.begin(), want.end());
  for (size_t i = 0; i < got.size() || i < want.size(); i++) {
    const std::string want_key = i < want.size() ? Key(want[i].first) : "";
    const std::string got_key = i < got.size() ? got[i].first : "";
    if (want_key != got_key) {
      return std::string(dir) + " scan of [" + lo_key + ", " + hi_key +
             ") entry " + std::to_string(i) + ": expected key " +
             (want_key.empty() ? "<end>" : want_key) + ", got " +
             (got_key.empty() ? "<end>" : got_key);
    }
    if (got[i].second != Value(want[i].first, want[i].second)) {
      return std::string(dir) + " scan: " + got_key + " expected version " +
             std::to_string(want[i].second) + ", got " +
             DescribeValue(got[i].second);
    }
  }
  return "";
}

// Sends `what` to the parent as a violation and exits.
[[noreturn]] void Fail(const ChildArgs& args, const std::string& what) {
  std::fprintf(stderr, "crash_soak child (cycle %d): %s\n", args.cycle,
               what.c_str());
  const std::string text = what.substr(0, kMaxViolationText);
  SendRecord(args.fd, kViolation, 0, text.data(),
             static_cast<uint32_t>(text.size()),
             static_cast<uint32_t>(text.size()));
  _exit(kChildViolationExit);
}

class Workload {
 public:
  Workload(const ChildArgs& args, DB* db)
      : args_(args),
        db_(db),
        rng_(Mix(args.seed) ^ static_cast<uint64_t>(args.cycle)),
        next_version_(args.next_version),
        next_seq_(args.next_seq) {}

  // Checks that the database holds the parent's model, then says so.
  void Start() {
    if (!LoadModel(args_.model_path, &model_)) {
      std::fprintf(stderr, "child: cannot read %s\n", args_.model_path.c_str());
      _exit(4);
    }
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    const std::string error =
        CheckRange(it.get(), 0, args_.keys, false, model_);
    if (!error.empty()) Fail("after reopen in the child: " + error);
    if (!SendRecord(args_.fd, kReady, 0, nullptr, 0, 0)) _exit(3);
  }

  [[noreturn]] void Run() {
    for (;;) {
      const uint64_t r = rng_() % 1000;
      if (r < 150) {
        DeleteOne();
      } else if (r < 350) {
        Batch();
      } else if (r < 450) {
        CheckGet();
      } else if (r < 465) {
        TakeSnapshot();
      } else if (r < 515) {
        CheckSomeSnapshot();
      } else if (r < 545) {
        OpenIterator();
      } else if (r == 999 && rng_() % 4 == 0) {
        Compact();
      } else {
        PutOne();
      }
      Age();
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    delsm_soak::Fail(args_, what);
  }

  struct HeldSnapshot {
    const leveldb::Snapshot* snapshot;
    Model state;  // the model when it was taken
    int ops_left;
  };
  struct HeldIterator {
    std::unique_ptr<Iterator> it;
    uint32_t lo, hi;
    bool reverse;
    Model state;  // the model of [lo, hi) the iterator must show
    int ops_left;
  };

  uint64_t Rand(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  // A quarter of the picks go to a hot twentieth of the key space, so that
  // keys get many versions spread over several levels.
  uint32_t PickKey() {
    if (Rand(4) == 0) return static_cast<uint32_t>(Rand(args_.keys / 20 + 1));
    return static_cast<uint32_t>(Rand(args_.keys));
  }

  // Mostly a key that is live now, so that deletes usually delete.
  uint32_t PickDeleteKey() {
    if (model_.empty() || Rand(10) < 3) return PickKey();
    auto it = model_.lower_bound(PickKey());
    if (it == model_.end()) it = model_.begin();
    return it->first;
  }

  Mutation NewPut() { return Mutation{PickKey(), 0, next_version_++}; }
  Mutation NewDelete() { return Mutation{PickDeleteKey(), 1, 0}; }

  void Mutate(const std::vector<Mutation>& m) {
    const uint64_t seq = next_seq_++;
    if (!SendRecord(args_.fd, kIntent, seq, m.data(),
                    static_cast<uint32_t>(m.size() * sizeof(Mutation)),
                    static_cast<uint32_t>(m.size()))) {
      _exit(3);
    }
    const leveldb::WriteOptions wo;
    Status s;
    if (m.size() == 1) {
      s = m[0].is_delete
              ? db_->Delete(wo, Key(m[0].key))
              : db_->Put(wo, Key(m[0].key), Value(m[0].key, m[0].version));
    } else {
      leveldb::WriteBatch batch;
      for (const Mutation& x : m) {
        if (x.is_delete) {
          batch.Delete(Key(x.key));
        } else {
          batch.Put(Key(x.key), Value(x.key, x.version));
        }
      }
      s = db_->Write(wo, &batch);
    }
    if (!s.ok())
      Fail("write of " + std::to_string(m.size()) +
           " mutation(s) failed: " + s.ToString());
    if (!SendRecord(args_.fd, kAck, seq, nullptr, 0, 0)) _exit(3);
    Apply(m, &model_);
  }

  void PutOne() { Mutate({NewPut()}); }
  void DeleteOne() { Mutate({NewDelete()}); }

  void Batch() {
    std::vector<Mutation> m;
    const uint64_t n = 2 + Rand(kMaxBatch - 1);
    for (uint64_t i = 0; i < n; i++) {
      m.push_back(Rand(10) < 7 ? NewPut() : NewDelete());
    }
    Mutate(m);
  }

  void CheckGet() {
    const uint32_t key = PickKey();
    std::string value;
    const Status s = db_->Get(ReadOptions(), Key(key), &value);
    auto it = model_.find(key);
    if (it == model_.end()) {
      if (!s.IsNotFound()) {
        Fail("Get(" + Key(key) + ") of a deleted key: " +
             (s.ok() ? DescribeValue(value) : s.ToString()));
      }
    } else if (!s.ok() || value != Value(key, it->second)) {
      Fail("Get(" + Key(key) + ") expected version " +
           std::to_string(it->second) + ", got " +
           (s.ok() ? DescribeValue(value) : s.ToString()));
    }
  }

  void TakeSnapshot() {
    if (snapshots_.size() >= 3) return;
    snapshots_.push_back(HeldSnapshot{db_->GetSnapshot(), model_,
                                      10 + static_cast<int>(Rand(3000))});
  }

  // Point reads (or now and then a full scan) through a held snapshot must
  // still show the state it was taken at.
  void CheckSnapshot(const HeldSnapshot& h, bool full) {
    ReadOptions ro;
    ro.snapshot = h.snapshot;
    if (full) {
      std::unique_ptr<Iterator> it(db_->NewIterator(ro));
      const std::string error =
          CheckRange(it.get(), 0, args_.keys, Rand(2) == 0, h.state);
      if (!error.empty()) Fail("through a snapshot: " + error);
      return;
    }
    for (int i = 0; i < 8; i++) {
      const uint32_t key = PickKey();
      std::string value;
      const Status s = db_->Get(ro, Key(key), &value);
      auto it = h.state.find(key);
      const bool ok = it == h.state.end()
                          ? s.IsNotFound()
                          : s.ok() && value == Value(key, it->second);
      if (!ok) {
        Fail("Get(" + Key(key) + ") through a snapshot: expected " +
             (it == h.state.end() ? std::string("not found")
                                  : "version " + std::to_string(it->second)) +
             ", got " + (s.ok() ? DescribeValue(value) : s.ToString()));
      }
    }
  }

  void CheckSomeSnapshot() {
    if (snapshots_.empty()) return;
    CheckSnapshot(snapshots_[Rand(snapshots_.size())], Rand(5) == 0);
  }

  // An iterator, sometimes through a held snapshot, that is read only some
  // operations later, after the writes between have moved things around.
  void OpenIterator() {
    if (iterators_.size() >= 3) return;
    HeldIterator h;
    ReadOptions ro;
    ro.fill_cache = Rand(2) == 0;
    const Model* state = &model_;
    if (!snapshots_.empty() && Rand(3) == 0) {
      const HeldSnapshot& s = snapshots_[Rand(snapshots_.size())];
      ro.snapshot = s.snapshot;
      state = &s.state;
    }
    if (Rand(10) == 0) {
      h.lo = 0;
      h.hi = args_.keys;
    } else {
      h.lo = static_cast<uint32_t>(Rand(args_.keys));
      h.hi = std::min<uint32_t>(args_.keys,
                                h.lo + 1 + static_cast<uint32_t>(Rand(300)));
    }
    h.reverse = Rand(2) == 0;
    h.state.insert(state->lower_bound(h.lo), state->lower_bound(h.hi));
    h.ops_left = static_cast<int>(Rand(400));
    h.it.reset(db_->NewIterator(ro));
    iterators_.push_back(std::move(h));
  }

  void Compact() {
    if (Rand(5) == 0) {
      db_->CompactRange(nullptr, nullptr);
      return;
    }
    const uint32_t lo = static_cast<uint32_t>(Rand(args_.keys));
    const std::string begin = Key(lo);
    const std::string end = Key(lo + static_cast<uint32_t>(Rand(200)));
    const leveldb::Slice b(begin), e(end);
    db_->CompactRange(&b, &e);
  }

  // Counts down the held snapshots and iterators; checks and drops those
  // whose time is up.
  void Age() {
    for (size_t i = 0; i < snapshots_.size();) {
      if (--snapshots_[i].ops_left > 0) {
        i++;
        continue;
      }
      CheckSnapshot(snapshots_[i], true);
      db_->ReleaseSnapshot(snapshots_[i].snapshot);
      snapshots_.erase(snapshots_.begin() + i);
    }
    for (size_t i = 0; i < iterators_.size();) {
      HeldIterator& h = iterators_[i];
      if (--h.ops_left > 0) {
        i++;
        continue;
      }
      const std::string error =
          CheckRange(h.it.get(), h.lo, h.hi, h.reverse, h.state);
      if (!error.empty()) Fail("held iterator: " + error);
      iterators_.erase(iterators_.begin() + i);
    }
  }

  const ChildArgs args_;
  DB* const db_;
  std::mt19937_64 rng_;
  Model model_;  // the database now, as far as acknowledged writes go
  uint64_t next_version_;
  uint64_t next_seq_;
  std::vector<HeldIterator> iterators_;
  std::vector<HeldSnapshot> snapshots_;
};

}  // namespace

int RunChild(const ChildArgs& args) {
  leveldb::Options options;
  delsm::Tuning tuning;
  ConfigureCycle(args.seed, args.cycle, args.durability, &options, &tuning);
  DB* db = nullptr;
  const Status s = delsm::Open(options, tuning, args.db, &db);
  if (!s.ok()) Fail(args, "open in the child: " + s.ToString());
  // The DB is never closed: the child ends by SIGKILL or _exit.
  Workload workload(args, db);
  workload.Start();
  workload.Run();
}

}  // namespace delsm_soak
