// VersionSet's compaction picker: which inputs the next compaction merges
// (PickCompaction, SetupOtherInputs, CompactRange) and the measure of the
// overlap a compaction may leave (MaxNextLevelOverlappingBytes).
#include <algorithm>
#include <cassert>

#include "db/compaction.h"
#include "db/version.h"
#include "db/version_set.h"

namespace leveldb {

namespace {

uint64_t TotalValueBytes(const std::vector<FileMetaData*>& files) {
  uint64_t sum = 0;
  for (const FileMetaData* f : files) sum += f->value_bytes;
  return sum;
}

// Inputs at the compacted level may grow to take in neighbours only while
// the whole compaction stays below this many output directories' worth.
constexpr uint64_t kExpandedCompactionDirs = 25;

// A sorted level may split the versions of one user key between adjacent
// directories (a ends with k@5, b starts with k@3). Compacting a without b
// would move k@5 below k@3, and reads would find the older version first.
// So take in every directory that continues the user key the inputs end
// with. (DeLSM's own compactions never split a key; this guards any level
// built otherwise.)
void AddBoundaryInputs(const InternalKeyComparator& icmp,
                       const std::vector<FileMetaData*>& level_files,
                       std::vector<FileMetaData*>* inputs) {
  if (inputs->empty()) return;
  const Comparator* ucmp = icmp.user_comparator();
  InternalKey largest = (*inputs)[0]->largest;
  for (const FileMetaData* f : *inputs) {
    if (icmp.Compare(f->largest, largest) > 0) largest = f->largest;
  }
  while (true) {
    FileMetaData* next = nullptr;
    for (FileMetaData* f : level_files) {
      if (icmp.Compare(f->smallest, largest) > 0 &&
          ucmp->Compare(f->smallest.user_key(), largest.user_key()) == 0 &&
          (next == nullptr || icmp.Compare(f->smallest, next->smallest) < 0)) {
        next = f;
      }
    }
    if (next == nullptr) break;
    inputs->push_back(next);
    largest = next->largest;
  }
}

}  // namespace

void VersionSet::GetRange(const std::vector<FileMetaData*>& inputs,
                          InternalKey* smallest, InternalKey* largest) {
  assert(!inputs.empty());
  *smallest = inputs[0]->smallest;
  *largest = inputs[0]->largest;
  for (size_t i = 1; i < inputs.size(); i++) {
    const FileMetaData* f = inputs[i];
    if (icmp_->Compare(f->smallest, *smallest) < 0) *smallest = f->smallest;
    if (icmp_->Compare(f->largest, *largest) > 0) *largest = f->largest;
  }
}

void VersionSet::GetRange2(const std::vector<FileMetaData*>& inputs1,
                           const std::vector<FileMetaData*>& inputs2,
                           InternalKey* smallest, InternalKey* largest) {
  std::vector<FileMetaData*> all(inputs1);
  all.insert(all.end(), inputs2.begin(), inputs2.end());
  GetRange(all, smallest, largest);
}

Compaction* VersionSet::PickCompaction() {
  Compaction* c;
  int level;
  // Being over capacity matters more than wasted probes.
  if (current_->compaction_score_ >= 1) {
    level = current_->compaction_level_;
    assert(level >= 0 && level + 1 < config::kNumLevels);
    c = new Compaction(tuning_, level);
    const std::vector<FileMetaData*>& files = current_->files_[level];
    // Round robin: the first directory after where the last compaction of
    // this level stopped, wrapping to the start.
    for (FileMetaData* f : files) {
      if (compact_pointer_[level].empty() ||
          icmp_->Compare(f->largest.Encode(), compact_pointer_[level]) > 0) {
        c->inputs_[0].push_back(f);
        break;
      }
    }
    if (c->inputs_[0].empty() && !files.empty()) {
      c->inputs_[0].push_back(files[0]);
    }
    if (c->inputs_[0].empty()) {
      delete c;
      return nullptr;
    }
  } else if (current_->file_to_compact_ != nullptr) {
    level = current_->file_to_compact_level_;
    if (level + 1 >= config::kNumLevels) return nullptr;
    c = new Compaction(tuning_, level);
    c->inputs_[0].push_back(current_->file_to_compact_);
  } else {
    return nullptr;
  }

  c->input_version_ = current_;
  c->input_version_->Ref();

  if (level > 0) {
    AddBoundaryInputs(*icmp_, current_->files_[level], &c->inputs_[0]);
  } else {
    // Level-0 directories overlap: take every one that shares keys with
    // the chosen one, so no older version of a key stays behind above a
    // newer one moved down.
    InternalKey smallest, largest;
    GetRange(c->inputs_[0], &smallest, &largest);
    current_->GetOverlappingInputs(0, &smallest, &largest, &c->inputs_[0]);
    assert(!c->inputs_[0].empty());
  }
  SetupOtherInputs(c);
  return c;
}

void VersionSet::SetupOtherInputs(Compaction* c) {
  const int level = c->level();
  Version* v = c->input_version_;
  InternalKey smallest, largest;
  GetRange(c->inputs_[0], &smallest, &largest);
  v->GetOverlappingInputs(level + 1, &smallest, &largest, &c->inputs_[1]);
  AddBoundaryInputs(*icmp_, v->files_[level + 1], &c->inputs_[1]);

  InternalKey all_start, all_limit;
  GetRange2(c->inputs_[0], c->inputs_[1], &all_start, &all_limit);

  // Take in more directories at `level` when that leaves the level+1
  // inputs unchanged: they ride along for free in entries read below.
  if (!c->inputs_[1].empty()) {
    std::vector<FileMetaData*> expanded0;
    v->GetOverlappingInputs(level, &all_start, &all_limit, &expanded0);
    if (level > 0) AddBoundaryInputs(*icmp_, v->files_[level], &expanded0);
    const uint64_t limit = kExpandedCompactionDirs * c->MaxOutputEntries();
    if (expanded0.size() > c->inputs_[0].size() &&
        TotalEntries(expanded0) + TotalEntries(c->inputs_[1]) < limit) {
      InternalKey new_start, new_limit;
      GetRange(expanded0, &new_start, &new_limit);
      std::vector<FileMetaData*> expanded1;
      v->GetOverlappingInputs(level + 1, &new_start, &new_limit, &expanded1);
      AddBoundaryInputs(*icmp_, v->files_[level + 1], &expanded1);
      if (expanded1.size() == c->inputs_[1].size()) {
        smallest = new_start;
        largest = new_limit;
        c->inputs_[0] = expanded0;
        c->inputs_[1] = expanded1;
        GetRange2(c->inputs_[0], c->inputs_[1], &all_start, &all_limit);
      }
    }
  }

  if (level + 2 < config::kNumLevels) {
    v->GetOverlappingInputs(level + 2, &all_start, &all_limit,
                            &c->grandparents_);
  }

  // The next compaction of this level starts after this one's range. Set
  // now rather than when the compaction succeeds, so a failing compaction
  // does not block the rest of the level.
  compact_pointer_[level] = largest.Encode().ToString();
  c->edit_.SetCompactPointer(level, largest);
}

Compaction* VersionSet::CompactRange(int level, const InternalKey* begin,
                                     const InternalKey* end) {
  assert(level >= 0 && level + 1 < config::kNumLevels);
  std::vector<FileMetaData*> inputs;
  current_->GetOverlappingInputs(level, begin, end, &inputs);
  if (inputs.empty()) return nullptr;

  // At sorted levels, do about one output directory's worth at a time so a
  // huge range does not become one huge compaction. Level 0 cannot be cut:
  // its directories overlap, and a newer one must not be left above.
  if (level > 0) {
    uint64_t total = 0;
    for (size_t i = 0; i < inputs.size(); i++) {
      total += inputs[i]->entries;
      if (total >= tuning_.sst_entries) {
        inputs.resize(i + 1);
        break;
      }
    }
    AddBoundaryInputs(*icmp_, current_->files_[level], &inputs);
  }

  Compaction* c = new Compaction(tuning_, level);
  c->input_version_ = current_;
  c->input_version_->Ref();
  c->inputs_[0] = inputs;
  SetupOtherInputs(c);
  return c;
}

int64_t VersionSet::MaxNextLevelOverlappingBytes() {
  uint64_t result = 0;
  std::vector<FileMetaData*> overlaps;
  for (int level = 1; level < config::kNumLevels - 1; level++) {
    for (const FileMetaData* f : current_->files_[level]) {
      current_->GetOverlappingInputs(level + 1, &f->smallest, &f->largest,
                                     &overlaps);
      result = std::max(result, TotalValueBytes(overlaps));
    }
  }
  return static_cast<int64_t>(result);
}

}  // namespace leveldb
