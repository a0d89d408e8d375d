// RepairDB's merge (db/repairer.h): the new L0 directories it builds (from
// a rebuilt directory's entries, a WAL, values in homes), the dentry
// compaction of every input and the commit of its result in a new manifest.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/dentry_compaction.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/manifest_writer.h"
#include "db/memtable.h"
#include "db/repairer.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "delsm/delsm.h"
#include "leveldb/env.h"
#include "leveldb/write_batch.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"

namespace leveldb {

void Repairer::AddInput(std::unique_ptr<SstDir> dir, uint64_t order) {
  for (const MetaIndexEntry& e : dir->index().entries) {
    ParsedInternalKey k;
    if (ParseInternalKey(e.internal_key, &k)) {
      max_sequence_ = std::max(max_sequence_, k.sequence);
    }
  }
  inputs_.push_back({order, std::move(dir)});
}

Status Repairer::BuildSstOf(std::vector<MetaEntry>* entries, Directory* src,
                            std::unique_ptr<SstDir>* result) {
  std::sort(entries->begin(), entries->end(),
            [this](const MetaEntry& a, const MetaEntry& b) {
              return icmp_.Compare(a.internal_key, b.internal_key) < 0;
            });
  const uint64_t number = NewNumber();
  const std::string path = SstDirName(dbname_, 0, number);
  SstDirBuilder builder(sst_options_, path);
  Status s = builder.Begin();
  for (size_t i = 0; s.ok() && i < entries->size(); i++) {
    if (i > 0 && (*entries)[i].internal_key == (*entries)[i - 1].internal_key) {
      continue;
    }
    const MetaEntry& e = (*entries)[i];
    s = builder.AddLinked(e.internal_key, e, src, e.inline_value);
  }
  if (s.ok()) s = builder.Finish();
  if (!s.ok()) {
    builder.Abandon();
    return s;
  }
  new_dirs_.push_back({number, path});
  return SstDir::OpenWhole(sst_options_, path, kMetaFileName, result);
}

Status Repairer::ConvertLogs() {
  for (uint64_t log_number : logs_) {
    Status s = ConvertLog(log_number);
    Log(options_.info_log, "RepairDB: log #%llu: %s\n",
        static_cast<unsigned long long>(log_number), s.ToString().c_str());
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status Repairer::ConvertLog(uint64_t log_number) {
  // Damage is dropped and logged. A read that failed is not damage:
  // nothing is known of the records past it, so it fails RepairDB
  // (read_error) before anything is committed or moved.
  class Reporter : public log::ReadErrorReporter {
   public:
    Logger* info_log;

   protected:
    void Damaged(size_t bytes, const Status& s) override {
      Log(info_log, "RepairDB: WAL dropping %zu bytes: %s\n", bytes,
          s.ToString().c_str());
    }
    void ReadFailed(const Status& s) override {
      Log(info_log, "RepairDB: WAL read failed: %s\n", s.ToString().c_str());
    }
  };
  SequentialFile* raw;
  Status s = env_->NewSequentialFile(LogFileName(dbname_, log_number), &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  Reporter reporter;
  reporter.info_log = options_.info_log;
  // Records are checked: a record whose checksum fails is dropped (and
  // logged), never replayed, or a damaged byte of a value would be served
  // as the value (LevelDB's repair reads unchecked to salvage more).
  log::Reader reader(file.get(), &reporter, true, 0);
  MemTable* mem = new MemTable(icmp_);
  mem->Ref();
  std::string scratch;
  Slice record;
  WriteBatch batch;
  uint64_t entries = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    if (record.size() < WriteBatchInternal::kHeader) {
      reporter.Corruption(record.size(),
                          Status::Corruption("log record too small"));
      continue;
    }
    WriteBatchInternal::SetContents(&batch, record);
    Status b = WriteBatchInternal::InsertInto(&batch, mem);
    if (b.ok()) {
      const SequenceNumber last = WriteBatchInternal::Sequence(&batch) +
                                  WriteBatchInternal::Count(&batch) - 1;
      max_sequence_ = std::max(max_sequence_, last);
      entries += WriteBatchInternal::Count(&batch);
    } else {
      Log(options_.info_log, "RepairDB: log #%llu: ignoring a batch: %s\n",
          static_cast<unsigned long long>(log_number), b.ToString().c_str());
    }
  }
  Log(options_.info_log, "RepairDB: log #%llu: %llu entries read\n",
      static_cast<unsigned long long>(log_number),
      static_cast<unsigned long long>(entries));
  if (!reporter.read_error().ok()) {
    mem->Unref();
    return reporter.read_error();
  }
  const uint64_t number = NewNumber();
  const std::string path = SstDirName(dbname_, 0, number);
  SstDirBuilder builder(sst_options_, path);
  s = builder.Begin();
  Iterator* it = mem->NewIterator();
  for (it->SeekToFirst(); s.ok() && it->Valid(); it->Next()) {
    s = builder.Add(it->key(), it->value());
  }
  delete it;
  mem->Unref();
  if (s.ok()) s = builder.Finish();
  if (!s.ok()) {
    builder.Abandon();
    return s;
  }
  new_dirs_.push_back({number, path});
  std::unique_ptr<SstDir> dir;
  s = SstDir::OpenWhole(sst_options_, path, kMetaFileName, &dir);
  // WAL data is newer than any directory: order it first.
  if (s.ok()) AddInput(std::move(dir), UINT64_MAX - log_number);
  return s;
}

Status Repairer::MergeAndCommit() {
  // Newest first, so that an exact duplicate keeps the newest copy.
  std::sort(inputs_.begin(), inputs_.end(),
            [](const Input& a, const Input& b) { return a.order > b.order; });
  std::vector<SstDir*> dirs;
  uint64_t total = 0;
  for (const Input& in : inputs_) {
    dirs.push_back(in.dir.get());
    total += in.dir->index().entries.size();
  }
  const delsm::Tuning tuning;
  int level = 1;
  for (uint64_t cap = tuning.l1_entries;
       level < config::kNumLevels - 1 && cap < total; cap *= 10) {
    level++;
  }

  DentryCompaction::Hooks hooks;
  hooks.new_file_number = [this]() { return NewNumber(); };
  hooks.output_path = [this, level](uint64_t n) {
    return SstDirName(dbname_, level, n);
  };
  hooks.is_base_level_for_key = [](const Slice&) { return true; };
  DentryCompaction dc(sst_options_, tuning.sst_entries, max_sequence_, hooks);
  Status s = dc.Run(dirs);
  if (s.ok()) {
    s = dc.MakeDurable(delsm::Durability::kSyncfs,
                       LevelDirName(dbname_, level));
  }
  if (!s.ok()) {
    dc.Abandon();
    return s;
  }

  VersionEdit edit;
  edit.SetComparatorName(icmp_.user_comparator()->Name());
  // The old SSTs the merge was given (and those a manifest recorded as
  // replaced): the record that they are replaced, for a later RepairDB
  // (FindRetiredSsts) if this one is killed before it has put them away.
  for (const auto& old : replaced_) edit.RemoveFile(old.first, old.second);
  // So are its own intermediate directories, which it removes only after
  // this commit: one a kill leaves holds a copy of old SSTs without the
  // tombstones the merge dropped.
  for (const auto& dir : new_dirs_) edit.RemoveFile(0, dir.first);
  dc.AddOutputsTo(level, &edit);
  const uint64_t manifest_number = NewNumber();
  edit.SetLogNumber(next_number_);  // every existing WAL is converted
  edit.SetNextFile(next_number_ + 1);
  edit.SetLastSequence(max_sequence_);
  repaired_entries_ = total;
  s = WriteManifest(manifest_number, edit);
  if (s.ok()) dropped_home_values_ = dc.dead_values();
  return s;
}

Status Repairer::WriteManifest(uint64_t number, const VersionEdit& edit) {
  Status s = WriteManifestAndSetCurrent(env_, dbname_, number, edit);
  if (s.ok()) new_manifest_ = number;
  return s;
}

}  // namespace leveldb
