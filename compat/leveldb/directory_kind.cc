// Format detection. LevelDB's manifest is read with LevelDB 1.23's own
// version-edit layout (IsLevelDbEdit, manifest.h). A manifest is LevelDB's
// only if every record parses that way and the first one names a
// comparator, as LevelDB's first record always does.
#include "compat/leveldb/directory_kind.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/manifest.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// The first of DeLSM's SST directories (in a level directory listed in
// `children`) or homes (under values/) found, as "L2/000010.sst" or
// "values/000031"; empty if there is none.
std::string FindDelsmData(Env* env, const std::string& dbname,
                          const std::vector<std::string>& children) {
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    std::vector<std::string> names;
    if (ParseFileName(child, &number, &type) && type == kLevelDir &&
        env->GetChildren(dbname + "/" + child, &names).ok()) {
      for (const std::string& name : names) {
        if (ParseSstDirName(name, &number)) return child + "/" + name;
      }
    }
  }
  std::vector<std::string> homes;
  if (env->GetChildren(dbname + "/" + kValuesDirName, &homes).ok()) {
    for (const std::string& home : homes) {
      uint64_t number;
      if (ParseHomeDirName(home, &number)) {
        return std::string(kValuesDirName) + "/" + home;
      }
    }
  }
  return std::string();
}

struct IgnoreDamage : public log::Reader::Reporter {
  bool damaged = false;
  void Corruption(size_t, const Status&) override { damaged = true; }
};

}  // namespace

Status DetectDatabaseFormat(Env* env, const std::string& dbname,
                            DatabaseFormat* format, std::string* evidence) {
  *format = DatabaseFormat::kNone;
  evidence->clear();
  std::vector<std::string> children;
  if (!env->GetChildren(dbname, &children).ok()) {
    return Status::OK();  // no directory yet: nothing to judge
  }
  std::string leveldb_table;
  bool has_level_dir = false;
  for (const std::string& child : children) {
    uint64_t number;
    // DeLSM keeps its SSTs as directories inside L<n>/, never here.
    if (leveldb_table.empty() && ParseLevelDbTableFileName(child, &number)) {
      leveldb_table = child;
    }
    FileType type;
    if (ParseFileName(child, &number, &type) && type == kLevelDir) {
      has_level_dir = true;
    }
  }

  std::string current;
  Status s = ReadFileToString(env, CurrentFileName(dbname), &current);
  if (s.IsNotFound()) s = Status::OK(), current.clear();
  if (!s.ok()) return s;
  std::vector<std::string> records;
  std::string manifest;
  if (!current.empty() && current.back() == '\n' &&
      current.find('/') == std::string::npos) {
    manifest = current.substr(0, current.size() - 1);
    SequentialFile* raw;
    if (env->NewSequentialFile(dbname + "/" + manifest, &raw).ok()) {
      std::unique_ptr<SequentialFile> file(raw);
      IgnoreDamage reporter;
      log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0);
      Slice record;
      std::string scratch;
      while (reader.ReadRecord(&record, &scratch)) {
        records.push_back(record.ToString());
      }
    }
  }

  if (!records.empty() && VersionEdit::HasFormatMarker(records[0])) {
    *format = DatabaseFormat::kDelsm;
    *evidence = manifest;
    return Status::OK();
  }
  bool all_leveldb = !records.empty();
  for (size_t i = 0; i < records.size() && all_leveldb; i++) {
    bool has_comparator;
    all_leveldb =
        IsLevelDbEdit(records[i], &has_comparator) && (i > 0 || has_comparator);
  }
  if (!leveldb_table.empty() || all_leveldb) {
    *format = DatabaseFormat::kLevelDb;
    *evidence = !leveldb_table.empty()
                    ? "LevelDB table " + leveldb_table
                    : manifest + " holds LevelDB version edits";
    // LevelDB never makes a level directory; its RepairDB leaves DeLSM's.
    const std::string delsm_data =
        has_level_dir || env->FileExists(dbname + "/" + kValuesDirName)
            ? FindDelsmData(env, dbname, children)
            : std::string();
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
  if (!current.empty()) {
    *format = DatabaseFormat::kUnknown;
    *evidence = manifest;
  }
  return Status::OK();
}

Status CheckDatabaseFormat(Env* env, const std::string& dbname,
                           const Comparator* comparator,
                           const std::string& operation) {
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  switch (format) {
    case DatabaseFormat::kLevelDb: {
      std::string why;
      if (LevelDbConvertible(env, dbname, comparator, &why)) {
        return Status::OK();
      }
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
      "with its own (" +
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
