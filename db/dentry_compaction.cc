#include "db/dentry_compaction.h"

#include <algorithm>

#include "db/sorted_run_merge.h"
#include "db/sst_dir_removal.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "table/key_codec.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"

namespace leveldb {

DentryCompaction::DentryCompaction(const SstDirOptions& options,
                                   uint64_t sst_entries,
                                   SequenceNumber smallest_snapshot,
                                   Hooks hooks, uint64_t max_dir_entries)
    : options_(options),
      sst_entries_(std::max<uint64_t>(1, sst_entries)),
      max_dir_entries_(max_dir_entries),
      hooks_(std::move(hooks)),
      shadowed_(static_cast<const InternalKeyComparator*>(options.comparator)
                    ->user_comparator(),
                smallest_snapshot) {}

DentryCompaction::~DentryCompaction() = default;

Status DentryCompaction::Run(const std::vector<SstDir*>& inputs,
                             const std::vector<uint64_t>& input_dirs,
                             const std::vector<Target>& targets) {
  if (input_dirs.size() != inputs.size()) {
    return Status::InvalidArgument(
        "dentry compaction: one directory number "
        "per input required");
  }
  // Every entry of every input is merged: each input's whole index, every
  // group of it checked (a damaged one fails the compaction, which must
  // not drop the entries it holds).
  for (SstDir* input : inputs) {
    Status s = input->LoadIndex();
    if (!s.ok()) return s;
  }
  inputs_ = inputs;
  last_internal_key_ = Slice();
  input_dirs_ = input_dirs;
  inline_buffers_.assign(inputs.size(), InlineBuffer());
  targets_ = targets;
  next_target_ = 0;
  dir_entries_.clear();
  for (const Target& t : targets_) dir_entries_[t.dir] = t.dir_entries;
  // Inputs already in a target's directory. Of two copies of one internal
  // key such an input's is kept: the other could not be linked in under
  // the same name, and both hold the same write. (Recovery makes no such
  // copies, see DBImpl::HeldBelowLevel0, but a database whose WALs were
  // replayed by a DeLSM build without that check may hold them.)
  std::vector<bool> resident(inputs.size(), false);
  for (size_t i = 0; i < inputs.size(); i++) {
    for (const Target& t : targets_) {
      if (input_dirs_[i] == t.dir) resident[i] = true;
    }
  }
  std::vector<SortedRunMerge::Input> merge_inputs;
  for (size_t i = 0; i < inputs.size(); i++) {
    merge_inputs.push_back({&inputs[i]->index(), resident[i]});
  }
  SortedRunMerge merge(options_.comparator, std::move(merge_inputs));

  Status s;
  for (; merge.Valid() && s.ok(); merge.Next()) {
    if (hooks_.yield) {
      s = hooks_.yield();
      if (!s.ok()) break;
    }
    s = Emit(merge.input(), merge.index());
  }
  if (s.ok() && builder_ != nullptr) s = FinishOutput();
  return s;
}

bool DentryCompaction::ShouldDrop(const ParsedInternalKey& key) {
  if (shadowed_.Shadowed(key)) return true;
  // Nothing older remains for this tombstone to hide, and every snapshot
  // already sees it; later entries of this key are shadowed by it.
  return key.type == kTypeDeletion &&
         key.sequence <= shadowed_.smallest_snapshot() &&
         hooks_.is_base_level_for_key(key.user_key);
}

void DentryCompaction::NoteDropped(const MetaIndexEntry& entry) {
  if (!StoredInHome(entry.storage)) return;
  const Slice ikey(entry.internal_key);
  // Two copies of one write are in two homes (a replay gets its own), so
  // the dropped copy's file is never the kept one's.
  HomeValue v;
  v.home = entry.home;
  v.name = KvStoredFileName(ExtractUserKey(ikey), ExtractTag(ikey) >> 8,
                            StoredCompressed(entry.storage));
  dead_values_.push_back(std::move(v));
}

size_t DentryCompaction::RouteToTarget(const Slice& user_key) {
  const Comparator* ucmp =
      static_cast<const InternalKeyComparator*>(options_.comparator)
          ->user_comparator();
  // A key past a target's largest goes to the next target; keys before the
  // first target or between two go to the next one, keys after the last to
  // the last. No SST of the output level outside the compaction overlaps
  // any of those gaps, so the targets' ranges may grow into them.
  while (next_target_ + 1 < targets_.size() &&
         ucmp->Compare(user_key, targets_[next_target_].largest_user_key) > 0) {
    next_target_++;
  }
  return next_target_;
}

Status DentryCompaction::Emit(size_t input, size_t index) {
  SstDir* source = inputs_[input];
  const MetaIndexEntry& entry = source->index().entries[index];
  entries_read_++;
  if (entry.internal_key == last_internal_key_) {
    entries_dropped_++;  // exact duplicate (an L0 SST and its WAL's replay)
    // Two meta files naming one file in one home (repair can meet an SST
    // and a replaced copy of it): the kept entry still names that file.
    if (!(StoredInHome(entry.storage) && entry.home == last_kept_home_)) {
      NoteDropped(entry);
    }
    return Status::OK();
  }
  last_internal_key_ = entry.internal_key;
  last_kept_home_ = 0;

  ParsedInternalKey key;
  if (!ParseInternalKey(entry.internal_key, &key)) {
    return Status::Corruption("bad internal key in meta file of",
                              source->path());
  }
  const bool drop = ShouldDrop(key);
  const bool was_new_key = shadowed_.first_of_user_key();
  if (drop) {
    entries_dropped_++;
    NoteDropped(entry);
    return Status::OK();
  }

  const size_t target = targets_.empty() ? 0 : RouteToTarget(key.user_key);
  // Cut a full output only between user keys, so that all versions of a key
  // stay in one SST and level ranges never share a user key; cut where the
  // receiving directory changes. (Routing is by user key, so a change of
  // target is always between user keys.) Neighbouring targets in one
  // directory (the pieces of an SST the level has split before) are filled
  // as one stream, so their SSTs are packed full again rather than ever
  // smaller.
  if (builder_ != nullptr &&
      ((!targets_.empty() &&
        targets_[target].dir != targets_[builder_target_].dir) ||
       (builder_->NumEntries() >= sst_entries_ && was_new_key))) {
    Status s = FinishOutput();
    if (!s.ok()) return s;
  }
  if (builder_ == nullptr) {
    Status s = StartOutput(target);
    if (!s.ok()) return s;
  }
  // An entry already in the receiving directory (a target's own, unless
  // the output went to a new directory) needs no new link.
  const bool resident = input_dirs_[input] == outputs_.back().meta.dir;
  Slice stored;
  if (StoredInline(entry.storage)) {
    // Inline values are copied (as LevelDB copies every value); each
    // input's value section is read in order, in large pieces.
    InlineBuffer& buf = inline_buffers_[input];
    Status s = source->ReadInlineStored(index, 1, kInlineCopyChunk, &buf.bytes,
                                        &buf.offset, &stored);
    if (!s.ok()) return s;
  }
  // A source without a KV file holds no directory (SstDir::directory()):
  // AddLinked reads `source` only for an entry with a KV file in it, which
  // such a source never has (and a null source would mean a resident file).
  if (!resident && StoredInFile(entry.storage) &&
      source->directory() == nullptr) {
    return Status::Corruption("KV file in an SST that counts none",
                              source->path());
  }
  Status s =
      builder_->AddLinked(entry.internal_key, entry,
                          resident ? nullptr : source->directory(), stored);
  if (s.ok() && !resident && StoredInFile(entry.storage)) links_++;
  if (s.ok() && StoredInHome(entry.storage)) last_kept_home_ = entry.home;
  return s;
}

Status DentryCompaction::StartOutput(size_t target) {
  Output out;
  const uint64_t number = hooks_.new_file_number();
  out.meta.number = number;
  bool into_target = !targets_.empty();
  if (into_target) {
    // An output adds at most sst_entries_ entries (more only for the
    // versions of one user key), its meta file and LONGKEYS.
    const uint64_t held = dir_entries_[targets_[target].dir];
    into_target =
        held < max_dir_entries_ && max_dir_entries_ - held >= sst_entries_ + 2;
  }
  if (into_target) {
    out.meta.dir = targets_[target].dir;
    out.path = targets_[target].path;
  } else {
    out.meta.dir = number;
    out.path = hooks_.output_path(number);
  }
  builder_.reset(new SstDirBuilder(options_, out.path,
                                   MetaFileName(number, out.meta.dir),
                                   LongKeysFileName(number, out.meta.dir)));
  builder_target_ = target;
  outputs_.push_back(out);
  return into_target ? builder_->BeginInExisting() : builder_->Begin();
}

Status DentryCompaction::FinishOutput() {
  Status s = builder_->Finish();
  if (s.ok()) {
    Output& out = outputs_.back();
    if (out.meta.dir != out.meta.number) {
      out.added_names = builder_->added_names();
      dir_entries_[out.meta.dir] += out.added_names.size();
    }
    out.meta = BuiltSstMetaData(out.meta.number, out.meta.dir, *builder_);
    out.files_synced = builder_->FilesSynced();
  }
  if (!s.ok() && !builder_->Abandon()) undo_failed_ = true;
  builder_.reset();
  return s;
}

Status DentryCompaction::MakeDurable(delsm::Durability durability,
                                     const std::string& output_level_dir) {
  if (outputs_.empty()) return Status::OK();
  // The links are new directory entries; the KV files' data was made
  // durable when they were first written.
  std::vector<std::string> dirs;
  for (const Output& out : outputs_) {
    if (dirs.empty() || dirs.back() != out.path) dirs.push_back(out.path);
  }
  dirs.push_back(output_level_dir);
  const bool files_synced =
      std::all_of(outputs_.begin(), outputs_.end(),
                  [](const Output& out) { return out.files_synced; });
  if (durability == delsm::Durability::kSyncfs && files_synced) {
    durability = delsm::Durability::kFsync;
  }
  return MakeDirectoriesDurable(options_.fs, durability, dirs);
}

void DentryCompaction::AddOutputsTo(int level, VersionEdit* edit) const {
  for (const Output& out : outputs_) edit->AddFile(level, out.meta);
}

bool DentryCompaction::Abandon() {
  bool clean = !undo_failed_;
  // An unfinished builder removes what it made.
  if (builder_ != nullptr && !builder_->Abandon()) clean = false;
  builder_.reset();
  dead_values_.clear();  // nothing was committed: every value lives on
  for (const Output& out : outputs_) {
    if (out.meta.dir == out.meta.number) {
      if (!RemoveSstDirectory(options_.fs, out.path, nullptr).ok()) {
        clean = false;
      }
      continue;
    }
    // Errors leave orphans, which the next open collects.
    std::unique_ptr<Directory> dir;
    if (!options_.fs->OpenDirectory(out.path, &dir).ok()) {
      clean = false;
      continue;
    }
    for (const std::string& name : out.added_names) {
      // Gone already only where a lookup agrees (UnlinkUnlessGone): a meta
      // file left while the undo counts as clean is never swept, and
      // RepairDB merges it.
      bool unlinked;
      if (!UnlinkUnlessGone(dir.get(), name, &unlinked).ok()) clean = false;
    }
  }
  outputs_.clear();
  return clean;
}

}  // namespace leveldb
