#include "tools/db_view.h"

#include <algorithm>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/db_iter.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "leveldb/write_batch.h"
#include "table/merging_iterator.h"
#include "table/sst_dir_options.h"

namespace leveldb {

namespace {

// Counts damaged WAL records; the view skips them, as Open does when
// paranoid_checks is off. A failed read is kept in read_error().
class CountingReporter : public log::ReadErrorReporter {
 public:
  explicit CountingReporter(uint64_t* count) : count_(count) {}

 protected:
  void Damaged(size_t bytes, const Status& status) override { ++*count_; }

 private:
  uint64_t* count_;
};

}  // namespace

DbView::DbView(const std::string& dbname)
    : dbname_(dbname), icmp_(BytewiseComparator()) {}

DbView::~DbView() {
  versions_.reset();
  table_cache_.reset();
  if (mem_ != nullptr) mem_->Unref();
  if (lock_ != nullptr) options_.env->UnlockFile(lock_);
}

Status DbView::Open(const std::string& dbname, std::unique_ptr<DbView>* out,
                    Env* env) {
  std::unique_ptr<DbView> view(new DbView(dbname));
  view->options_.env = env;
  view->options_.comparator = BytewiseComparator();
  view->options_.info_log = nullptr;  // a LOG would be a file written
  if (!env->FileExists(CurrentFileName(dbname))) {
    return Status::NotFound(dbname, "no DeLSM database here (no CURRENT)");
  }
  // The view only reads: a LevelDB database, or a conversion that a crash
  // interrupted, is DB::Open's to convert or finish, not the tool's.
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  if (format == DatabaseFormat::kLevelDb) {
    return Status::NotSupported(
        dbname, "is a LevelDB database (" + evidence +
                    "); open it once with DeLSM, which converts it, before "
                    "using the delsm tool on it");
  }
  if (env->FileExists(dbname + "/" + kLevelDbConversionDirName)) {
    return Status::NotSupported(
        dbname,
        "holds an unfinished LevelDB conversion or repair (" +
            std::string(kLevelDbConversionDirName) +
            "/): open it once with DeLSM, which finishes a conversion, or "
            "run RepairDB if Open refuses it (a repair's take-in of LevelDB's "
            "tables), before using the delsm tool on it");
  }
  s = CheckDatabaseFormat(env, dbname, BytewiseComparator(), "delsm tool");
  if (!s.ok()) return s;
  s = env->LockFile(LockFileName(dbname), &view->lock_);
  if (!s.ok()) {
    return Status::IOError(dbname,
                           "cannot lock the database (is a process using "
                           "it?): " +
                               s.ToString());
  }

  view->filter_.reset(NewDefaultFilterPolicy(view->options_));
  SstDirOptions sst;
  sst.comparator = &view->icmp_;
  sst.filter_policy = view->filter_.get();
  sst.fs = FileSystem::Default();
  view->homes_.reset(
      new HomeDirs(sst.fs, dbname + "/" + std::string(kValuesDirName)));
  sst.homes = view->homes_.get();
  sst.read_ahead_pool = nullptr;  // plain reads: the tool is not timed
  delsm::Tuning tuning;
  view->table_cache_.reset(
      new TableCache(dbname, sst, 100, tuning.table_cache_bytes));
  view->versions_.reset(new VersionSet(dbname, &view->options_, tuning,
                                       view->table_cache_.get(), &view->icmp_));
  bool save_manifest = false;
  s = view->versions_->Recover(&save_manifest);
  if (!s.ok()) return s;
  view->last_sequence_ = view->versions_->LastSequence();

  std::string current;
  s = ReadFileToString(env, CurrentFileName(dbname), &current);
  if (!s.ok()) return s;
  uint64_t number = 0;
  FileType type;
  if (!current.empty() && current.back() == '\n') current.pop_back();
  if (ParseFileName(current, &number, &type) && type == kDescriptorFile) {
    view->manifest_number_ = number;
  }

  // The WALs recovery would replay: numbered at or past the manifest's log
  // number, or its previous log number.
  std::vector<std::string> names;
  s = env->GetChildren(dbname, &names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    if (ParseFileName(name, &number, &type) && type == kLogFile &&
        (number >= view->versions_->LogNumber() ||
         number == view->versions_->PrevLogNumber())) {
      view->wal_numbers_.push_back(number);
    }
  }
  std::sort(view->wal_numbers_.begin(), view->wal_numbers_.end());
  for (uint64_t wal : view->wal_numbers_) {
    s = view->ReplayWal(wal);
    if (!s.ok()) return s;
  }
  *out = std::move(view);
  return Status::OK();
}

Status DbView::ReplayWal(uint64_t number) {
  const std::string fname = LogFileName(dbname_, number);
  SequentialFile* raw = nullptr;
  Status s = options_.env->NewSequentialFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  CountingReporter reporter(&wal_records_skipped_);
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0);
  std::string scratch;
  Slice record;
  WriteBatch batch;
  while (reader.ReadRecord(&record, &scratch)) {
    if (record.size() < 12) {
      ++wal_records_skipped_;
      continue;
    }
    WriteBatchInternal::SetContents(&batch, record);
    if (mem_ == nullptr) {
      mem_ = new MemTable(icmp_);
      mem_->Ref();
    }
    s = WriteBatchInternal::InsertInto(&batch, mem_);
    if (!s.ok()) {
      ++wal_records_skipped_;
      continue;
    }
    const uint64_t last = WriteBatchInternal::Sequence(&batch) +
                          WriteBatchInternal::Count(&batch) - 1;
    last_sequence_ = std::max(last_sequence_, last);
  }
  // The records past a failed read are unknown: fail rather than show the
  // database without them.
  return reporter.read_error();
}

Version* DbView::current() const { return versions_->current(); }

Iterator* DbView::NewIterator(bool verify_checksums) {
  ReadOptions ro;
  ro.verify_checksums = verify_checksums;
  ro.fill_cache = false;
  std::vector<Iterator*> children;
  if (mem_ != nullptr) children.push_back(mem_->NewIterator());
  versions_->current()->AddIterators(ro, &children);
  Iterator* internal = NewMergingIterator(&icmp_, children.data(),
                                          static_cast<int>(children.size()));
  return NewDBIterator(BytewiseComparator(), internal, last_sequence_);
}

Status ReadMetaFile(const std::string& path, MetaFileContents* contents) {
  std::string data;
  Status s = ReadFileToString(Env::Default(), path, &data);
  if (!s.ok()) return s;
  return DecodeMetaFile(data, path, contents);
}

}  // namespace leveldb
