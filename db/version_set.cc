#include "db/version_set.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <vector>

#include "db/compaction.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/manifest_writer.h"
#include "db/table_cache.h"
#include "db/version_builder.h"
#include "table/merging_iterator.h"
#include "table/meta_file.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// The text of a status without its "Corruption: " style prefix.
std::string StatusMessage(const Status& s) {
  std::string text = s.ToString();
  size_t colon = text.find(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

// Collects the first problem the log reader reports in the manifest.
struct ManifestReporter : public log::Reader::Reporter {
  Status* status;
  void Corruption(size_t bytes, const Status& s) override {
    if (status->ok()) *status = s;
  }
};

}  // namespace

VersionSet::VersionSet(const std::string& dbname, const Options* options,
                       const delsm::Tuning& tuning, TableCache* table_cache,
                       const InternalKeyComparator* icmp)
    : env_(options->env),
      dbname_(dbname),
      options_(options),
      tuning_(tuning),
      table_cache_(table_cache),
      icmp_(icmp),
      next_file_number_(2),
      manifest_file_number_(0),  // set by Recover
      last_sequence_(0),
      log_number_(0),
      prev_log_number_(0),
      manifest_busy_(false),
      dummy_versions_(this),
      current_(nullptr) {
  AppendVersion(new Version(this));
}

VersionSet::~VersionSet() {
  current_->Unref();
  // Every other version must have been released by now.
  assert(dummy_versions_.next_ == &dummy_versions_);
}

void VersionSet::AppendVersion(Version* v) {
  assert(v->refs_ == 0);
  assert(v != current_);
  if (current_ != nullptr) current_->Unref();
  current_ = v;
  v->number_ = next_version_number_++;
  v->Ref();
  // Insert at the tail of the circular list (just before the dummy head).
  v->prev_ = dummy_versions_.prev_;
  v->next_ = &dummy_versions_;
  v->prev_->next_ = v;
  v->next_->prev_ = v;
}

uint64_t VersionSet::CurrentVersionNumber() const { return current_->number_; }

uint64_t VersionSet::OldestLiveVersion() const {
  // The list is in installation order and current_ is always in it.
  return dummy_versions_.next_->number_;
}

Status VersionSet::LogAndApply(VersionEdit* edit, port::Mutex* mu, bool sync) {
  mu->AssertHeld();
  // Edits are applied strictly one after another: each builds on the
  // version the previous one installed.
  if (manifest_cv_ == nullptr) manifest_cv_.reset(new port::CondVar(mu));
  while (manifest_busy_) manifest_cv_->Wait();
  // An earlier edit whose write failed may be in the manifest: nothing
  // after it is committed, not even to a new manifest (see the header).
  if (!manifest_error_.ok()) return manifest_error_;
  manifest_busy_ = true;

  if (edit->has_log_number()) {
    assert(edit->log_number() < next_file_number_);
    // An edit's log floor is computed before it waits for manifest_busy_;
    // an edit applied meanwhile (the grouped syncfs's) may have raised the
    // floor and deleted the WALs below it. The floor never goes back.
    if (edit->log_number() < log_number_) edit->SetLogNumber(log_number_);
  } else {
    edit->SetLogNumber(log_number_);
  }
  if (!edit->has_prev_log_number()) edit->SetPrevLogNumber(prev_log_number_);
  edit->SetNextFile(next_file_number_);
  edit->SetLastSequence(last_sequence_);

  Version* v = new Version(this);
  Status s;
  {
    VersionSetBuilder builder(this, current_);
    builder.Apply(edit);
    s = builder.SaveTo(v);
  }
  if (s.ok()) Finalize(v);

  // Everything the I/O below needs is captured under the mutex. The
  // manifest handles and current_ change only in the LogAndApply holding
  // manifest_busy_, i.e. this one.
  std::string record;
  edit->EncodeTo(&record);
  std::string snapshot;
  std::string new_manifest;
  if (manifest_ == nullptr) {
    EncodeSnapshot(&snapshot);
    new_manifest = DescriptorFileName(dbname_, manifest_file_number_);
  }

  bool io_attempted = false;
  bool current_attempted = false;
  if (s.ok()) {
    io_attempted = true;
    mu->Unlock();
    if (!new_manifest.empty()) {
      // A new manifest starts with the full state it builds on.
      s = ManifestWriter::Create(env_, dbname_, manifest_file_number_,
                                 &manifest_);
      if (s.ok()) s = manifest_->AddRecord(snapshot);
    }
    if (s.ok()) s = manifest_->AddRecord(record);
    if (s.ok() && (sync || !new_manifest.empty())) s = manifest_->Sync();
    if (s.ok() && !new_manifest.empty()) {
      current_attempted = true;
      s = manifest_->MakeCurrent();
    }
    mu->Lock();
  }

  if (s.ok()) {
    AppendVersion(v);
    log_number_ = edit->log_number();
    prev_log_number_ = edit->prev_log_number();
  } else {
    Log(options_->info_log, "LogAndApply failed: %s", s.ToString().c_str());
    delete v;
    if (io_attempted) {
      // The manifest may now end in this record, whole or partial: never
      // append to it, and write no other (see the header).
      manifest_.reset();
      manifest_error_ = s;
      // A manifest CURRENT never named is garbage. If switching CURRENT was
      // attempted it may have taken effect, so that file must stay.
      if (!new_manifest.empty() && !current_attempted) {
        Status removed = env_->RemoveFile(new_manifest);
        if (!removed.ok() && !removed.IsNotFound()) {
          // Harmless: a later cleanup of obsolete files retries.
          Log(options_->info_log, "removing %s failed: %s",
              new_manifest.c_str(), removed.ToString().c_str());
        }
      }
    }
  }

  manifest_busy_ = false;
  manifest_cv_->SignalAll();
  return s;
}

Status VersionSet::Recover(bool* save_manifest) {
  const std::string current_name = CurrentFileName(dbname_);
  std::string current;
  Status s = ReadFileToString(env_, current_name, &current);
  if (!s.ok()) return s;
  if (current.empty() || current.back() != '\n' ||
      current.find('/') != std::string::npos) {
    return Status::Corruption(current_name, "malformed CURRENT file");
  }
  current.pop_back();
  const std::string manifest_name = dbname_ + "/" + current;

  SequentialFile* file;
  s = env_->NewSequentialFile(manifest_name, &file);
  if (!s.ok()) {
    if (s.IsNotFound()) {
      return Status::Corruption(current_name + " names a missing manifest",
                                manifest_name);
    }
    return s;
  }

  bool have_log_number = false;
  bool have_prev_log_number = false;
  bool have_next_file = false;
  bool have_last_sequence = false;
  uint64_t log_number = 0;
  uint64_t prev_log_number = 0;
  uint64_t next_file = 0;
  uint64_t last_sequence = 0;
  const std::string our_comparator = icmp_->user_comparator()->Name();

  VersionSetBuilder builder(this, current_);
  {
    ManifestReporter reporter;
    reporter.status = &s;
    log::Reader reader(file, &reporter, /*checksum=*/true,
                       /*initial_offset=*/0);
    Slice record;
    std::string scratch;
    while (reader.ReadRecord(&record, &scratch) && s.ok()) {
      VersionEdit edit;
      s = edit.DecodeFrom(record);
      if (s.ok() && edit.has_comparator() &&
          edit.comparator() != our_comparator) {
        // Worded as LevelDB words it; clients match on this text.
        s = Status::InvalidArgument(
            edit.comparator() + " does not match existing comparator ",
            our_comparator);
        break;
      }
      if (!s.ok()) break;
      builder.Apply(&edit);
      if (edit.has_log_number()) {
        log_number = edit.log_number();
        have_log_number = true;
      }
      if (edit.has_prev_log_number()) {
        prev_log_number = edit.prev_log_number();
        have_prev_log_number = true;
      }
      if (edit.has_next_file_number()) {
        next_file = edit.next_file_number();
        have_next_file = true;
      }
      if (edit.has_last_sequence()) {
        last_sequence = edit.last_sequence();
        have_last_sequence = true;
      }
    }
  }
  delete file;

  if (s.ok()) {
    if (!have_next_file) {
      s = Status::Corruption("no next-file-number entry in descriptor");
    } else if (!have_log_number) {
      s = Status::Corruption("no log-number entry in descriptor");
    } else if (!have_last_sequence) {
      s = Status::Corruption("no last-sequence entry in descriptor");
    }
  }
  if (s.ok()) {
    if (!have_prev_log_number) prev_log_number = 0;
    MarkFileNumberUsed(prev_log_number);
    MarkFileNumberUsed(log_number);
    Version* v = new Version(this);
    s = builder.SaveTo(v);
    if (s.ok()) {
      Finalize(v);
      AppendVersion(v);
      manifest_file_number_ = next_file;
      next_file_number_ = std::max(next_file_number_, next_file + 1);
      last_sequence_ = last_sequence;
      log_number_ = log_number;
      prev_log_number_ = prev_log_number;
      // Manifests are never reused: the first edit after opening writes a
      // compact new one with a snapshot.
      *save_manifest = true;
    } else {
      delete v;
    }
  }
  if (s.IsCorruption()) {
    s = Status::Corruption(manifest_name, StatusMessage(s));
  }
  return s;
}

void VersionSet::EncodeSnapshot(std::string* record) {
  VersionEdit edit;
  edit.SetComparatorName(icmp_->user_comparator()->Name());
  for (int level = 0; level < config::kNumLevels; level++) {
    if (!compact_pointer_[level].empty()) {
      InternalKey key;
      key.DecodeFrom(compact_pointer_[level]);
      edit.SetCompactPointer(level, key);
    }
  }
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : current_->files_[level]) {
      edit.AddFile(level, *f);
    }
  }
  edit.EncodeTo(record);
}

