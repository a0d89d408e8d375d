#include "compat/leveldb/file_writers.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "util/coding.h"
#include "util/crc32c.h"
#include "util/posix_error.h"

namespace leveldb {

namespace {

// LevelDB's log framing (doc/log_format.md).
constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 4 + 2 + 1;
enum LogRecordType : uint8_t {
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
};

// WriteBatch entry type of a Put (LevelDB's kTypeValue).
constexpr char kBatchPut = 1;
constexpr size_t kBatchHeader = 12;  // fixed64 sequence + fixed32 count

// Appends smaller than this are gathered before one write(2).
constexpr size_t kBufferBytes = 256 * 1024;

Status WriteAll(int fd, const std::string& path, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t done = ::write(fd, data, n);
    if (done < 0) {
      if (errno == EINTR) continue;
      return leveldb::PosixError(path, errno);
    }
    data += done;
    n -= static_cast<size_t>(done);
  }
  return Status::OK();
}

}  // namespace

NewFile::NewFile(const std::string& path, int fd) : path_(path), fd_(fd) {}

NewFile::~NewFile() {
  if (fd_ >= 0) ::close(fd_);  // abandoned: the caller removes the file
}

Status NewFile::Create(const std::string& path,
                       std::unique_ptr<NewFile>* file) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return leveldb::PosixError(path, errno, false);
  file->reset(new NewFile(path, fd));
  return Status::OK();
}

Status NewFile::WriteBuffer() {
  Status s = WriteAll(fd_, path_, buffer_.data(), buffer_.size());
  buffer_.clear();
  return s;
}

Status NewFile::Append(const Slice& data) {
  if (fd_ < 0) return Status::IOError(path_, "append after close");
  size_ += data.size();
  if (buffer_.size() + data.size() <= kBufferBytes) {
    buffer_.append(data.data(), data.size());
    return Status::OK();
  }
  Status s = WriteBuffer();
  if (!s.ok()) return s;
  if (data.size() >= kBufferBytes) {
    return WriteAll(fd_, path_, data.data(), data.size());
  }
  buffer_.assign(data.data(), data.size());
  return Status::OK();
}

Status NewFile::SyncAndClose() {
  if (fd_ < 0) return Status::IOError(path_, "already closed");
  Status s = WriteBuffer();
  if (s.ok() && ::fsync(fd_) != 0) s = leveldb::PosixError(path_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && s.ok()) s = leveldb::PosixError(path_, errno);
  return s;
}

Status LevelDbLogWriter::AddRecord(const Slice& payload) {
  const char* ptr = payload.data();
  size_t left = payload.size();
  bool first = true;
  // An empty payload still makes one (FULL, zero-length) record.
  do {
    const size_t room = kBlockSize - block_offset_;
    if (room < kHeaderSize) {
      // LevelDB's reader skips a block tail too short for a header.
      static const char kZeros[kHeaderSize] = {0};
      Status s = file_->Append(Slice(kZeros, room));
      if (!s.ok()) return s;
      block_offset_ = 0;
    }
    const size_t fits = kBlockSize - block_offset_ - kHeaderSize;
    const size_t n = std::min(left, fits);
    const bool last = n == left;
    const uint8_t type = first && last ? kFullType
                         : first       ? kFirstType
                         : last        ? kLastType
                                       : kMiddleType;
    const char type_byte = static_cast<char>(type);
    uint32_t crc = leveldb::crc32c::Value(&type_byte, 1);
    crc = leveldb::crc32c::Extend(crc, ptr, n);
    char header[kHeaderSize];
    leveldb::EncodeFixed32(header, leveldb::crc32c::Mask(crc));
    header[4] = static_cast<char>(n & 0xff);
    header[5] = static_cast<char>(n >> 8);
    header[6] = type_byte;
    Status s = file_->Append(Slice(header, kHeaderSize));
    if (s.ok()) s = file_->Append(Slice(ptr, n));
    if (!s.ok()) return s;
    block_offset_ += kHeaderSize + n;
    ptr += n;
    left -= n;
    first = false;
  } while (left > 0);
  return Status::OK();
}

LevelDbBatch::LevelDbBatch() { Clear(); }

void LevelDbBatch::Put(const Slice& key, const Slice& value) {
  rep_.push_back(kBatchPut);
  leveldb::PutLengthPrefixedSlice(&rep_, key);
  leveldb::PutLengthPrefixedSlice(&rep_, value);
  count_++;
}

Slice LevelDbBatch::Encode(uint64_t sequence) {
  leveldb::EncodeFixed64(&rep_[0], sequence);
  leveldb::EncodeFixed32(&rep_[8], count_);
  return Slice(rep_);
}

void LevelDbBatch::Clear() {
  rep_.assign(kBatchHeader, '\0');
  count_ = 0;
}

std::string LevelDbLogName(const std::string& dir, uint64_t number) {
  char name[64];
  std::snprintf(name, sizeof(name), "/%06llu.log",
                static_cast<unsigned long long>(number));
  return dir + name;
}

std::string LevelDbManifestName(const std::string& dir, uint64_t number) {
  char name[64];
  std::snprintf(name, sizeof(name), "/MANIFEST-%06llu",
                static_cast<unsigned long long>(number));
  return dir + name;
}

Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return leveldb::PosixError(dir, errno);
  Status s;
  if (::fsync(fd) != 0) s = leveldb::PosixError(dir, errno);
  if (::close(fd) != 0 && s.ok()) s = leveldb::PosixError(dir, errno);
  return s;
}

}  // namespace leveldb
