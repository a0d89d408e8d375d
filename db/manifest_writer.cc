#include "db/manifest_writer.h"

#include "db/filename.h"
#include "db/log_writer.h"
#include "db/version_edit.h"

namespace leveldb {

ManifestWriter::ManifestWriter(Env* env, std::string dbname, uint64_t number,
                               std::string file_name, WritableFile* file)
    : env_(env),
      dbname_(std::move(dbname)),
      number_(number),
      file_name_(std::move(file_name)),
      file_(file),
      log_(new log::Writer(file)) {}

ManifestWriter::~ManifestWriter() {
  log_.reset();
  if (file_ != nullptr) file_->Close();
}

Status ManifestWriter::Create(Env* env, const std::string& dbname,
                              uint64_t number,
                              std::unique_ptr<ManifestWriter>* result) {
  result->reset();
  const std::string file_name = DescriptorFileName(dbname, number);
  WritableFile* file;
  Status s = env->NewWritableFile(file_name, &file);
  if (!s.ok()) return s;
  result->reset(new ManifestWriter(env, dbname, number, file_name, file));
  return Status::OK();
}

Status ManifestWriter::AddRecord(const Slice& record) {
  if (file_ == nullptr) {
    return Status::InvalidArgument(file_name_, "manifest already closed");
  }
  return log_->AddRecord(record);
}

Status ManifestWriter::Sync() {
  if (file_ == nullptr) {
    return Status::InvalidArgument(file_name_, "manifest already closed");
  }
  return file_->Sync();
}

Status ManifestWriter::Close() {
  if (file_ == nullptr) return Status::OK();
  log_.reset();
  Status s = file_->Close();
  file_.reset();
  return s;
}

Status ManifestWriter::MakeCurrent() {
  return SetCurrentFile(env_, dbname_, number_);
}

Status WriteManifestAndSetCurrent(Env* env, const std::string& dbname,
                                  uint64_t number, const VersionEdit& edit) {
  std::unique_ptr<ManifestWriter> manifest;
  Status s = ManifestWriter::Create(env, dbname, number, &manifest);
  if (!s.ok()) return s;
  std::string record;
  edit.EncodeTo(&record);
  s = manifest->AddRecord(record);
  if (s.ok()) s = manifest->Sync();
  Status closed = manifest->Close();
  if (s.ok()) s = closed;
  if (!s.ok()) {
    env->RemoveFile(manifest->file_name());  // best effort: garbage anyway
    return s;
  }
  // If this fails CURRENT may or may not have switched: keep the manifest.
  return manifest->MakeCurrent();
}

}  // namespace leveldb
