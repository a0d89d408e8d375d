// What was synced: the one power-loss model behind both seams
// (FaultInjectionEnv for the WAL and manifest, PowerLossFileSystem for the
// SST directories). The wrappers perform each call on the real file system
// and report it here; SimulatePowerLoss() then puts the disk into a state a
// power failure at that moment could have left.
//
// The model:
//  * Entry changes -- an entry created (a new file or a hard link), an
//    entry removed, a directory created or removed, a rename -- become
//    durable once the directory holding the entry is fsynced afterwards
//    (MarkDirectorySynced), or any syncfs follows (MarkAllDurable). A
//    rename needs both parents fsynced; a rename that replaced a file keeps
//    the replaced inode so that undoing the rename restores it.
//  * File data is tracked per inode (TrackData): bytes written, bytes
//    handed to the kernel (flushed), bytes durable. A file's own sync makes
//    what it wrote durable (DataSynced); a syncfs makes what was handed to
//    the kernel durable.
//  * Power loss undoes non-durable entry changes newest first, each at the
//    path its entry has now (through the renames that follow it): a created
//    entry is removed, a removed one is linked back (an inode removed
//    without being durably gone is kept alive by a link in the shadow
//    directory), a created directory is removed with everything below it,
//    a removed one is created again, a rename is renamed back.
//  * Outcomes. kNothingUnsynced, the default, is the most pessimistic
//    crash: every non-durable change is undone and every file loses the
//    bytes beyond its durable length. kRandom (seeded, reproducible) keeps
//    each non-durable entry change independently with probability 1/2 (so a
//    later change may survive an earlier one) and leaves each file with
//    undurable data in one of: cut back to its durable length, the
//    undurable part zero-filled (size kept), cut in the middle of the
//    undurable part (half written), or complete. A test can force one
//    fate for every file and keep every entry change (PowerLossOutcome).
//
// Simplifications: everything on disk before the first recorded change
// counts as durable; file metadata (mode, times) is not modelled; link
// counts seen meanwhile include the shadow links.
//
// Thread-safe. SimulatePowerLoss() must not run concurrently with any other
// call.
#ifndef DELSM_TESTING_POWER_LOSS_STATE_H_
#define DELSM_TESTING_POWER_LOSS_STATE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "leveldb/status.h"
#include "util/posix_error.h"

namespace leveldb {

struct PowerLossOutcome {
  enum Mode { kNothingUnsynced, kRandom };
  // What becomes of a file's undurable data (kRandom).
  enum DataFate {
    kDrawn = -1,
    kLost = 0,
    kZeroFilled,
    kHalfWritten,
    kComplete
  };
  Mode mode = kNothingUnsynced;
  uint32_t seed = 0;  // kRandom: which crash (same seed, same outcome)
  // kRandom only, to force the damage a test is after: a file whose path
  // (when first written) contains the string of an entry of
  // `fate_by_path` gets that entry's fate (the first that matches), any
  // other `data_fate` (kDrawn: each its own); with `keep_entries` every
  // undurable entry change survives (so a file whose data is lost is still
  // there, empty or damaged, rather than gone).
  std::vector<std::pair<std::string, DataFate>> fate_by_path;
  DataFate data_fate = kDrawn;
  bool keep_entries = false;
};

// `path` with the prefix `from` replaced by `to`, if it lies at or below
// `from`; else `path`.
std::string RebasePath(const std::string& path, const std::string& from,
                       const std::string& to);

class PowerLossState {
 public:
  // `shadow_dir` must be on the same file system as the files modelled
  // (hard links into it must work) and used by nobody else; it is created
  // if missing.
  explicit PowerLossState(std::string shadow_dir);
  ~PowerLossState();

  PowerLossState(const PowerLossState&) = delete;
  PowerLossState& operator=(const PowerLossState&) = delete;

  // --- Power switch. While off, the wrappers fail every call that would
  // change or sync the disk with PowerOffError and do nothing.
  void CutPower();
  bool PowerIsOff() const;
  Status PowerOffError(const std::string& path) const;

  // --- Cutting the power at a given call, not at a moment: the cut lands
  // at the same point of the engine's work in every run, whatever the
  // machine's load. The wrappers call PowerCutBefore() before every call
  // that would change or sync the disk; it counts the call and returns
  // true (the call must fail with PowerOffError) if the power is off, or
  // is turned off by this very call: CutPowerAtCall(n) turns it off at the
  // nth such call from now (n >= 1; 0 disarms) and then runs the cut hook
  // (without the lock), which turns a peer's power off too.
  // ShareCallCounter(peer) makes `peer` count towards the same countdown,
  // so the calls of both seams are counted in the order they come; call it
  // before use.
  bool PowerCutBefore();
  void CutPowerAtCall(uint64_t n);
  void SetPowerCutHook(std::function<void()> hook);
  void ShareCallCounter(PowerLossState* peer);
  // Calls counted by PowerCutBefore (on the shared counter) so far.
  uint64_t DiskCalls() const;

  // --- Real syncs. By default the wrappers perform every fsync, fdatasync
  // and syncfs they report to the model. A test that only ever looks at the
  // disk after SimulatePowerLoss can turn them off: the model alone decides
  // what survives, and the real calls only cost time (a syncfs on a busy
  // shared file system waits for everybody's data). Results of the skipped
  // calls are reported as success.
  void set_real_syncs(bool v) { real_syncs_.store(v); }
  bool real_syncs() const { return real_syncs_.load(); }

