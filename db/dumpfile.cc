// leveldb::DumpFile (leveldb/dumpfile.h) for DeLSM's files: writes a
// human-readable rendering of one database file to `dst`.
//
//   nnnnnn.log        each WAL record: "--- offset N; sequence S" and then one
//                     line per update of the batch ("  put 'k' 'v'",
//                     "  del 'k'")
//   MANIFEST-nnnnnn   each record: "--- offset N; " and the VersionEdit's
//                     DebugString()
//   [Ln/]nnnnnn.sst   an SST directory (or one of its meta files, META or
//                     META-nnnnnn): per meta file, its header, then one line
//                     per entry with its value
//
// Damaged log records and damaged or missing values are reported inline
// and dumping continues; a read that fails (EIO, ...) is not damage and
// fails the dump with its error. Anything else is InvalidArgument. Keys and
// values are escaped, so the output is plain text whatever the bytes.
#include "leveldb/dumpfile.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "table/sst_dir_options.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// The last component of `path`, ignoring trailing slashes.
std::string BaseName(const std::string& path) {
  size_t end = path.find_last_not_of('/');
  if (end == std::string::npos) return "";
  size_t slash = path.rfind('/', end);
  size_t begin = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(begin, end + 1 - begin);
}

// `path` without its last component (and without trailing slashes).
std::string DirName(const std::string& path) {
  size_t end = path.find_last_not_of('/');
  if (end == std::string::npos) return "/";
  size_t slash = path.rfind('/', end);
  if (slash == std::string::npos) return ".";
  size_t keep = path.find_last_not_of('/', slash);
  return keep == std::string::npos ? "/" : path.substr(0, keep + 1);
}

std::string Quoted(const Slice& s) { return "'" + EscapeString(s) + "'"; }

// Writes damage found by the log reader into the dump instead of failing;
// a failed read is kept in read_error(), not written as damage.
class DumpReporter : public log::ReadErrorReporter {
 public:
  explicit DumpReporter(WritableFile* dst) : dst_(dst) {}

 protected:
  void Damaged(size_t bytes, const Status& status) override {
    std::string line = "corruption: " + NumberToString(bytes) +
                       " bytes skipped: " + status.ToString() + "\n";
    dst_->Append(line);
  }

 private:
  WritableFile* const dst_;
};

// Calls `print` on each record of the log file `fname` with its offset.
// Stops at the first failed Append to dst and returns its status. A read
// of the file that fails fails the dump with its error (the records past
// it are unknown), after the records read before it are written.
template <typename PrintRecord>
Status DumpLogRecords(Env* env, const std::string& fname, WritableFile* dst,
                      PrintRecord print) {
  SequentialFile* raw = nullptr;
  Status s = env->NewSequentialFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  DumpReporter reporter(dst);
  log::Reader reader(file.get(), &reporter, /*checksum=*/true,
                     /*initial_offset=*/0);
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    std::string out =
        "--- offset " + NumberToString(reader.LastRecordOffset()) + "; ";
    print(record, &out);
    s = dst->Append(out);
    if (!s.ok()) return s;
  }
  return reporter.read_error();
}

// Renders each update of a write batch as one indented line.
class BatchPrinter : public WriteBatch::Handler {
 public:
  explicit BatchPrinter(std::string* out) : out_(out) {}
  void Put(const Slice& key, const Slice& value) override {
    *out_ += "  put " + Quoted(key) + " " + Quoted(value) + "\n";
  }
  void Delete(const Slice& key) override {
    *out_ += "  del " + Quoted(key) + "\n";
  }

 private:
  std::string* const out_;
};

Status DumpWal(Env* env, const std::string& fname, WritableFile* dst) {
  return DumpLogRecords(
      env, fname, dst, [](const Slice& record, std::string* out) {
        if (record.size() < WriteBatchInternal::kHeader) {
          *out += "record of " + NumberToString(record.size()) +
                  " bytes is too short for a write batch\n";
          return;
        }
        WriteBatch batch;
        WriteBatchInternal::SetContents(&batch, record);
        *out += "sequence " +
                NumberToString(WriteBatchInternal::Sequence(&batch)) + "\n";
        BatchPrinter printer(out);
        Status s = batch.Iterate(&printer);
        if (!s.ok()) *out += "  error: " + s.ToString() + "\n";
      });
}

Status DumpManifest(Env* env, const std::string& fname, WritableFile* dst) {
  return DumpLogRecords(env, fname, dst,
                        [](const Slice& record, std::string* out) {
                          VersionEdit edit;
                          Status s = edit.DecodeFrom(record);
                          if (s.ok()) {
                            *out += edit.DebugString();
                          } else {
                            *out += "error: " + s.ToString();
                          }
                          if (out->back() != '\n') *out += "\n";
                        });
}

const char* StorageName(ValueStorage storage) {
  switch (storage) {
    case ValueStorage::kNone:
      return "none";
    case ValueStorage::kFile:
      return "file";
    case ValueStorage::kFileSnappy:
      return "file+snappy";
    case ValueStorage::kInline:
      return "inline";
    case ValueStorage::kInlineSnappy:
      return "inline+snappy";
    case ValueStorage::kHomeFile:
      return "home";
    case ValueStorage::kHomeFileSnappy:
      return "home+snappy";
  }
  return "unknown";
}