uint64_t VersionSet::MaxEntriesForLevel(int level) const {
  assert(level >= 1);
  uint64_t capacity = std::max<uint64_t>(tuning_.l1_entries, 1);
  for (int l = 1; l < level; l++) capacity *= 10;
  return capacity;
}

uint64_t VersionSet::MaxMetaBytesForLevel(int level) const {
  assert(level >= 1);
  uint64_t capacity = std::max<uint64_t>(tuning_.l1_meta_bytes, 1);
  for (int l = 1; l < level; l++) capacity *= 10;
  return capacity;
}

void VersionSet::Finalize(Version* v) {
  int best_level = -1;
  double best_score = -1;
  // The last level has nowhere to go, so it is never scored.
  for (int level = 0; level < config::kNumLevels - 1; level++) {
    double score;
    if (level == 0) {
      const double entry_limit = static_cast<double>(
          std::max<uint64_t>(tuning_.l0_compaction_entries, 1));
      const double dir_limit = std::max(tuning_.l0_compaction_dirs, 1);
      score = std::max(v->LevelEntries(0) / entry_limit,
                       v->files_[0].size() / dir_limit);
    } else {
      // Entries count what a compaction of values in KV files links and
      // rewrites (each such entry a share: its value's moves, not its
      // rewrites, are its cost); meta bytes count what it rewrites of
      // inline values and tombstones, as LevelDB's file sizes do.
      score = std::max(
          v->LevelCapacityEntries(level, tuning_.kv_file_entries_per_entry) /
              static_cast<double>(MaxEntriesForLevel(level)),
          static_cast<double>(v->LevelMetaBytes(level)) /
              static_cast<double>(MaxMetaBytesForLevel(level)));
    }
    if (score > best_score) {
      best_level = level;
      best_score = score;
    }
  }
  v->compaction_level_ = best_level;
  v->compaction_score_ = best_score;
}

