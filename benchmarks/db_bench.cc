// db_bench: LevelDB-style benchmark driver, one source for every engine
// (DeLSM, LevelDB, RocksDB/BlobDB) through benchmarks/engine.h.
//
// Output follows LevelDB's db_bench line for line ("name : X micros/op;
// Y MB/s", "(N of M found)", "(N ops)", "(4K per op)", "(output: X%)"), so
// scripts written for LevelDB's db_bench read it unchanged; every read
// workload (not only readrandom and seekrandom) reports what it found, and a
// workload that knows how many keys it must find adds ", expected E".
// LevelDB's table-format flags (--block_size, --max_file_size,
// --reuse_logs) are applied where the engine has such a thing and otherwise
// acknowledged in the header as having no effect. Differences from
// LevelDB's db_bench, on purpose:
//  - Key order comes from --seed; without it each process draws a fresh
//    seed (printed in the header), so a read in a new process does not replay
//    the order a fill used.
//  - fillrandom, overwrite and deleterandom visit each of the --num keys
//    exactly once in random order (LevelDB draws with replacement and so
//    writes only ~63% distinct keys).
//  - --threads splits each workload's operations among the threads
//    (LevelDB gives every thread the full count).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/bench_util.h"
#include "benchmarks/db_bench_flags.h"
#include "benchmarks/engine.h"
#include "benchmarks/histogram.h"
#include "benchmarks/micro_bench.h"
#include "benchmarks/workloads.h"

namespace bench {
namespace {

Flags FLAGS;

class Benchmark {
 public:
  Benchmark()
      : num_(FLAGS.num),
        reads_(FLAGS.reads < 0 ? FLAGS.num : FLAGS.reads),
        seed_(FLAGS.seed != 0 ? FLAGS.seed
                              : std::random_device()() * 4294967296ull +
                                    std::random_device()()),
        workloads_(
            FLAGS, &db_, num_, reads_,
            [this](int stage) { return StageSeed(stage); },
            [this](const std::string& name, int stage, bool single,
                   const Method& method) {
              RunStage(name, stage, single, method);
            }) {
    if (seed_ == 0) seed_ = 1;
    engine_opts_.write_buffer_size =
        FLAGS.write_buffer_size > 0 ? FLAGS.write_buffer_size : 4 << 20;
    engine_opts_.cache_size =
        FLAGS.cache_size >= 0 ? FLAGS.cache_size : 8 << 20;
    engine_opts_.bloom_bits = FLAGS.bloom_bits;
    engine_opts_.open_files = FLAGS.open_files > 0 ? FLAGS.open_files : 1000;
    engine_opts_.compression = FLAGS.compression;
    engine_opts_.blob = FLAGS.blob;
    engine_opts_.min_blob_size = FLAGS.min_blob_size;
    engine_opts_.blob_gc = FLAGS.blob_gc;
    engine_opts_.durability = FLAGS.durability;
    engine_opts_.inline_threshold = FLAGS.inline_threshold;
    engine_opts_.l0_compaction_entries = FLAGS.l0_compaction_entries;
    engine_opts_.sst_entries = FLAGS.sst_entries;
    engine_opts_.read_ahead_files = FLAGS.read_ahead_files;
    engine_opts_.values_stay_put = FLAGS.values_stay_put;
    engine_opts_.tuning = FLAGS.tuning;
    engine_opts_.block_size = FLAGS.block_size;
    engine_opts_.max_file_size = FLAGS.max_file_size;
    engine_opts_.reuse_logs = FLAGS.reuse_logs;
    db_path_ = FLAGS.db;
    if (db_path_.empty()) {
      std::string e = EngineName();
      for (char& c : e) c = static_cast<char>(std::tolower(c));
      db_path_ = "/tmp/db_bench-" + e + "-" + std::to_string(geteuid());
    }
  }

  ~Benchmark() { db_.reset(); }

