// Writing manifests: the one place a manifest file is created, appended to,
// synced and made current. A manifest is a log (db/log_format.h) of
// VersionEdit records; CURRENT names the manifest in use. A new manifest is
// made current only once it is synced, so CURRENT never names a manifest
// that could be lost; a manifest CURRENT never named is garbage.
#ifndef DELSM_DB_MANIFEST_WRITER_H_
#define DELSM_DB_MANIFEST_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "leveldb/env.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

namespace log {
class Writer;
}

class VersionEdit;

// An open manifest being appended to. Not thread-safe: one writer at a
// time (VersionSet::LogAndApply serialises its callers).
class ManifestWriter {
 public:
  // Creates manifest `number` of `dbname` (truncating a stale file of that
  // name) in `env` (not owned; must outlive the writer).
  static Status Create(Env* env, const std::string& dbname, uint64_t number,
                       std::unique_ptr<ManifestWriter>* result);
  ~ManifestWriter();  // closes the file (errors ignored: see Close)
  ManifestWriter(const ManifestWriter&) = delete;
  ManifestWriter& operator=(const ManifestWriter&) = delete;

  // Appends one encoded VersionEdit (VersionEdit::EncodeTo) as a record;
  // not durable until Sync(). After an error the manifest may end in a
  // partial record: never append to it again.
  Status AddRecord(const Slice& record);
  Status Sync();
  // Closes the file, reporting the error of a failed close.
  Status Close();

  // Points CURRENT at this manifest (call only after Sync()).
  Status MakeCurrent();

  uint64_t number() const { return number_; }
  const std::string& file_name() const { return file_name_; }

 private:
  ManifestWriter(Env* env, std::string dbname, uint64_t number,
                 std::string file_name, WritableFile* file);

  Env* const env_;
  const std::string dbname_;
  const uint64_t number_;
  const std::string file_name_;
  std::unique_ptr<WritableFile> file_;  // null once closed
  std::unique_ptr<log::Writer> log_;
};

// Writes manifest `number` holding just `edit`, syncs it, closes it and
// points CURRENT at it: a whole new DB state at once (a new DB, RepairDB).
// On failure before CURRENT was touched the new manifest is removed.
Status WriteManifestAndSetCurrent(Env* env, const std::string& dbname,
                                  uint64_t number, const VersionEdit& edit);

}  // namespace leveldb

#endif  // DELSM_DB_MANIFEST_WRITER_H_
