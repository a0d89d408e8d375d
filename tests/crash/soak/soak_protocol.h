// What the crash soak's parent and its writer child share: the keys and
// values of the workload, the model of the database (which key holds which
// version), the per-cycle engine configuration, and the records the child
// sends up a pipe.
//
// The protocol. Before each mutation (a Put, a Delete or a WriteBatch) the
// child sends an intent record listing what it is about to change; after the
// DB call returns OK it sends an ack record with the same sequence number,
// and only then starts the next operation. So when the child is killed the
// parent knows every acknowledged mutation and at most one in flight (an
// intent without its ack), which may or may not have been applied. Every
// record is written with a single write(2) of at most PIPE_BUF bytes, which
// the kernel delivers whole or not at all even if the writer is killed.
#ifndef DELSM_TESTS_SOAK_SOAK_PROTOCOL_H_
#define DELSM_TESTS_SOAK_SOAK_PROTOCOL_H_

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/options.h"
#include "leveldb/slice.h"
#include "tests/test_support.h"

namespace delsm_soak {

enum RecordType : uint32_t {
  kReady = 1,      // the child opened the DB and checked it; seq unused
  kIntent = 2,     // count Mutations follow
  kAck = 3,        // the intent with this seq was applied
  kViolation = 4,  // count bytes of text follow; the child then exits
};

struct RecordHeader {
  uint32_t type;
  uint32_t count;
  uint64_t seq;
};

struct Mutation {
  uint32_t key;
  uint32_t is_delete;
  uint64_t version;  // the value written is Value(key, version); 0 if delete
};

// At most this many mutations per batch, so an intent fits in PIPE_BUF.
constexpr uint32_t kMaxBatch = 16;
// The longest violation text sent up the pipe.
constexpr size_t kMaxViolationText = 3000;
// Exit status of a child that found a violation itself.
constexpr int kChildViolationExit = 10;

// The database as the soak believes it is: every live key and the version
// of its value. Keys not present are deleted or were never written.
using Model = std::map<uint32_t, uint64_t>;

inline std::string Key(uint32_t key) { return delsm_test::IndexKey(key); }

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb3fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// The value of `key` at `version`: both numbers in readable form, then
// filler whose length and bytes depend on both, so a value left over from
// another version or another key never passes for the expected one. Mostly
// short; one in 17 is a few KiB (several blocks in its KV file).
inline std::string Value(uint32_t key, uint64_t version) {
  uint64_t h = Mix((static_cast<uint64_t>(key) << 40) ^ version);
  std::string v = Key(key) + "@" + std::to_string(version) + "#";
  size_t len = v.size() + h % 120;
  if (h % 17 == 0) len += 1000 + (h >> 8) % 4000;
  while (v.size() < len) {
    h = Mix(h + v.size());
    v.push_back(static_cast<char>('a' + h % 26));
  }
  return v;
}

// For diagnostics: names which key and version a value read back was
// written as, or says it is no value the soak ever wrote.
inline std::string DescribeValue(const std::string& v) {
  const size_t at = v.find('@');
  const size_t hash = v.find('#');
  if (at != std::string::npos && hash != std::string::npos && at < hash) {
    uint64_t index;
    if (delsm_test::ParseIndexKey(v.substr(0, at), &index)) {
      const uint64_t version = std::strtoull(v.c_str() + at + 1, nullptr, 10);
      if (Value(static_cast<uint32_t>(index), version) == v) {
        return "value of " + v.substr(0, at) + " version " +
               std::to_string(version);
      }
    }
  }
  return "unrecognized value of " + std::to_string(v.size()) + " bytes";
}

// Parses a value read under `key`; true if it is Value(key, *version).
inline bool ParseValue(uint32_t key, const std::string& v, uint64_t* version) {
  const std::string prefix = Key(key) + "@";
  if (v.compare(0, prefix.size(), prefix) != 0) return false;
  *version = std::strtoull(v.c_str() + prefix.size(), nullptr, 10);
  return Value(key, *version) == v;
}

inline void Apply(const std::vector<Mutation>& mutations, Model* model) {
  for (const Mutation& m : mutations) {
    if (m.is_delete) {
      model->erase(m.key);
    } else {
      (*model)[m.key] = m.version;
    }
  }
}

// Sends one record with a single write(2). False if it could not.
inline bool SendRecord(int fd, RecordType type, uint64_t seq,
                       const void* payload, uint32_t payload_bytes,
                       uint32_t count) {
  std::string buf(sizeof(RecordHeader) + payload_bytes, '\0');
  RecordHeader h{type, count, seq};
  std::memcpy(&buf[0], &h, sizeof(h));
  if (payload_bytes > 0) {
    std::memcpy(&buf[sizeof(h)], payload, payload_bytes);
  }
  ssize_t n;
  do {
    n = write(fd, buf.data(), buf.size());
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(buf.size());
}

inline bool ParseDurability(const std::string& s, delsm::Durability* d) {
  if (s == "syncfs") {
    *d = delsm::Durability::kSyncfs;
  } else if (s == "fsync") {
    *d = delsm::Durability::kFsync;
  } else if (s == "deferred") {
    *d = delsm::Durability::kDeferred;
  } else {
    return false;
  }
  return true;
}

// The engine configuration of one cycle, a function of the run's seed and
// the cycle number so that parent and child agree without passing it. Tiny
// memtables and thresholds keep flushes and compactions always in flight;
// the inline threshold, compression, paranoid checks and the number of
// flush workers vary too, so that recovery meets SST directories written
// under other settings.
inline void ConfigureCycle(uint64_t seed, int cycle,
                           delsm::Durability durability,
                           leveldb::Options* options, delsm::Tuning* tuning) {
  uint64_t h = Mix(seed * 1000003 + static_cast<uint64_t>(cycle));
  auto next = [&h](uint64_t n) {
    h = Mix(h + 0x9E3779B97F4A7C15ull);
    return h % n;
  };
  *options = leveldb::Options();
  options->create_if_missing = true;
  options->write_buffer_size = (16 << 10) + next(240 << 10);
  options->compression =
      next(2) == 0 ? leveldb::kNoCompression : leveldb::kSnappyCompression;
  options->paranoid_checks = next(4) == 0;
  *tuning = delsm::Tuning();
  tuning->durability = durability;
  tuning->deferred_wal_retention_micros = next(3000) * 1000;
  // Pure mode in two of five cycles, the default (2048) in one.
  static const size_t kInline[] = {0, 0, 64, 512,
                                   delsm::Tuning().inline_threshold};
  tuning->inline_threshold = kInline[next(5)];
  tuning->l0_compaction_entries = 32 + next(480);
  tuning->l0_compaction_dirs = 2 + static_cast<int>(next(3));
  tuning->l0_slowdown_dirs = 4 + static_cast<int>(next(5));
  tuning->l0_stop_dirs = tuning->l0_slowdown_dirs + 4;
  tuning->sst_entries = 16 + next(240);
  tuning->l1_entries = 64 + next(960);
  // A byte bound on the levels in a third of the cycles (16 KiB to 272 KiB
  // of meta files at L1), so levels of inline values compact by bytes.
  if (next(3) == 0) tuning->l1_meta_bytes = (16 + next(256)) << 10;
  // Half the cycles split directories early (some below one SST's entries,
  // so every output gets a new directory).
  if (next(2) == 0) tuning->max_dir_entries = 16 + next(1200);
  // Parallel flush half the time: commits in order, kills mid-build.
  tuning->flush_threads = next(2) == 0 ? 1 : 2 + static_cast<int>(next(3));
  // Values that stay put half the time, so the mode is switched on and off
  // across kills on one database (docs/DESIGN.md section 5).
  tuning->values_stay_put = next(2) == 0;
  // The removal pass on its own thread half the time, so kills land while
  // it unlinks beside a running compaction, and on the compaction thread
  // the other half.
  tuning->removal_thread = next(2) == 0;
  // Levels of values in KV files 1 to 20 times larger than those of inline
  // values, so both settle at several depths.
  tuning->kv_file_entries_per_entry = 1 + next(20);
}

// Arguments of the writer child (the soak binary run with --child).
struct ChildArgs {
  std::string db;
  std::string model_path;  // the model the DB must hold when the child starts
  int fd = -1;             // write end of the pipe to the parent
  uint64_t seed = 0;       // the run's seed
  int cycle = 0;
  uint32_t keys = 0;  // the key space is Key(0) .. Key(keys - 1)
  uint64_t next_version = 1;
  uint64_t next_seq = 1;
  delsm::Durability durability = delsm::Durability::kSyncfs;
};

// The writer child's main loop (soak_child.cc). Never returns normally: it
// runs until killed, or exits with kChildViolationExit after sending a
// violation record, or with another nonzero status on a harness failure.
int RunChild(const ChildArgs& args);

// Writes `model` to `path` (pairs of key and version, native byte order:
// only this binary reads it back). False on any I/O failure.
inline bool SaveModel(const std::string& path, const Model& model) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = true;
  for (const auto& kv : model) {
    const uint64_t rec[2] = {kv.first, kv.second};
    ok = ok && std::fwrite(rec, sizeof(rec), 1, f) == 1;
  }
  return std::fclose(f) == 0 && ok;
}

inline bool LoadModel(const std::string& path, Model* model) {
  model->clear();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  uint64_t rec[2];
  while (std::fread(rec, sizeof(rec), 1, f) == 1) {
    (*model)[static_cast<uint32_t>(rec[0])] = rec[1];
  }
  const bool ok = !std::ferror(f);
  return std::fclose(f) == 0 && ok;
}

}  // namespace delsm_soak

#endif  // DELSM_TESTS_SOAK_SOAK_PROTOCOL_H_