int VersionSet::NumLevelFiles(int level) const {
  assert(level >= 0 && level < config::kNumLevels);
  return current_->NumFiles(level);
}

uint64_t VersionSet::NumLevelEntries(int level) const {
  assert(level >= 0 && level < config::kNumLevels);
  return current_->LevelEntries(level);
}

uint64_t VersionSet::NumLevelMetaBytes(int level) const {
  assert(level >= 0 && level < config::kNumLevels);
  return current_->LevelMetaBytes(level);
}

int64_t VersionSet::NumLevelBytes(int level) const {
  assert(level >= 0 && level < config::kNumLevels);
  return static_cast<int64_t>(current_->LevelValueBytes(level));
}

const char* VersionSet::LevelSummary(LevelSummaryStorage* scratch) const {
  std::string s = "files[";
  for (int level = 0; level < config::kNumLevels; level++) {
    s.push_back(' ');
    AppendNumberTo(&s, current_->files_[level].size());
  }
  s.append(" ] entries[");
  for (int level = 0; level < config::kNumLevels; level++) {
    s.push_back(' ');
    AppendNumberTo(&s, current_->LevelEntries(level));
  }
  s.append(" ]");
  std::snprintf(scratch->buffer, sizeof(scratch->buffer), "%s", s.c_str());
  return scratch->buffer;
}