  int Run() {
    // Keys of the three-stage workloads go up to 2*num.
    uint64_t max_index = num_ > 0 ? 2 * num_ - 1 : 0;
    if (DecimalDigits(max_index) > FLAGS.key_size) {
      std::fprintf(stderr,
                   "--key_size=%d is too short for %" PRIu64
                   " distinct keys (need %d digits)\n",
                   FLAGS.key_size, 2 * num_, DecimalDigits(max_index));
      return 1;
    }
    PrintHeader();
    if (!FLAGS.use_existing_db) {
      Status s = DestroyEngine(db_path_);
      if (!s.ok()) return Fail("destroy " + db_path_, s);
    }
    if (!Open()) return 1;

    std::string list = FLAGS.benchmarks;
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      std::string name = list.substr(pos, comma - pos);
      pos = comma + 1;
      if (name.empty()) continue;
      bench_index_++;
      if (!RunOne(name)) return 1;
    }
    uint64_t wb = 0, cancelled = 0;
    std::fprintf(stdout, "user bytes written: %" PRIu64 "\n",
                 UserBytesWritten());
    if (ProcessWriteBytes(&wb, &cancelled)) {
      std::fprintf(stdout,
                   "process write_bytes: %" PRIu64
                   " (cancelled_write_bytes: %" PRIu64 ")\n",
                   wb, cancelled);
    }
    uint64_t rss_kb = 0;
    if (PeakRssKb(&rss_kb)) {
      std::fprintf(stdout, "peak RSS (VmHWM): %" PRIu64 " kB\n", rss_kb);
    }
    return 0;
  }

 private:
  using Method = Workloads::Method;

  int Fail(const std::string& what, const Status& s) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
    return 1;
  }

  bool Open() {
    engine_opts_.create_if_missing = true;
    Status s = OpenEngine(engine_opts_, db_path_, &db_);
    if (!s.ok()) {
      Fail("open " + db_path_, s);
      return false;
    }
    return true;
  }

  // Recreates an empty database, as LevelDB's db_bench does before fills.
  // False (and a message) when --use_existing_db forbids it.
  bool FreshDB(const std::string& name, bool* ok) {
    *ok = true;
    if (FLAGS.use_existing_db) {
      std::fprintf(stdout, "%-12s : skipped (--use_existing_db is true)\n",
                   name.c_str());
      return false;
    }
    db_.reset();
    Status s = DestroyEngine(db_path_);
    if (!s.ok()) {
      Fail("destroy " + db_path_, s);
      *ok = false;
      return false;
    }
    *ok = Open();
    return *ok;
  }

  // Seed for stage `stage` of the current workload; distinct per workload
  // position so repeated workloads draw new orders, same for equal --seed.
  uint64_t StageSeed(int stage) const {
    return Mix64(seed_ ^ Mix64(bench_index_ * 64 + stage));
  }

