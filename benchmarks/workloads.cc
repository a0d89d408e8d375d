#include "benchmarks/workloads.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "benchmarks/bench_util.h"

namespace bench {

namespace {
// Bytes of user data (keys and values) handed to the engine in writes.
std::atomic<uint64_t> g_user_bytes_written{0};
// Entries per parent of the fsmeta workload.
constexpr int kPerParent = 20;
}  // namespace

uint64_t UserBytesWritten() { return g_user_bytes_written.load(); }

Workloads::Workloads(const Flags& flags, const std::unique_ptr<Engine>* db,
                     uint64_t num, uint64_t reads,
                     std::function<uint64_t(int)> stage_seed,
                     StageRunner run_stage)
    : flags_(flags),
      db_(db),
      num_(num),
      reads_(reads),
      stage_seed_(std::move(stage_seed)),
      run_stage_(std::move(run_stage)) {}

std::string Workloads::Key(uint64_t index) const {
  std::string k(flags_.key_size, '0');
  FormatKey(index, flags_.key_size, &k[0]);
  return k;
}

void Workloads::CheckWrite(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "write error: %s\n", s.ToString().c_str());
    std::exit(1);
  }
}

// Writes (or deletes) the keys index_of(0..count) in batches of
// `per_batch`, this thread taking its share of positions.
void Workloads::WriteKeys(ThreadState* t, uint64_t count,
                          const std::function<uint64_t(uint64_t)>& index_of,
                          size_t value_size, int per_batch, bool sync,
                          bool del) {
  uint64_t begin, end;
  t->Share(count, &begin, &end);
  ValueGenerator& gen = t->gen;
  WriteOptions wo;
  wo.sync = sync || flags_.sync;
  std::unique_ptr<Batch> batch = db()->NewBatch();
  std::string key;
  for (uint64_t i = begin; i < end; i += per_batch) {
    batch->Clear();
    uint64_t bytes = 0;
    uint64_t stop = std::min<uint64_t>(end, i + per_batch);
    for (uint64_t j = i; j < stop; j++) {
      key = Key(index_of(j));
      if (del) {
        batch->Delete(key);
        bytes += key.size();
      } else {
        Slice v = gen.Generate(value_size);
        batch->Put(key, v);
        bytes += key.size() + v.size();
      }
    }
    CheckWrite(db()->Write(wo, batch.get()));
    g_user_bytes_written += bytes;
    t->stats.AddBytes(bytes);
    t->stats.FinishedOps(stop - i);
  }
}

// Point reads of index_of(0..count); `suffix` is appended to each key.
void Workloads::ReadKeys(
    ThreadState* t, uint64_t count,
    const std::function<uint64_t(ThreadState*, uint64_t)>& index_of,
    const std::string& suffix) {
  uint64_t begin, end;
  t->Share(count, &begin, &end);
  ReadOptions ro;
  std::string value, key;
  uint64_t found = 0;
  for (uint64_t i = begin; i < end; i++) {
    key = Key(index_of(t, i)) + suffix;
    Status s = db()->Get(ro, key, &value);
    if (s.ok()) {
      found++;
      t->stats.AddBytes(key.size() + value.size());
    } else if (!s.IsNotFound()) {
      std::fprintf(stderr, "get error: %s\n", s.ToString().c_str());
      std::exit(1);
    }
    t->stats.FinishedOps(1);
  }
  t->stats.AddFound(found, end - begin);
}

void Workloads::ReadSequential(ThreadState* t, bool reverse) {
  uint64_t begin, end;
  t->Share(reads_, &begin, &end);
  std::unique_ptr<Iterator> it = db()->NewIterator(ReadOptions());
  uint64_t found = 0;
  if (reverse) {
    it->SeekToLast();
  } else {
    it->SeekToFirst();
  }
  for (; found < end - begin && it->Valid();
       reverse ? it->Prev() : it->Next()) {
    found++;
    t->stats.AddBytes(it->key().size() + it->value().size());
    t->stats.FinishedOps(1);
  }
  if (!it->status().ok()) {
    std::fprintf(stderr, "iterator error: %s\n",
                 it->status().ToString().c_str());
    std::exit(1);
  }
  t->stats.AddFound(found, end - begin);
}

void Workloads::SeekRandom(ThreadState* t) {
  uint64_t begin, end;
  t->Share(reads_, &begin, &end);
  std::unique_ptr<Iterator> it = db()->NewIterator(ReadOptions());
  uint64_t found = 0;
  std::string key;
  for (uint64_t i = begin; i < end; i++) {
    key = Key(t->rand.Uniform(num_ > 0 ? num_ : 1));
    it->Seek(key);
    if (it->Valid() && it->key() == Slice(key)) {
      found++;
      t->stats.AddBytes(it->key().size() + it->value().size());
    }
    for (int64_t j = 0; j < flags_.seek_nexts && it->Valid(); j++) {
      it->Next();
      if (it->Valid()) {
        t->stats.AddBytes(it->key().size() + it->value().size());
      }
    }
    t->stats.FinishedOps(1);
  }
  t->stats.AddFound(found, end - begin);
}

