// db_bench's workloads: batched writes and deletes, point reads, scans,
// seeks, the paper's three-stage write-delete-write/read, and the
// file-system metadata shape. Each runs on the calling thread's share of
// the operations (ThreadState::Share) and records what it did in the
// thread's Stats; the multi-stage ones run their stages through the
// driver's stage runner, which prints one line per stage.
#ifndef DELSM_BENCHMARKS_WORKLOADS_H_
#define DELSM_BENCHMARKS_WORKLOADS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "benchmarks/bench_thread.h"
#include "benchmarks/db_bench_flags.h"
#include "benchmarks/engine.h"

namespace bench {

// Bytes of user data (keys and values) all workloads have handed to the
// engine in writes so far.
uint64_t UserBytesWritten();

class Workloads {
 public:
  using Method = std::function<void(ThreadState*)>;
  // Runs `method` on the stage's threads (one if `single`) and prints the
  // stage's result line as `name`.
  using StageRunner = std::function<void(const std::string& name, int stage,
                                         bool single, const Method& method)>;

  // `db` is the driver's engine, read at every call (the driver reopens
  // it); `num` and `reads` are --num and --reads as resolved;
  // `stage_seed(stage)` is the current workload's seed for a stage.
  Workloads(const Flags& flags, const std::unique_ptr<Engine>* db, uint64_t num,
            uint64_t reads, std::function<uint64_t(int)> stage_seed,
            StageRunner run_stage);

  // The key of index `index`, --key_size decimal digits.
  std::string Key(uint64_t index) const;

  // Writes (or deletes) the keys index_of(0..count) in batches of
  // `per_batch`, this thread taking its share of positions. Exits the
  // process on a write error.
  void WriteKeys(ThreadState* t, uint64_t count,
                 const std::function<uint64_t(uint64_t)>& index_of,
                 size_t value_size, int per_batch, bool sync, bool del);
  // Point reads of index_of(0..count); `suffix` is appended to each key.
  void ReadKeys(ThreadState* t, uint64_t count,
                const std::function<uint64_t(ThreadState*, uint64_t)>& index_of,
                const std::string& suffix);
  // Scans --reads entries (this thread's share) forward or backward.
  void ReadSequential(ThreadState* t, bool reverse);
  // Seeks to random keys of [0, num); found when the key itself is there.
  void SeekRandom(ThreadState* t);
  // writedeletewrite (write=true) or writedeleteread, stage by stage.
  void ThreeStage(const std::string& name, bool write);
  // fsmeta: load, get and scan stages.
  void FsMeta();

 private:
  static void CheckWrite(const Status& s);
  static std::string FsKey(uint64_t parent, uint64_t child);
  Engine* db() const { return db_->get(); }

  const Flags& flags_;
  const std::unique_ptr<Engine>* const db_;
  const uint64_t num_;
  const uint64_t reads_;
  const std::function<uint64_t(int)> stage_seed_;
  const StageRunner run_stage_;
};

}  // namespace bench

#endif  // DELSM_BENCHMARKS_WORKLOADS_H_