  // Runs `method` on --threads threads (or one), then reports as `name`.
  void RunStage(const std::string& name, int stage, bool single,
                const Method& method) {
    int n = single ? 1 : FLAGS.threads;
    std::vector<std::unique_ptr<ThreadState>> states;
    for (int t = 0; t < n; t++) {
      states.emplace_back(new ThreadState(
          t, n, Mix64(StageSeed(stage) + 1000003ull * t), FLAGS));
    }
    // Threads start together so their times overlap as in LevelDB.
    std::mutex mu;
    std::condition_variable cv;
    int ready = 0;
    bool go = false;
    std::vector<std::thread> threads;
    for (int t = 0; t < n; t++) {
      threads.emplace_back([&, t] {
        {
          std::unique_lock<std::mutex> l(mu);
          ready++;
          cv.notify_all();
          cv.wait(l, [&] { return go; });
        }
        states[t]->stats.Start(t);
        method(states[t].get());
        states[t]->stats.Stop();
      });
    }
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return ready == n; });
      go = true;
      cv.notify_all();
    }
    for (std::thread& th : threads) th.join();
    states[0]->stats.BeginMerge();
    for (int t = 1; t < n; t++) states[0]->stats.Merge(states[t]->stats);
    states[0]->stats.Report(name);
    if (FLAGS.stage_barrier) StageBarrier(name);
  }

  // --stage_barrier: reports the process's write totals at the end of a
  // stage, then waits for the runner (one line on stdin; end of input lets
  // the run go on) so it can sync the file system and read the device's
  // counters before the next stage writes anything. Background threads
  // (flushes, compactions) keep running meanwhile, as they would.
  void StageBarrier(const std::string& name) {
    uint64_t wb = 0, cancelled = 0;
    if (!ProcessWriteBytes(&wb, &cancelled)) {
      std::fprintf(stdout, "stage end: %s (/proc/self/io unreadable)\n",
                   name.c_str());
    } else {
      std::fprintf(stdout,
                   "stage end: %s write_bytes=%" PRIu64
                   " cancelled_write_bytes=%" PRIu64 " user_bytes=%" PRIu64
                   "\n",
                   name.c_str(), wb, cancelled, UserBytesWritten());
    }
    std::fflush(stdout);
    char line[64];
    if (std::fgets(line, sizeof(line), stdin) == nullptr && ferror(stdin)) {
      std::fprintf(stderr, "db_bench: --stage_barrier: reading stdin: %s\n",
                   std::strerror(errno));
    }
  }

  void PrintStats() {
    for (const std::string& p : db_->StatsProperties()) {
      std::string value;
      if (db_->GetProperty(p, &value)) {
        std::fprintf(stdout, "%s:\n%s\n", p.c_str(), value.c_str());
      } else {
        std::fprintf(stdout, "%s: (not supported by this engine)\n", p.c_str());
      }
    }
  }

  // Runs one named workload; false on an unknown name or a fatal error.
  bool RunOne(const std::string& name) {
    bool ok = true;
    uint64_t n = num_;
    uint64_t small = std::max<uint64_t>(1, num_ / 1000);
    auto seq = [](uint64_t i) { return i; };
    if (name == "fillseq" || name == "fillbatch") {
      if (!FreshDB(name, &ok)) return ok;
      int batch = name == "fillbatch" ? 1000 : 1;
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.WriteKeys(t, n, seq, FLAGS.value_size, batch, false, false);
      });
    } else if (name == "fillrandom" || name == "fillsync" ||
               name == "fill100K") {
      if (!FreshDB(name, &ok)) return ok;
      uint64_t count = name == "fillrandom" ? n : small;
      size_t value_size =
          name == "fill100K" ? kMaxFixedValueSize : FLAGS.value_size;
      Permutation p(n > 0 ? n : 1, StageSeed(0));
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.WriteKeys(
            t, count, [&](uint64_t i) { return p.At(i); }, value_size, 1,
            name == "fillsync", false);
        if (count != n)
          t->stats.AddMessage("(" + std::to_string(count) + " ops)");
      });
    } else if (name == "overwrite" || name == "deleterandom") {
      Permutation p(n > 0 ? n : 1, StageSeed(0));
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.WriteKeys(
            t, n, [&](uint64_t i) { return p.At(i); }, FLAGS.value_size, 1,
            false, name == "deleterandom");
      });
    } else if (name == "deleteseq") {
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.WriteKeys(t, n, seq, 0, 1, false, true);
      });
    } else if (name == "readseq" || name == "readreverse") {
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.ReadSequential(t, name == "readreverse");
      });
    } else if (name == "readrandom" || name == "readmissing" ||
               name == "readhot" || name == "readrandomsmall") {
      uint64_t range = name == "readhot" ? (n + 99) / 100 : n;
      if (range == 0) range = 1;
      // readrandomsmall: LevelDB's readrandom with a thousandth of the reads.
      uint64_t reads = name == "readrandomsmall" ? reads_ / 1000 : reads_;
      RunStage(name, 0, false, [&](ThreadState* t) {
        workloads_.ReadKeys(
            t, reads,
            [range](ThreadState* ts, uint64_t) {
              return ts->rand.Uniform(range);
            },
            name == "readmissing" ? "." : "");
      });
    } else if (name == "seekrandom") {
      RunStage(name, 0, false,
               [&](ThreadState* t) { workloads_.SeekRandom(t); });
    } else if (name == "writedeletewrite" || name == "writedeleteread") {
      if (!FreshDB(name, &ok)) return ok;
      workloads_.ThreeStage(name, name == "writedeletewrite");
    } else if (name == "fsmeta") {
      if (!FreshDB(name, &ok)) return ok;
      workloads_.FsMeta();
    } else if (name == "compact") {
      RunStage(name, 0, true, [&](ThreadState* t) {
        Status s = db_->CompactAll();
        if (!s.ok()) {
          std::fprintf(stderr, "compact: %s\n", s.ToString().c_str());
          std::exit(1);
        }
        t->stats.FinishedOps(1);
      });
    } else if (name == "stats") {
      PrintStats();
    } else if (name == "open") {
      // LevelDB's: close and reopen num/10000 times (at least once).
      uint64_t opens = std::max<uint64_t>(1, n / 10000);
      RunStage(name, 0, true, [&](ThreadState* t) {
        for (uint64_t i = 0; i < opens; i++) {
          db_.reset();
          if (!Open()) std::exit(1);
          t->stats.FinishedOps(1);
        }
      });
    } else if (name == "crc32c" || name == "snappycomp" ||
               name == "snappyuncomp") {
      RunStage(name, 0, true, [&](ThreadState* t) {
        MicroResult r = RunMicroBenchmark(name, &t->gen);
        t->stats.FinishedOps(r.ops);
        t->stats.AddBytes(r.bytes);
        t->stats.AddMessage(r.message);
      });
    } else if (name == "sstables") {
      std::string v;
      if (!db_->GetProperty("leveldb.sstables", &v)) v = "(failed)";
      std::fprintf(stdout, "\n%s\n", v.c_str());
    } else if (name == "heapprofile") {
      // As LevelDB's db_bench on every port without a heap profiler.
      std::fprintf(stderr, "heap profiling not supported\n");
    } else {
      std::fprintf(stderr, "unknown benchmark '%s'\n", name.c_str());
      return false;
    }
    return true;
  }

  void PrintHeader() {
    std::fprintf(stdout, "Engine:     %s\n", EngineName().c_str());
    std::fprintf(stdout, "Build:      %s\n", EngineBuild().c_str());
    std::fprintf(stdout, "Options:    %s\n",
                 DescribeOptions(engine_opts_).c_str());
    std::fprintf(stdout, "Keys:       %d bytes each\n", FLAGS.key_size);
    std::fprintf(
        stdout, "Values:     %d bytes each (%d bytes after compression)\n",
        FLAGS.value_size,
        static_cast<int>(FLAGS.value_size * FLAGS.compression_ratio + 0.5));
    std::fprintf(stdout, "Entries:    %" PRId64 "\n", FLAGS.num);
    std::fprintf(
        stdout, "RawSize:    %.1f MB (estimated)\n",
        (FLAGS.key_size + FLAGS.value_size) * double(FLAGS.num) / 1048576.0);
    std::fprintf(stdout, "Threads:    %d\n", FLAGS.threads);
    std::fprintf(
        stdout, "Seed:       %" PRIu64 "%s\n", seed_,
        FLAGS.seed != 0 ? " (--seed)" : " (fresh; repeat with --seed)");
    std::fprintf(stdout, "Database:   %s\n", db_path_.c_str());
    std::time_t now = std::time(nullptr);
    std::fprintf(stdout, "Date:       %s", std::ctime(&now));
    PrintCpuInfo();
    if (EngineHasAssertions()) {
      std::fprintf(stdout,
                   "WARNING: %s library is built with assertions; "
                   "benchmarks unnecessarily slow\n",
                   EngineName().c_str());
    }
#ifndef NDEBUG
    std::fprintf(stdout,
                 "WARNING: db_bench is built with assertions (no NDEBUG)\n");
#endif
    if (FLAGS.blob && EngineName() != "RocksDB") {
      std::fprintf(stdout, "WARNING: --blob is ignored by %s\n",
                   EngineName().c_str());
    }
    bool delsm_knobs = !FLAGS.durability.empty() ||
                       FLAGS.inline_threshold >= 0 ||
                       FLAGS.l0_compaction_entries >= 0 ||
                       FLAGS.sst_entries >= 0 || FLAGS.read_ahead_files >= 0 ||
                       FLAGS.values_stay_put >= 0 || !FLAGS.tuning.empty();
    if (delsm_knobs && EngineName() != "DeLSM") {
      std::fprintf(stdout, "WARNING: DeLSM knobs are ignored by %s\n",
                   EngineName().c_str());
    }
    if (FLAGS.comparisons) {
      std::fprintf(stdout,
                   "NOTE: --comparisons=1 is accepted, but this db_bench "
                   "does not count comparator calls\n");
    }
    if (EngineName() == "DeLSM" &&
        (FLAGS.block_size > 0 || FLAGS.max_file_size > 0 || FLAGS.reuse_logs)) {
      std::fprintf(stdout,
                   "NOTE: --block_size, --max_file_size and --reuse_logs "
                   "shape LevelDB's table files and logs; DeLSM has neither, "
                   "so they have no effect\n");
    }
    std::fprintf(stdout, "------------------------------------------------\n");
    std::fflush(stdout);
  }

  EngineOptions engine_opts_;
  std::string db_path_;
  std::unique_ptr<Engine> db_;
  uint64_t num_;
  uint64_t reads_;
  uint64_t seed_;
  int bench_index_ = 0;
  Workloads workloads_;  // last: built from the members above
};

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  bool help = false;
  std::string error;
  if (!bench::ParseFlags(argc, argv, &bench::FLAGS, &help, &error)) {
    std::fprintf(stderr, "db_bench: %s\n%s", error.c_str(),
                 bench::FlagsUsage().c_str());
    return 1;
  }
  if (help) {
    std::fprintf(stdout, "%s", bench::FlagsUsage().c_str());
    return 0;
  }
  bench::Benchmark benchmark;
  return benchmark.Run();
}
