// A FileSystem that passes every call to another one, for tests whose file
// system changes a few calls: they derive from it and override only those.
// Thread-safe if the base is.
#ifndef DELSM_TESTS_FORWARDING_FILE_SYSTEM_H_
#define DELSM_TESTS_FORWARDING_FILE_SYSTEM_H_

#include <memory>
#include <string>
#include <vector>

#include "fs/file_system.h"

namespace delsm_test {

class ForwardingFileSystem : public leveldb::FileSystem {
 public:
  // `base` is not owned and must outlive this file system.
  explicit ForwardingFileSystem(
      leveldb::FileSystem* base = leveldb::FileSystem::Default())
      : base_(base) {}

  leveldb::Status OpenDirectory(
      const std::string& path,
      std::unique_ptr<leveldb::Directory>* result) override {
    return base_->OpenDirectory(path, result);
  }
  leveldb::Status OpenMovableDirectory(
      const std::string& path, const std::vector<std::string>& moved_to,
      std::unique_ptr<leveldb::Directory>* result) override {
    return base_->OpenMovableDirectory(path, moved_to, result);
  }
  leveldb::Status CreateDir(const std::string& path,
                            bool ok_if_exists) override {
    return base_->CreateDir(path, ok_if_exists);
  }
  leveldb::Status RemoveDir(const std::string& path) override {
    return base_->RemoveDir(path);
  }
  leveldb::Status Rename(const std::string& from,
                         const std::string& to) override {
    return base_->Rename(from, to);
  }
  leveldb::Status Probe(const std::string& path, bool* exists) override {
    return base_->Probe(path, exists);
  }
  leveldb::Status GetSpace(const std::string& path,
                           leveldb::FileSystemSpace* space) override {
    return base_->GetSpace(path, space);
  }

 protected:
  leveldb::FileSystem* base() const { return base_; }

 private:
  leveldb::FileSystem* const base_;
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_FORWARDING_FILE_SYSTEM_H_
