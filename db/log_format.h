// The log format shared by the WAL and the manifest.
//
// A log is a sequence of 32 KiB blocks. Each block holds physical records:
//   masked crc32c (fixed32) | payload length (fixed16) | type (1 byte) |
//   payload
// The checksum covers the type byte and the payload. A logical record that
// does not fit in the rest of a block is split into a FIRST fragment, zero or
// more MIDDLE fragments and a LAST fragment; one that fits is a FULL record.
// When fewer than kHeaderSize bytes remain in a block they are zero-filled
// (the trailer) and the next record starts in the next block.
#ifndef DELSM_DB_LOG_FORMAT_H_
#define DELSM_DB_LOG_FORMAT_H_

namespace leveldb {
namespace log {

enum RecordType {
  // Never written by the Writer; files preallocated with zeroes read as it.
  kZeroType = 0,
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
};
constexpr int kMaxRecordType = kLastType;

constexpr int kBlockSize = 32768;

// crc (4) + length (2) + type (1).
constexpr int kHeaderSize = 4 + 2 + 1;

}  // namespace log
}  // namespace leveldb

#endif  // DELSM_DB_LOG_FORMAT_H_
