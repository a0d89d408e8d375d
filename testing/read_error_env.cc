#include "testing/read_error_env.h"

#include <memory>
#include <utility>

namespace leveldb {

class ReadErrorEnv::Sequential : public SequentialFile {
 public:
  Sequential(ReadErrorEnv* env, SequentialFile* base, std::string path)
      : env_(env), base_(base), path_(std::move(path)) {}

  Status Read(size_t n, Slice* result, char* scratch) override {
    if (position_ >= env_->good_bytes_) {
      *result = Slice();
      return env_->ReadError(path_);
    }
    if (n > env_->good_bytes_ - position_) n = env_->good_bytes_ - position_;
    Status s = base_->Read(n, result, scratch);
    if (s.ok()) position_ += result->size();
    return s;
  }
  Status Skip(uint64_t n) override {
    Status s = base_->Skip(n);
    if (s.ok()) position_ += n;
    return s;
  }

 private:
  ReadErrorEnv* const env_;
  const std::unique_ptr<SequentialFile> base_;
  const std::string path_;
  uint64_t position_ = 0;
};

class ReadErrorEnv::RandomAccess : public RandomAccessFile {
 public:
  RandomAccess(ReadErrorEnv* env, RandomAccessFile* base, std::string path)
      : env_(env), base_(base), path_(std::move(path)) {}

  Status Read(uint64_t offset, size_t n, Slice* result,
              char* scratch) const override {
    if (offset + n > env_->good_bytes_) {
      *result = Slice();
      return env_->ReadError(path_);
    }
    return base_->Read(offset, n, result, scratch);
  }

 private:
  ReadErrorEnv* const env_;
  const std::unique_ptr<RandomAccessFile> base_;
  const std::string path_;
};

bool ReadErrorEnv::FailsReadsOf(const std::string& f) {
  if (read_path_.empty() || f.find(read_path_) == std::string::npos) {
    return false;
  }
  const int nth = ++opened_;
  return failing_files_ == 0 || nth <= failing_files_;
}

Status ReadErrorEnv::NewSequentialFile(const std::string& f,
                                       SequentialFile** result) {
  Status s = target()->NewSequentialFile(f, result);
  if (s.ok() && FailsReadsOf(f)) *result = new Sequential(this, *result, f);
  return s;
}

Status ReadErrorEnv::NewRandomAccessFile(const std::string& f,
                                         RandomAccessFile** result) {
  Status s = target()->NewRandomAccessFile(f, result);
  if (s.ok() && FailsReadsOf(f)) *result = new RandomAccess(this, *result, f);
  return s;
}

Status ReadErrorEnv::GetChildren(const std::string& dir,
                                 std::vector<std::string>* result) {
  if (!list_path_.empty() && dir.find(list_path_) != std::string::npos) {
    result->clear();
    failed_listings_++;
    return Status::IOError(dir, "Input/output error");
  }
  return target()->GetChildren(dir, result);
}

bool ReadErrorEnv::FileExists(const std::string& f) {
  if (lookups_fail_ && f.find(list_path_) != std::string::npos) return false;
  return target()->FileExists(f);
}

Status ReadErrorEnv::GetFileSize(const std::string& f, uint64_t* size) {
  if (stats_fail_ && f.find(list_path_) != std::string::npos) {
    *size = 0;
    return Status::IOError(f, "Input/output error");
  }
  return target()->GetFileSize(f, size);
}

}  // namespace leveldb
