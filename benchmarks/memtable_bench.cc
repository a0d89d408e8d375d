// memtable_bench: what a memtable insert costs DeLSM's writer, without the
// WAL, the file system or other threads.
//
// Inserts --num entries into a fresh MemTable in a random order of db_bench's
// keys (16-byte zero-padded decimal), each with a value of --value_size bytes
// (0: a deletion), --reps times, and prints the fastest repetition in
// µs per insert. Timings on a shared machine move with its load; for a
// load-independent comparison of two builds run it under valgrind's
// cachegrind with the L2 as the last level (a memtable of 4 MiB does not
// fit a 1 MiB L2, so its inserts are paced by L2 misses):
//   valgrind --tool=cachegrind --cache-sim=yes --LL=1048576,16,64 \
//       build-release/benchmarks/memtable_bench --num=100000 --reps=1
//
// Usage: memtable_bench [--num=100000] [--value_size=128] [--reps=5]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "leveldb/comparator.h"
#include "util/random.h"

namespace {

bool ParseFlag(const char* arg, const char* name, long min, long max,
               long* value) {
  const size_t len = std::strlen(name);
  if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return false;
  char* end = nullptr;
  const long v = std::strtol(arg + len + 1, &end, 10);
  if (*end != '\0' || v < min || v > max) {
    std::fprintf(stderr, "memtable_bench: %s wants %ld to %ld, got %s\n", name,
                 min, max, arg + len + 1);
    std::exit(2);
  }
  *value = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long num = 100000, value_size = 128, reps = 5;
  for (int i = 1; i < argc; i++) {
    if (!ParseFlag(argv[i], "--num", 1, 10000000, &num) &&
        !ParseFlag(argv[i], "--value_size", 0, 1 << 20, &value_size) &&
        !ParseFlag(argv[i], "--reps", 1, 1000, &reps)) {
      std::fprintf(stderr,
                   "usage: memtable_bench [--num=N] [--value_size=B] "
                   "[--reps=R]\n");
      return 2;
    }
  }
  // Keys formatted up front, in a random order, so the timed loop is the
  // inserts alone.
  std::vector<uint64_t> order(num);
  for (long i = 0; i < num; i++) order[i] = i;
  leveldb::Random rnd(301);
  for (long i = num - 1; i > 0; i--) {
    std::swap(order[i], order[rnd.Uniform(static_cast<int>(i) + 1)]);
  }
  std::vector<char> keys(num * 16);
  for (long i = 0; i < num; i++) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%016llu",
                  static_cast<unsigned long long>(order[i]));
    std::memcpy(&keys[i * 16], buf, 16);
  }
  const std::string value(value_size, 'v');
  const leveldb::ValueType type =
      value_size > 0 ? leveldb::kTypeValue : leveldb::kTypeDeletion;
  leveldb::InternalKeyComparator cmp(leveldb::BytewiseComparator());
  double best = 0;
  size_t memory = 0;
  for (long r = 0; r < reps; r++) {
    leveldb::MemTable* mem = new leveldb::MemTable(cmp);
    mem->Ref();
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < num; i++) {
      mem->Add(i + 1, type, leveldb::Slice(&keys[i * 16], 16), value);
    }
    const double micros = std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    if (r == 0 || micros < best) best = micros;
    memory = mem->ApproximateMemoryUsage();
    mem->Unref();
  }
  std::printf(
      "memtable_bench: %ld inserts, %ld B values: %.3f us/insert (best of "
      "%ld), memtable %.1f MiB\n",
      num, value_size, best / num, reps, memory / 1048576.0);
  return 0;
}
