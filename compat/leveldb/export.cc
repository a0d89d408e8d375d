#include "compat/leveldb/export.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "compat/leveldb/file_writers.h"
#include "compat/leveldb/manifest.h"
#include "leveldb/iterator.h"
#include "util/posix_error.h"

namespace leveldb {

namespace {

// The name LevelDB gives its bytewise comparator; the source is read in
// the order of DeLSM's bytewise comparator, which orders keys the same way.
constexpr char kLevelDbComparator[] = "leveldb.BytewiseComparator";
constexpr uint64_t kManifestNumber = 1;
constexpr uint64_t kFirstLogNumber = 2;

// Canonical absolute path of an existing `path`, or "" if it has none.
std::string RealPath(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return "";
  std::string result(real);
  std::free(real);
  return result;
}

// Checks OUT as the contract says and creates it if missing.
Status PrepareOutDir(const std::string& source, const std::string& out_dir,
                     bool* created) {
  *created = false;
  struct stat st;
  const bool exists = ::lstat(out_dir.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return leveldb::PosixError(out_dir, errno);
  const std::string source_real = RealPath(source);
  const std::string where =
      RealPath(exists ? out_dir : leveldb::ParentOfPath(out_dir));
  if (where.empty()) {
    return Status::InvalidArgument(
        out_dir, "its parent directory does not exist or cannot be resolved");
  }
  if (!source_real.empty() &&
      (where == source_real ||
       where.compare(0, source_real.size() + 1, source_real + "/") == 0)) {
    return Status::InvalidArgument(out_dir,
                                   "is inside the database being exported");
  }
  if (exists) {
    if (!S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(out_dir, "exists and is not a directory");
    }
    DIR* dir = ::opendir(out_dir.c_str());
    if (dir == nullptr) return leveldb::PosixError(out_dir, errno);
    size_t entries = 0;
    errno = 0;
    while (struct dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") entries++;
    }
    const int read_errno = errno;
    ::closedir(dir);
    if (read_errno != 0) return leveldb::PosixError(out_dir, read_errno);
    if (entries > 0) {
      return Status::InvalidArgument(
          out_dir, "is not empty (" + std::to_string(entries) +
                       " entries); export writes only into a new or empty "
                       "directory and touches nothing already there");
    }
    return Status::OK();
  }
  if (::mkdir(out_dir.c_str(), 0755) != 0) {
    return leveldb::PosixError(out_dir, errno, false);
  }
  *created = true;
  return Status::OK();
}

// One export in progress; Run() leaves OUT complete or as it found it.
class Exporter {
 public:
  Exporter(leveldb::Iterator* source, const std::string& source_dir,
           const std::string& out_dir, const ExportOptions& options,
           ExportSummary* summary)
      : source_(source),
        source_dir_(source_dir),
        out_(out_dir),
        options_(options),
        summary_(summary) {}

  Status Run();

 private:
  Status WriteLogs();
  Status NewLog();
  Status CloseLog();
  Status WriteBatch();
  Status WriteManifestAndCurrent();
  Status CreateFile(const std::string& path, std::unique_ptr<NewFile>* file);
  Status Finish(std::unique_ptr<NewFile>* file);
  void RemoveCreated();

  leveldb::Iterator* const source_;
  const std::string source_dir_;
  const std::string out_;
  const ExportOptions options_;
  ExportSummary* const summary_;
  std::vector<std::string> created_;  // files made here, in creation order
  std::unique_ptr<NewFile> log_;      // the WAL being written, if any
  std::unique_ptr<LevelDbLogWriter> log_writer_;
  uint64_t next_number_ = kFirstLogNumber;
  LevelDbBatch batch_;
  uint64_t next_sequence_ = 1;
};

Status Exporter::CreateFile(const std::string& path,
                            std::unique_ptr<NewFile>* file) {
  Status s = NewFile::Create(path, file);
  if (s.ok()) created_.push_back(path);
  return s;
}

Status Exporter::Finish(std::unique_ptr<NewFile>* file) {
  summary_->bytes_written += (*file)->size();
  Status s = (*file)->SyncAndClose();
  file->reset();
  return s;
}

Status Exporter::NewLog() {
  Status s = CreateFile(LevelDbLogName(out_, next_number_), &log_);
  if (!s.ok()) return s;
  next_number_++;
  summary_->log_files++;
  log_writer_.reset(new LevelDbLogWriter(log_.get()));
  return Status::OK();
}

Status Exporter::CloseLog() {
  log_writer_.reset();
  return Finish(&log_);
}

Status Exporter::WriteBatch() {
  if (batch_.count() == 0) return Status::OK();
  if (log_->size() >= options_.log_bytes) {
    Status s = CloseLog();
    if (s.ok()) s = NewLog();
    if (!s.ok()) return s;
  }
  Status s = log_writer_->AddRecord(batch_.Encode(next_sequence_));
  if (!s.ok()) return s;
  next_sequence_ += batch_.count();
  summary_->batches++;
  batch_.Clear();
  return Status::OK();
}

Status Exporter::WriteLogs() {
  // At least one log, even for an empty database: LevelDB needs none, but a
  // reader of OUT then always finds the log the manifest names.
  Status s = NewLog();
  if (!s.ok()) return s;
  // Tells options_.progress that writing entries ended, on every return.
  struct ProgressDone {
    const ExportOptions& options;
    const ExportSummary& summary;
    ~ProgressDone() {
      if (options.progress) options.progress(summary.entries, true);
    }
  } progress_done{options_, *summary_};
  if (options_.progress) options_.progress(summary_->entries, false);
  leveldb::Iterator* const it = source_;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const Slice key = it->key(), value = it->value();
    // An entry costs its two lengths (<= 5 bytes each) and its type byte.
    if (batch_.count() > 0 &&
        batch_.size() + key.size() + value.size() + 11 > options_.batch_bytes) {
      s = WriteBatch();
      if (!s.ok()) return s;
    }
    if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
      return Status::NotSupported("entry too large for a LevelDB WriteBatch");
    }
    batch_.Put(key, value);
    summary_->entries++;
    summary_->key_bytes += key.size();
    summary_->value_bytes += value.size();
    if (options_.progress) options_.progress(summary_->entries, false);
  }
  if (!it->status().ok()) return it->status();
  s = WriteBatch();
  if (s.ok()) s = CloseLog();
  return s;
}

Status Exporter::WriteManifestAndCurrent() {
  std::unique_ptr<NewFile> manifest;
  Status s = CreateFile(LevelDbManifestName(out_, kManifestNumber), &manifest);
  if (!s.ok()) return s;
  LevelDbLogWriter writer(manifest.get());
  s = writer.AddRecord(leveldb::EncodeLevelDbVersionEdit(
      kLevelDbComparator, kFirstLogNumber, next_number_, next_sequence_ - 1));
  if (s.ok()) s = Finish(&manifest);
  // Every log and the manifest are durable, and so are their names, before
  // CURRENT can name the manifest.
  if (s.ok()) s = SyncDirectory(out_);
  if (!s.ok()) return s;
  // LevelDB's own temporary name for the CURRENT it is about to install,
  // so a LevelDB that finds it left over removes it.
  const std::string temp = out_ + "/000001.dbtmp";
  std::unique_ptr<NewFile> current;
  s = CreateFile(temp, &current);
  if (s.ok()) s = current->Append("MANIFEST-000001\n");
  if (s.ok()) s = Finish(&current);
  if (!s.ok()) return s;
  const std::string current_name = out_ + "/CURRENT";
  if (::rename(temp.c_str(), current_name.c_str()) != 0) {
    return leveldb::PosixError(current_name, errno);
  }
  created_.back() = current_name;
  return SyncDirectory(out_);
}

void Exporter::RemoveCreated() {
  log_writer_.reset();
  log_.reset();
  // CURRENT (if made) first, so OUT stops being a database before the files
  // it names go.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    if (::unlink(it->c_str()) != 0 && errno != ENOENT) {
      std::fprintf(stderr, "delsm: could not remove %s: %s\n", it->c_str(),
                   leveldb::ErrnoText(errno).c_str());
    }
  }
  if (summary_->created_dir && ::rmdir(out_.c_str()) != 0) {
    std::fprintf(stderr, "delsm: could not remove %s: %s\n", out_.c_str(),
                 leveldb::ErrnoText(errno).c_str());
  }
}

Status Exporter::Run() {
  Status s = PrepareOutDir(source_dir_, out_, &summary_->created_dir);
  if (!s.ok()) return s;
  s = WriteLogs();
  if (s.ok()) s = WriteManifestAndCurrent();
  if (s.ok() && summary_->created_dir) {
    s = SyncDirectory(leveldb::ParentOfPath(out_));
  }
  if (!s.ok()) RemoveCreated();
  return s;
}

}  // namespace

Status ExportToLevelDb(leveldb::Iterator* source, const std::string& source_dir,
                       const std::string& out_dir, const ExportOptions& options,
                       ExportSummary* summary) {
  *summary = ExportSummary();
  if (options.batch_bytes == 0 || options.log_bytes == 0) {
    return Status::InvalidArgument("batch and log sizes must be positive");
  }
  Exporter exporter(source, source_dir, out_dir, options, summary);
  return exporter.Run();
}

}  // namespace leveldb
