// Format detection. LevelDB's manifest is read with LevelDB 1.23's own
// version-edit layout (IsLevelDbEdit, manifest.h). A manifest is LevelDB's
// only if every record parses that way and the first one names a
// comparator, as LevelDB's first record always does.
#include "compat/leveldb/directory_kind.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/manifest.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// Reads the log records of `file` into *records; damage is skipped. A
// read that fails otherwise (EIO) is returned.
Status ReadRecords(SequentialFile* file, std::vector<std::string>* records) {
  records->clear();
  log::ReadErrorReporter reporter;  // damage is skipped
  log::Reader reader(file, &reporter, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch) && reporter.read_error().ok()) {
    records->push_back(record.ToString());
  }
  return reporter.read_error();
}

// Reads the records of the manifest at `path` into *records (damage is
// skipped); *absent if it is not there (NotFound, and FileExists agrees).
// A read that fails otherwise (EIO) is returned: judged from the records
// before it, the manifest could pass for another kind.
Status ReadManifestRecords(Env* env, const std::string& path,
                           std::vector<std::string>* records, bool* absent) {
  records->clear();
  *absent = false;
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  if (s.IsNotFound() && !env->FileExists(path)) {
    *absent = true;
    return Status::OK();
  }
  if (!s.ok()) return s;  // not absent: what it holds is unknown
  std::unique_ptr<SequentialFile> file(raw);
  return ReadRecords(file.get(), records);
}

// A file's bytes already in memory, read as a SequentialFile.
class BytesFile : public SequentialFile {
 public:
  explicit BytesFile(const Slice& bytes) : rest_(bytes) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    n = std::min(n, rest_.size());
    std::memcpy(scratch, rest_.data(), n);
    *result = Slice(scratch, n);
    rest_.remove_prefix(n);
    return Status::OK();
  }

  Status Skip(uint64_t n) override {
    rest_.remove_prefix(std::min<uint64_t>(n, rest_.size()));
    return Status::OK();
  }

 private:
  Slice rest_;  // what the next Read returns from
};

// Whether `records` are LevelDB's version edits: at least one, every one
// a LevelDB edit, the first naming a comparator, as LevelDB's manifests
// always begin.
bool AreLevelDbEdits(const std::vector<std::string>& records) {
  bool all = !records.empty();
  for (size_t i = 0; i < records.size() && all; i++) {
    bool has_comparator;
    all =
        IsLevelDbEdit(records[i], &has_comparator) && (i > 0 || has_comparator);
  }
  return all;
}

// Lists `dir` into *names; a directory that is not there (NotFound, and
// FileExists agrees) has none. Any other failure (EIO, EMFILE) is
// returned, whatever FileExists says (access(2) answers false on any
// error): what it holds is unknown.
Status ListIfPresent(Env* env, const std::string& dir,
                     std::vector<std::string>* names) {
  names->clear();
  Status s = env->GetChildren(dir, names);
  if (s.IsNotFound() && !env->FileExists(dir)) {
    names->clear();
    return Status::OK();
  }
  return s;
}

// The first of DeLSM's SST directories (in a level directory listed in
// `children`) or homes (under values/) found, as "L2/000010.sst" or
// "values/000031", in *found; empty if there is none. A directory that
// cannot be listed is an error, not "none".
Status FindDelsmData(Env* env, const std::string& dbname,
                     const std::vector<std::string>& children,
                     std::string* found) {
  found->clear();
  std::vector<std::string> names;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type) || type != kLevelDir) continue;
    Status s = ListIfPresent(env, dbname + "/" + child, &names);
    if (!s.ok()) return s;
    for (const std::string& name : names) {
      if (ParseSstDirName(name, &number)) {
        *found = child + "/" + name;
        return Status::OK();
      }
    }
  }
  Status s = ListIfPresent(env, dbname + "/" + kValuesDirName, &names);
  if (!s.ok()) return s;
  for (const std::string& home : names) {
    uint64_t number;
    if (ParseHomeDirName(home, &number)) {
      *found = std::string(kValuesDirName) + "/" + home;
      return Status::OK();
    }
  }
  return Status::OK();
}

