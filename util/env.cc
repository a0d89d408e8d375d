// Out-of-line members of the abstract interfaces in leveldb/env.h, and the
// file helpers built only on those interfaces.
#include "leveldb/env.h"

#include <cstdarg>
#include <memory>

#include "util/env_util.h"

namespace leveldb {

Env::Env() = default;
Env::~Env() = default;

Status Env::NewAppendableFile(const std::string& fname, WritableFile** result) {
  *result = nullptr;
  return Status::NotSupported("NewAppendableFile", fname);
}

// RemoveFile/DeleteFile (and RemoveDir/DeleteDir) default to each other so
// that an Env overriding either name works with callers using either name.
// An Env must override at least one of each pair.
Status Env::RemoveFile(const std::string& fname) { return DeleteFile(fname); }
Status Env::DeleteFile(const std::string& fname) { return RemoveFile(fname); }
Status Env::RemoveDir(const std::string& dirname) { return DeleteDir(dirname); }
Status Env::DeleteDir(const std::string& dirname) { return RemoveDir(dirname); }

SequentialFile::~SequentialFile() = default;
RandomAccessFile::~RandomAccessFile() = default;
WritableFile::~WritableFile() = default;
Logger::~Logger() = default;
FileLock::~FileLock() = default;
EnvWrapper::~EnvWrapper() = default;

// The header does not mark Log as exported, but programs built against
// LevelDB call it, so the drop-in library must export it.
__attribute__((visibility("default"))) void Log(Logger* info_log,
                                                const char* format, ...) {
  if (info_log == nullptr) return;
  std::va_list ap;
  va_start(ap, format);
  info_log->Logv(format, ap);
  va_end(ap);
}

namespace {

Status WriteFile(Env* env, const Slice& data, const std::string& fname,
                 bool sync) {
  WritableFile* raw = nullptr;
  Status s = env->NewWritableFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<WritableFile> file(raw);
  s = file->Append(data);
  if (s.ok() && sync) s = file->Sync();
  if (s.ok()) {
    s = file->Close();
  } else {
    file->Close();  // The earlier error is the one worth reporting.
  }
  file.reset();
  if (!s.ok()) env->RemoveFile(fname);  // Leave no partial file behind.
  return s;
}

}  // namespace

Status WriteStringToFile(Env* env, const Slice& data,
                         const std::string& fname) {
  return WriteFile(env, data, fname, /*sync=*/false);
}

Status WriteStringToFileSync(Env* env, const Slice& data,
                             const std::string& fname) {
  return WriteFile(env, data, fname, /*sync=*/true);
}

Status ReadFileToString(Env* env, const std::string& fname, std::string* data) {
  data->clear();
  SequentialFile* raw = nullptr;
  Status s = env->NewSequentialFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  constexpr size_t kChunk = 64 * 1024;
  std::unique_ptr<char[]> scratch(new char[kChunk]);
  while (true) {
    Slice fragment;
    s = file->Read(kChunk, &fragment, scratch.get());
    if (!s.ok() || fragment.empty()) break;
    data->append(fragment.data(), fragment.size());
  }
  return s;
}

}  // namespace leveldb