void VersionSet::AddLiveFiles(LiveNumbers* live) {
  for (Version* v = dummy_versions_.next_; v != &dummy_versions_;
       v = v->next_) {
    for (int level = 0; level < config::kNumLevels; level++) {
      for (const FileMetaData* f : v->files_[level]) {
        live->Add(f->number);
        live->Add(f->dir);
      }
    }
  }
}

void VersionSet::AddLiveSsts(LiveNumbers* live) {
  for (Version* v = dummy_versions_.next_; v != &dummy_versions_;
       v = v->next_) {
    for (int level = 0; level < config::kNumLevels; level++) {
      for (const FileMetaData* f : v->files_[level]) live->Add(f->number);
    }
  }
}

void VersionSet::LiveSstsInDir(uint64_t dir, const Slice& smallest_user_key,
                               const Slice& largest_user_key,
                               std::vector<FileMetaData>* ssts) {
  const Comparator* ucmp = icmp_->user_comparator();
  std::set<uint64_t> seen;
  for (Version* v = dummy_versions_.next_; v != &dummy_versions_;
       v = v->next_) {
    for (int level = 0; level < config::kNumLevels; level++) {
      for (const FileMetaData* f : v->files_[level]) {
        if (f->dir != dir || seen.count(f->number) > 0) continue;
        if (ucmp->Compare(f->largest.user_key(), smallest_user_key) < 0 ||
            ucmp->Compare(f->smallest.user_key(), largest_user_key) > 0) {
          continue;
        }
        seen.insert(f->number);
        ssts->push_back(*f);
      }
    }
  }
}

namespace {

// Bytes SST `f` occupies on disk: recorded when it was built; for an SST
// from a manifest that predates the record, estimated from its entries and
// value bytes as if its values were of equal size.
uint64_t SstDiskBytes(const FileMetaData& f) {
  if (f.disk_bytes > 0 || f.entries == 0) return f.disk_bytes;
  return f.entries * AllocatedBytes(f.value_bytes / f.entries);
}

}  // namespace

uint64_t VersionSet::ApproximateOffsetOf(Version* v, const InternalKey& key) {
  uint64_t result = 0;
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : v->files_[level]) {
      if (icmp_->Compare(f->largest, key) <= 0) {
        result += SstDiskBytes(*f);  // wholly before the key
      } else if (icmp_->Compare(f->smallest, key) > 0) {
        // Wholly after the key; at sorted levels so is everything after it.
        if (level > 0) break;
      } else {
        Cache::Handle* handle = nullptr;
        if (table_cache_->Find(level, f->number, f->dir, &handle).ok()) {
          result +=
              table_cache_->Value(handle)->ApproximateBytesBefore(key.Encode());
          table_cache_->Release(handle);
        }
      }
    }
  }
  return result;
}

Iterator* VersionSet::MakeInputIterator(Compaction* c) {
  ReadOptions options;
  options.verify_checksums = options_->paranoid_checks;
  options.fill_cache = false;

  std::vector<Iterator*> children;
  for (int which = 0; which < 2; which++) {
    const int level = c->level() + which;
    const std::vector<FileMetaData*>& files = c->inputs(which);
    if (files.empty()) continue;
    // Every input directory gets its own iterator; the merge interleaves
    // them. (At a sorted level they would never interleave, but opening
    // them all at once costs only table-cache slots.)
    for (const FileMetaData* f : files) {
      children.push_back(
          table_cache_->NewIterator(options, level, f->number, f->dir));
    }
  }
  return NewMergingIterator(icmp_, children.data(),
                            static_cast<int>(children.size()));
}

}  // namespace leveldb