// The first DeLSM manifest in lost/ (its first record that reads carries
// DeLSM's format marker) under a name `children`, the database
// directory's listing, lacks, in *found; empty if there is none.
Status FindDelsmManifestInLost(Env* env, const std::string& dbname,
                               const std::vector<std::string>& children,
                               std::string* found) {
  found->clear();
  std::vector<std::string> names;
  Status s = ListIfPresent(env, dbname + "/lost", &names);
  if (!s.ok()) return s;
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || type != kDescriptorFile ||
        std::find(children.begin(), children.end(), name) != children.end()) {
      continue;
    }
    std::vector<std::string> records;
    bool absent;
    s = ReadManifestRecords(env, dbname + "/lost/" + name, &records, &absent);
    if (!s.ok()) return s;
    if (!records.empty() && VersionEdit::HasFormatMarker(records[0])) {
      *found = name;
      return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace

Status DetectDatabaseFormat(Env* env, const std::string& dbname,
                            DatabaseFormat* format, std::string* evidence) {
  *format = DatabaseFormat::kNone;
  evidence->clear();
  std::vector<std::string> children;
  Status s = ListIfPresent(env, dbname, &children);
  if (!s.ok()) return s;  // no directory yet is no error: nothing to judge
  std::vector<std::string> leveldb_tables;
  bool has_level_dir = false;
  for (const std::string& child : children) {
    uint64_t number;
    // DeLSM keeps its SSTs as directories inside L<n>/, never here.
    if (ParseLevelDbTableFileName(child, &number)) {
      leveldb_tables.push_back(child);
    }
    FileType type;
    if (ParseFileName(child, &number, &type) && type == kLevelDir) {
      has_level_dir = true;
    }
  }
  std::sort(leveldb_tables.begin(), leveldb_tables.end());
  const std::string leveldb_table =
      leveldb_tables.empty() ? std::string() : leveldb_tables.front();

  std::string current;
  s = ReadFileToString(env, CurrentFileName(dbname), &current);
  if (s.IsNotFound() && !env->FileExists(CurrentFileName(dbname))) {
    s = Status::OK();
    current.clear();
  }
  if (!s.ok()) return s;
  std::vector<std::string> records;
  std::string manifest;
  // CURRENT names a DeLSM manifest that is in lost/, not here.
  bool current_manifest_in_lost = false;
  // CURRENT names a manifest that is here.
  bool current_manifest_here = false;
  if (!current.empty() && current.back() == '\n' &&
      current.find('/') == std::string::npos) {
    manifest = current.substr(0, current.size() - 1);
    bool absent;
    s = ReadManifestRecords(env, dbname + "/" + manifest, &records, &absent);
    if (!s.ok()) return s;
    current_manifest_here = !absent;
    if (absent) {
      std::vector<std::string> in_lost;
      s = ReadManifestRecords(env, dbname + "/lost/" + manifest, &in_lost,
                              &absent);
      if (!s.ok()) return s;
      current_manifest_in_lost =
          !in_lost.empty() && VersionEdit::HasFormatMarker(in_lost[0]);
    }
  }

  if (!records.empty() && VersionEdit::HasFormatMarker(records[0])) {
    *format = DatabaseFormat::kDelsm;
    *evidence = manifest;
    // A LevelDB table beside it: LevelDB's RepairDB, cut short, makes a
    // table of each WAL and moves the WAL to lost/ before it moves the
    // manifests there, so the table holds the only copy here of what the
    // WAL held. Read as DeLSM's database, the manifest alone would lose
    // those writes (and hand their sequence numbers out again). DeLSM
    // leaves a table beside its manifest only with a PLAN in its staging
    // directory that accounts for it (a committed conversion's names the
    // tables it removes, and stays until they have gone; a take-in's moves
    // every table to lost/ before its repair writes a manifest), whose
    // state Open and RepairDB read. A table no PLAN names came after it:
    // LevelDB's RepairDB made it, of a WAL the conversion had not
    // replayed yet.
    const bool staging = std::find(children.begin(), children.end(),
                                   kLevelDbConversionDirName) != children.end();
    std::string unplanned;
    s = FindTableNoPlanNames(env, dbname, leveldb_tables, &unplanned);
    if (!s.ok()) return s;
    if (!unplanned.empty()) {
      *format = DatabaseFormat::kRewrittenByLevelDb;
      *evidence = "LevelDB table " + unplanned + " beside DeLSM's " + manifest +
                  ", which CURRENT names" +
                  (staging ? ", and the staging directory's PLAN does not "
                             "name it"
                           : "");
      return Status::OK();
    }
    // Without a table (the WALs held nothing), cut short as it moved the
    // manifests to lost/: it writes its own first, under a temporary name
    // (LevelDbRepairManifestName), and moves them in the order of the
    // directory's listing. Killed after it moved an older manifest of
    // DeLSM's and before it moved the one CURRENT names, it left that
    // older one in lost/, where no repair reads it, and with it the record
    // of the SSTs a compaction replaced that a crash left on disk. A
    // manifest it has not moved yet is read where it is.
    bool leveldb_repairs = false;
    if (!staging) {
      s = LevelDbRepairManifestLeft(env, dbname, &leveldb_repairs);
      if (!s.ok()) return s;
    }
    if (leveldb_repairs) {
      std::string moved;
      s = FindDelsmManifestInLost(env, dbname, children, &moved);
      if (!s.ok()) return s;
      if (!moved.empty()) {
        *format = DatabaseFormat::kRewrittenByLevelDb;
        *evidence = "LevelDB's RepairDB's new manifest " +
                    LevelDbRepairManifestName() + " beside DeLSM's " +
                    manifest + ", which CURRENT names, and DeLSM's " + moved +
                    " in lost/";
      }
    }
    return Status::OK();
  }
  const bool all_leveldb = AreLevelDbEdits(records);
  if (!leveldb_table.empty() || all_leveldb) {
    *format = DatabaseFormat::kLevelDb;
    *evidence = !leveldb_table.empty()
                    ? "LevelDB table " + leveldb_table
                    : manifest + " holds LevelDB version edits";
    // LevelDB never makes a level directory; its RepairDB leaves DeLSM's.
    std::string delsm_data;
    if (has_level_dir || env->FileExists(dbname + "/" + kValuesDirName)) {
      s = FindDelsmData(env, dbname, children, &delsm_data);
      if (!s.ok()) return s;
    }
    if (!delsm_data.empty()) {
      *format = DatabaseFormat::kRewrittenByLevelDb;
      *evidence += all_leveldb && !leveldb_table.empty()
                       ? ", " + manifest + " holds LevelDB version edits"
                       : "";
      *evidence += ", and DeLSM's " + delsm_data;
    }
    return Status::OK();
  }
  if (!records.empty()) {
    if (has_level_dir) {
      *format = DatabaseFormat::kPreReleaseDelsm;
      *evidence = manifest + " has no DeLSM format marker";
      return Status::OK();
    }
  }
  // LevelDB's RepairDB, cut short after it moved DeLSM's manifests to lost/
  // and before it wrote CURRENT (no table: the WALs held nothing). DeLSM
  // never moves the manifest CURRENT names (a repair links its old ones
  // into lost/ and removes them once CURRENT names its new one). Read as a
  // damaged DeLSM database, the repair would not read those manifests,
  // nor know the SSTs they record as replaced.
  if (current_manifest_in_lost) {
    *format = DatabaseFormat::kRewrittenByLevelDb;
    *evidence = "CURRENT names DeLSM's " + manifest + ", which is in lost/";
    return Status::OK();
  }
  // LevelDB's RepairDB, then a power cut: it writes its manifest without a
  // sync, renames it to MANIFEST-000001 and has CURRENT name it, so nothing
  // of that manifest may read, with DeLSM's manifests in lost/ (no table:
  // the WALs held nothing; a table makes it kLevelDb above, and DeLSM's
  // data kRewrittenByLevelDb). Read as a damaged DeLSM database, the repair
  // would not read those manifests, nor know the SSTs they record as
  // replaced. (DeLSM's MANIFEST-000001 is a new database's, written
  // synced, named by CURRENT only before the database holds anything.)
  if (current_manifest_here && records.empty() &&
      manifest == LevelDbRepairInstalledManifestName()) {
    std::string moved;
    s = FindDelsmManifestInLost(env, dbname, children, &moved);
    if (!s.ok()) return s;
    if (!moved.empty()) {
      *format = DatabaseFormat::kRewrittenByLevelDb;
      *evidence = "CURRENT names " + manifest +
                  ", of which nothing reads (LevelDB's RepairDB writes it "
                  "without a sync), and DeLSM's " +
                  moved + " is in lost/";
      return Status::OK();
    }
  }
  if (!current.empty()) {
    *format = DatabaseFormat::kUnknown;
    *evidence = manifest;
  }
  return Status::OK();
}

std::string LevelDbRepairManifestName() {
  return TempFileName("", 1).substr(1);
}

std::string LevelDbRepairInstalledManifestName() { return DescriptorName(1); }

Status LevelDbRepairManifestLeft(Env* env, const std::string& dbname,
                                 bool* left) {
  *left = false;
  const std::string path = dbname + "/" + LevelDbRepairManifestName();
  std::string bytes;
  Status s = ReadFileToString(env, path, &bytes);
  if (s.IsNotFound() && !env->FileExists(path)) return Status::OK();
  if (!s.ok()) return s;  // not absent: what it holds is unknown
  // Empty, or zeros: what a power cut leaves of the file LevelDB's
  // RepairDB writes without a sync (DeLSM writes this name only as
  // CURRENT's contents, synced, which an Open removes once CURRENT is in
  // place).
  if (std::all_of(bytes.begin(), bytes.end(),
                  [](char c) { return c == '\0'; })) {
    *left = true;
    return Status::OK();
  }
  // The same bytes, read as a manifest.
  BytesFile file(bytes);
  std::vector<std::string> records;
  s = ReadRecords(&file, &records);
  if (!s.ok()) return s;
  *left = AreLevelDbEdits(records);
  return Status::OK();
}

Status CheckDatabaseFormat(Env* env, const std::string& dbname,
                           const Comparator* comparator,
                           const std::string& operation) {
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  std::string why;
  bool convertible = false;
  if (format == DatabaseFormat::kLevelDb) {
    s = LevelDbConvertible(env, dbname, comparator, &convertible, &why);
    if (!s.ok()) return s;
  }
  // RepairDB's taking in of LevelDB's tables, cut short: only RepairDB
  // judges whether it committed, and finishes it or removes it. That holds
  // in a LevelDB database that converts too: LevelDB's RepairDB, run after
  // the take-in's commit, makes a new manifest of the tables left in
  // place, without those the take-in moved to lost/, whose only copy here
  // is staged. A LevelDB database must not be pointed to LevelDB's
  // RepairDB once the take-in has moved some of its files to lost/.
  // In a LevelDB database that converts, a read of the PLAN that fails
  // (a staging directory that is a link to a file: ENOTDIR) is left to the
  // conversion, which refuses a link first and then reads the PLAN itself,
  // under the LOCK, refusing a take-in's alike.
  StagingState staging;
  s = ReadStagingState(env, dbname, &staging);
  if (!s.ok() && !convertible) return s;
  if (s.ok() && staging == StagingState::kTakeIn) {
    return TakeInCutShortError(dbname, operation);
  }
  switch (format) {
    case DatabaseFormat::kLevelDb: {
      if (convertible) return Status::OK();
      return Status::NotSupported(
          dbname, "is a LevelDB database (" + evidence +
                      ") that DeLSM cannot convert: " + why + ". " + operation +
                      " changed nothing");
    }
    case DatabaseFormat::kRewrittenByLevelDb:
      return RewrittenByLevelDbError(dbname, evidence, operation);
    case DatabaseFormat::kPreReleaseDelsm:
      return Status::NotSupported(
          dbname, "was written by a pre-release DeLSM (" + evidence +
                      "); RepairDB rebuilds it in the current format. " +
                      operation + " changed nothing");
    default:
      return Status::OK();
  }
}

Status RewrittenByLevelDbError(const std::string& dbname,
                               const std::string& evidence,
                               const std::string& operation) {
  return Status::Corruption(
      dbname,
      "is a DeLSM database whose manifest LevelDB's RepairDB has replaced "
      "with its own, or began to (" +
          evidence +
          "); LevelDB does not see DeLSM's SST directories. To recover "
          "every key, run RepairDB (leveldb::RepairDB) with DeLSM. " +
          operation + " changed nothing");
}

std::string LevelDbTableFileName(const std::string& dbname, uint64_t number,
                                 bool legacy) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "/%06llu.%s",
                static_cast<unsigned long long>(number),
                legacy ? "sst" : "ldb");
  return dbname + buf;
}

bool ParseLevelDbTableFileName(const std::string& name, uint64_t* number) {
  Slice in(name);
  if (!ConsumeDecimalNumber(&in, number)) return false;
  return in == Slice(".ldb") || in == Slice(".sst");
}

}  // namespace leveldb