// Dumps the SST of meta file `meta_name` in the SST directory `dir`.
Status DumpSst(FileSystem* fs, const std::string& dir,
               const std::string& meta_name, WritableFile* dst) {
  const std::string meta_path = dir + "/" + meta_name;
  std::unique_ptr<Directory> sst_dir;
  Status s = fs->OpenDirectory(dir, &sst_dir);
  std::string data;
  if (s.ok()) s = sst_dir->ReadFile(meta_name, &data);
  if (!s.ok()) return s;
  MetaFileContents contents;
  s = DecodeMetaFile(data, meta_path, &contents);
  if (!s.ok()) return s;

  // Values are read through the SST-directory reader, which needs the
  // comparator the directory was written with; only the built-in one is
  // known here. With another, entries are listed without their values.
  InternalKeyComparator icmp(BytewiseComparator());
  std::unique_ptr<SstDir> sst;
  // Values that stay put are in <db>/values/<home>/, and `dir` is
  // <db>/L<n>/<number>.sst.
  std::string db = dir;
  for (int up = 0; up < 2 && db.rfind('/') != std::string::npos; up++) {
    db.resize(db.rfind('/'));
  }
  HomeDirs homes(fs, db + "/" + kValuesDirName);
  if (contents.comparator_name == BytewiseComparator()->Name()) {
    SstDirOptions options;
    options.comparator = &icmp;
    options.fs = fs;
    options.homes = &homes;
    s = SstDir::OpenWhole(options, dir, meta_name, &sst);
    if (s.IsIOError()) return s;  // a failed read, not damage
    if (!s.ok()) sst.reset();
  }

  std::string out = "meta file: " + meta_name + "\n";
  out += "comparator: " + contents.comparator_name + "\n";
  out += "entries: " + NumberToString(contents.entries.size()) + "\n";
  ParsedInternalKey parsed;
  for (const std::string* bound : {&contents.smallest, &contents.largest}) {
    out += bound == &contents.smallest ? "smallest: " : "largest: ";
    if (ParseInternalKey(*bound, &parsed)) {
      out += parsed.DebugString() + "\n";
    } else {
      out += "(none) " + Quoted(*bound) + "\n";
    }
  }
  s = dst->Append(out);
  if (!s.ok()) return s;

  ReadOptions read_options;
  read_options.verify_checksums = true;
  for (size_t i = 0; i < contents.entries.size(); i++) {
    const MetaEntry& entry = contents.entries[i];
    out.clear();
    if (ParseInternalKey(entry.internal_key, &parsed)) {
      out += parsed.DebugString();
    } else {
      out += "bad internal key " + Quoted(entry.internal_key);
    }
    out += " [" + std::string(StorageName(entry.storage)) + ", " +
           NumberToString(entry.value_size) + " bytes]";
    if (entry.storage != ValueStorage::kNone) {
      std::string value;
      if (sst == nullptr) {
        out += " (value not read)";
      } else if (Status r = sst->ReadValue(read_options, i, &value); r.ok()) {
        out += " => " + Quoted(value);
      } else if (r.IsIOError()) {
        // A read that failed (EIO, ...) is not damage: the value may be
        // whole. The dump fails, after the entries before it.
        return r;
      } else {
        out += " error: " + r.ToString();  // damaged or missing
      }
    }
    out += "\n";
    s = dst->Append(out);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Dumps every SST (meta file) of the SST directory `dir`, in name order.
Status DumpSstDir(FileSystem* fs, const std::string& dir, WritableFile* dst) {
  std::vector<std::string> children;
  Status s = fs->ListDirectory(dir, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  bool any = false;
  for (const std::string& child : children) {
    uint64_t sst_number;
    if (!ParseMetaFileName(child, 0, &sst_number)) continue;
    any = true;
    s = DumpSst(fs, dir, child, dst);
    if (!s.ok()) return s;
  }
  if (!any) return Status::NotFound(dir, "no meta file in SST directory");
  return Status::OK();
}

}  // namespace

Status DumpFile(Env* env, const std::string& fname, WritableFile* dst) {
  return DumpFileWithFileSystem(env, FileSystemForEnv(env), fname, dst);
}

Status DumpFileWithFileSystem(Env* env, FileSystem* fs,
                              const std::string& fname, WritableFile* dst) {
  const std::string base = BaseName(fname);
  uint64_t number;
  FileType type;
  if (ParseFileName(base, &number, &type)) {
    if (type == kLogFile) return DumpWal(env, fname, dst);
    if (type == kDescriptorFile) return DumpManifest(env, fname, dst);
  }
  if (ParseSstDirName(base, &number)) {
    return DumpSstDir(fs, fname.substr(0, fname.find_last_not_of('/') + 1),
                      dst);
  }
  uint64_t sst_number;
  if (ParseMetaFileName(base, 0, &sst_number) &&
      ParseSstDirName(BaseName(DirName(fname)), &number)) {
    return DumpSst(fs, DirName(fname), base, dst);
  }
  return Status::InvalidArgument(fname, "not a WAL, manifest or SST directory");
}

}  // namespace leveldb