  // --- Hooks to a peer model (the other seam): run, without the lock, by
  // the wrapper after a syncfs / a directory fsync it performed.
  void SetSyncfsHook(std::function<void()> hook);
  void SetDirectorySyncHook(std::function<void(const std::string&)> hook);
  void RunSyncfsHook();
  void RunDirectorySyncHook(const std::string& dir);

  // --- Durability. `upto` is a Now() taken before the sync call started:
  // only changes recorded before it are covered.
  uint64_t Now() const;
  void MarkDirectorySynced(const std::string& dir, uint64_t upto);
  void MarkAllDurable(uint64_t upto);
  void MarkDirectorySynced(const std::string& dir) {
    MarkDirectorySynced(dir, Now());
  }
  void MarkAllDurable() { MarkAllDurable(Now()); }

  // --- Entry changes, reported after they took effect.
  void RecordCreate(const std::string& path);
  void RecordMkdir(const std::string& path);
  void RecordRmdir(const std::string& path);
  // A rename; `replaced_shadow` from SaveForRemoval of the destination if
  // it existed (else empty).
  void RecordRename(const std::string& from, const std::string& to,
                    const std::string& replaced_shadow);
  // Removing an entry is three steps: SaveForRemoval links the inode into
  // the shadow directory (NotFound if `path` does not exist), the wrapper
  // removes (or replaces) the entry, then RecordRemove, or Unsave if that
  // failed.
  Status SaveForRemoval(const std::string& path, std::string* shadow);
  void RecordRemove(const std::string& path, const std::string& shadow);
  void Unsave(const std::string& shadow);

  // --- File data. TrackData links the file now at `path` into the shadow
  // directory (so its inode is reachable wherever its entries go) with
  // `durable` bytes durable of `size`; returns its id, or 0 (the model
  // error is noted) if the link failed. The Data* calls on id 0 do nothing.
  uint64_t TrackData(const std::string& path, uint64_t durable, uint64_t size);
  void DataAppended(uint64_t id, uint64_t bytes);
  void DataFlushed(uint64_t id);  // handed to the kernel (flush, close)
  void DataSynced(uint64_t id);   // the file's own fsync
  // No more writes come; the file is forgotten once its data is durable.
  void DataClosed(uint64_t id);

  // Changes power loss would undo right now: entry changes and files with
  // undurable bytes.
  size_t PendingChanges() const;

  // Keeps the first error the model met (its rollback may be incomplete);
  // SimulatePowerLoss reports it.
  void NoteModelError(const Status& s);

  // Produces the crash outcome (see the file comment), empties the shadow
  // directory and turns the power on; afterwards everything on disk counts
  // as durable. Returns the first error met (the rollback goes on past it).
  Status SimulatePowerLoss(
      const PowerLossOutcome& outcome = PowerLossOutcome());

 private:
  enum class Kind { kCreate, kRemove, kMkdir, kRmdir, kRename };
  struct Change {
    uint64_t seq;
    Kind kind;
    std::string path;    // the entry changed (kRename: the source)
    std::string target;  // kRename: the destination
    std::string shadow;  // kRemove: the inode; kRename: the replaced one
    bool from_synced = false, to_synced = false;  // kRename
    bool durable = false;
    bool undone = false;
  };
  struct Data {
    uint64_t id;
    std::string path;  // when tracking began
    std::string shadow;
    uint64_t size = 0, flushed = 0, durable = 0;
    uint64_t flushed_seq = 0;  // when `flushed` was last set
    bool closed = false;
  };

  std::string NewShadowName(const char* prefix);  // mu_ held
  void Record(Kind kind, std::string path, std::string target = "",
              std::string shadow = "");  // mu_ held
  Data* FindData(uint64_t id);           // mu_ held
  // `path` after the renames recorded after change `i` that are still in
  // effect; mu_ held.
  std::string Translate(std::string path, size_t i) const;
  // Drops durable unlinks' shadows, the log's durable prefix and files
  // whose data is durable and closed; mu_ held.
  void DropDurableLocked();

  // The countdown of CutPowerAtCall, possibly shared with a peer; the
  // pointer is set at construction or by ShareCallCounter before use.
  struct CallCounter {
    std::atomic<uint64_t> calls{0};
    std::atomic<uint64_t> remaining{0};  // 0: disarmed
  };

  const std::string shadow_dir_;
  std::atomic<bool> real_syncs_{true};
  std::shared_ptr<CallCounter> counter_;

  mutable std::mutex mu_;
  bool power_off_ = false;             // guarded by mu_
  uint64_t next_seq_ = 1;              // guarded by mu_
  uint64_t shadow_counter_ = 0;        // guarded by mu_
  uint64_t next_data_id_ = 1;          // guarded by mu_
  Status model_error_;                 // guarded by mu_
  std::vector<Change> changes_;        // guarded by mu_; oldest first
  std::vector<Data> data_;             // guarded by mu_
  std::function<void()> syncfs_hook_;  // guarded by mu_
  std::function<void()> cut_hook_;     // guarded by mu_
  std::function<void(const std::string&)> dirsync_hook_;  // guarded by mu_
};

}  // namespace leveldb

#endif  // DELSM_TESTING_POWER_LOSS_STATE_H_
