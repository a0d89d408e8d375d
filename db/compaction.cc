// The Compaction class: one compaction's inputs, the version they were
// chosen from, and the questions the executor asks of them. The picker
// that builds it is in compaction_picker.cc.
#include "db/compaction.h"

#include <algorithm>

#include "db/version.h"
#include "db/version_set.h"

namespace leveldb {

namespace {

// A trivial move is refused when the moved directory overlaps more than
// this many directories' worth of entries two levels down.
constexpr uint64_t kMaxGrandparentOverlapDirs = 10;

}  // namespace

uint64_t TotalEntries(const std::vector<FileMetaData*>& files) {
  uint64_t sum = 0;
  for (const FileMetaData* f : files) sum += f->entries;
  return sum;
}

Compaction::Compaction(const delsm::Tuning& tuning, int level)
    : level_(level),
      max_output_entries_(std::max<uint64_t>(tuning.sst_entries, 1)),
      max_grandparent_overlap_entries_(
          kMaxGrandparentOverlapDirs *
          std::max<uint64_t>(tuning.sst_entries, 1)),
      max_dir_entries_(tuning.max_dir_entries),
      input_version_(nullptr) {
  for (size_t& p : level_ptrs_) p = 0;
}

Compaction::~Compaction() {
  if (input_version_ != nullptr) input_version_->Unref();
}

uint64_t Compaction::InputEntries() const {
  return TotalEntries(inputs_[0]) + TotalEntries(inputs_[1]);
}

bool Compaction::SingleInputMovable() const {
  return num_input_files(0) == 1 && num_input_files(1) == 0 &&
         TotalEntries(grandparents_) <= max_grandparent_overlap_entries_;
}

bool Compaction::InputSharesDirectory() const {
  const FileMetaData* in = inputs_[0][0];
  for (const FileMetaData* f : input_version_->files_[level_]) {
    if (f != in && f->dir == in->dir) return true;
  }
  return false;
}

bool Compaction::IsTrivialMove() const {
  if (!SingleInputMovable()) return false;
  // A directory past the bound (an L0 one holds a whole memtable) is
  // compacted into new directories instead.
  if (inputs_[0][0]->dir_entries > max_dir_entries_) return false;
  // A rename moves the whole directory: only possible if no other SST of
  // this level lives in it.
  return !InputSharesDirectory();
}

bool Compaction::IsMetaFileMove() const {
  // dir_entries 0 is unrecorded (an older manifest): not known to be 1.
  return SingleInputMovable() && inputs_[0][0]->dir_entries == 1 &&
         InputSharesDirectory();
}

void Compaction::AddInputDeletions(VersionEdit* edit) {
  for (int which = 0; which < 2; which++) {
    for (const FileMetaData* f : inputs_[which]) {
      edit->RemoveFile(level_ + which, f->number);
    }
  }
}

bool Compaction::IsBaseLevelForKey(const Slice& user_key) {
  const Comparator* ucmp = input_version_->vset_->icmp_->user_comparator();
  for (int level = level_ + 2; level < config::kNumLevels; level++) {
    const std::vector<FileMetaData*>& files = input_version_->files_[level];
    // Keys arrive in ascending order, so directories passed over for one
    // key are behind every later key too: resume where the last call ended.
    size_t& pos = level_ptrs_[level];
    while (pos < files.size()) {
      const FileMetaData* f = files[pos];
      if (ucmp->Compare(user_key, f->largest.user_key()) <= 0) {
        if (ucmp->Compare(user_key, f->smallest.user_key()) >= 0) {
          return false;  // this directory's range holds the key
        }
        break;
      }
      pos++;
    }
  }
  return true;
}

void Compaction::ReleaseInputs() {
  if (input_version_ != nullptr) {
    input_version_->Unref();
    input_version_ = nullptr;
  }
}

}  // namespace leveldb
