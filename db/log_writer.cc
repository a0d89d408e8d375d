#include "db/log_writer.h"

#include <cassert>
#include <cstdint>

#include "leveldb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace log {

namespace {

void InitTypeCrc(uint32_t* type_crc) {
  for (int i = 0; i <= kMaxRecordType; i++) {
    const char t = static_cast<char>(i);
    type_crc[i] = crc32c::Value(&t, 1);
  }
}

}  // namespace

Writer::Writer(WritableFile* dest) : Writer(dest, 0) {}

Writer::Writer(WritableFile* dest, uint64_t dest_length)
    : dest_(dest), block_offset_(static_cast<int>(dest_length % kBlockSize)) {
  InitTypeCrc(type_crc_);
}

Status Writer::AddRecord(const Slice& record) {
  const char* ptr = record.data();
  size_t left = record.size();
  bool first = true;
  // Loop at least once so that an empty record still produces a (FULL)
  // physical record.
  Status s;
  do {
    const int room = kBlockSize - block_offset_;
    assert(room >= 0);
    if (room < kHeaderSize) {
      // Not even a header fits: zero-fill the trailer, start a new block.
      if (room > 0) {
        static const char kZeroes[kHeaderSize] = {0};
        s = dest_->Append(Slice(kZeroes, room));
        if (!s.ok()) return s;
      }
      block_offset_ = 0;
    }
    const size_t avail = kBlockSize - block_offset_ - kHeaderSize;
    const size_t fragment = (left < avail) ? left : avail;
    const bool last = (fragment == left);
    RecordType type;
    if (first && last) {
      type = kFullType;
    } else if (first) {
      type = kFirstType;
    } else if (last) {
      type = kLastType;
    } else {
      type = kMiddleType;
    }
    s = EmitPhysicalRecord(type, ptr, fragment);
    ptr += fragment;
    left -= fragment;
    first = false;
  } while (s.ok() && left > 0);
  // One flush per logical record rather than per fragment.
  if (s.ok()) s = dest_->Flush();
  return s;
}

Status Writer::EmitPhysicalRecord(RecordType type, const char* data,
                                  size_t length) {
  assert(length <= 0xffff);
  assert(block_offset_ + kHeaderSize + length <= kBlockSize);
  char header[kHeaderSize];
  const uint32_t crc = crc32c::Extend(type_crc_[type], data, length);
  EncodeFixed32(header, crc32c::Mask(crc));
  header[4] = static_cast<char>(length & 0xff);
  header[5] = static_cast<char>(length >> 8);
  header[6] = static_cast<char>(type);
  Status s = dest_->Append(Slice(header, kHeaderSize));
  if (s.ok()) s = dest_->Append(Slice(data, length));
  // Advance even on failure: whatever reached the file occupies the block,
  // and the reader resynchronises on block boundaries.
  block_offset_ += kHeaderSize + static_cast<int>(length);
  return s;
}

}  // namespace log
}  // namespace leveldb