// The paper's three stages, each its own line: fill N keys in random
// order; delete delete_ratio of them; then write N new keys (write=true)
// or read the N keys of stage 1, of which N - deleted must be found.
void Workloads::ThreeStage(const std::string& name, bool write) {
  uint64_t n = num_;
  uint64_t deleted = static_cast<uint64_t>(n * flags_.delete_ratio + 0.5);
  Permutation fill(n, stage_seed_(10)), del(n, stage_seed_(11)),
      last(n, stage_seed_(12));
  run_stage_(name + "/fill", 1, false, [&](ThreadState* t) {
    WriteKeys(
        t, n, [&](uint64_t i) { return fill.At(i); }, flags_.value_size, 1,
        false, false);
  });
  run_stage_(name + "/delete", 2, false, [&](ThreadState* t) {
    WriteKeys(
        t, deleted, [&](uint64_t i) { return del.At(i); }, 0, 1, false, true);
  });
  if (write) {
    run_stage_(name + "/write", 3, false, [&](ThreadState* t) {
      WriteKeys(
          t, n, [&](uint64_t i) { return n + last.At(i); }, flags_.value_size,
          1, false, false);
    });
  } else {
    run_stage_(name + "/read", 3, false, [&](ThreadState* t) {
      ReadKeys(
          t, n, [&](ThreadState*, uint64_t i) { return last.At(i); }, "");
      if (t->tid == 0) t->stats.SetExpectedFound(n - deleted);
    });
  }
}

// File-system metadata shape: key = 8-byte big-endian parent id + 8-byte
// big-endian hash of the entry name; 20 entries per parent; 128-byte
// values. Stages: load all parents (in random order), point gets of whole
// parents, and prefix scans of one parent each.
std::string Workloads::FsKey(uint64_t parent, uint64_t child) {
  std::string k(16, '\0');
  uint64_t h = Mix64(parent * kPerParent + child + 0x5eed);
  for (int i = 0; i < 8; i++) {
    k[i] = static_cast<char>(parent >> (56 - 8 * i));
    k[8 + i] = static_cast<char>(h >> (56 - 8 * i));
  }
  return k;
}

void Workloads::FsMeta() {
  uint64_t parents = std::max<uint64_t>(1, num_ / kPerParent);
  uint64_t groups = std::max<uint64_t>(1, reads_ / kPerParent);
  Permutation order(parents, stage_seed_(20));
  run_stage_("fsmeta/load", 1, false, [&](ThreadState* t) {
    uint64_t begin, end;
    t->Share(parents, &begin, &end);
    ValueGenerator& gen = t->gen;
    WriteOptions wo;
    wo.sync = flags_.sync;
    for (uint64_t i = begin; i < end; i++) {
      uint64_t parent = order.At(i) + 1;
      for (int c = 0; c < kPerParent; c++) {
        std::string key = FsKey(parent, c);
        Slice v = gen.Generate(128);
        CheckWrite(db()->Put(wo, key, v));
        g_user_bytes_written += key.size() + v.size();
        t->stats.AddBytes(key.size() + v.size());
        t->stats.FinishedOps(1);
      }
    }
  });
  run_stage_("fsmeta/get", 2, false, [&](ThreadState* t) {
    uint64_t begin, end;
    t->Share(groups, &begin, &end);
    std::string value;
    uint64_t found = 0;
    for (uint64_t g = begin; g < end; g++) {
      uint64_t parent = t->rand.Uniform(parents) + 1;
      for (int c = 0; c < kPerParent; c++) {
        std::string key = FsKey(parent, c);
        Status s = db()->Get(ReadOptions(), key, &value);
        if (s.ok()) {
          found++;
          t->stats.AddBytes(key.size() + value.size());
        }
        t->stats.FinishedOps(1);
      }
    }
    t->stats.AddFound(found, (end - begin) * kPerParent);
    t->stats.SetExpectedFound((end - begin) * kPerParent);
  });
  run_stage_("fsmeta/scan", 3, false, [&](ThreadState* t) {
    uint64_t begin, end;
    t->Share(groups, &begin, &end);
    std::unique_ptr<Iterator> it = db()->NewIterator(ReadOptions());
    uint64_t found = 0;
    for (uint64_t g = begin; g < end; g++) {
      std::string prefix = FsKey(t->rand.Uniform(parents) + 1, 0).substr(0, 8);
      for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
           it->Next()) {
        found++;
        t->stats.AddBytes(it->key().size() + it->value().size());
      }
      t->stats.FinishedOps(1);
    }
    t->stats.AddFound(found, (end - begin) * kPerParent);
    t->stats.SetExpectedFound((end - begin) * kPerParent);
  });
}

}  // namespace bench
