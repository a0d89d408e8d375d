#include "db/log_reader.h"

#include <cstdio>

#include "leveldb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace log {

Reader::Reporter::~Reporter() = default;

Reader::Reader(SequentialFile* file, Reporter* reporter, bool checksum,
               uint64_t initial_offset)
    : file_(file),
      reporter_(reporter),
      checksum_(checksum),
      backing_store_(new char[kBlockSize]),
      buffer_(),
      eof_(false),
      last_record_offset_(0),
      end_of_buffer_offset_(0),
      initial_offset_(initial_offset),
      resyncing_(initial_offset > 0) {}

Reader::~Reader() { delete[] backing_store_; }

bool Reader::SkipToInitialBlock() {
  const uint64_t offset_in_block = initial_offset_ % kBlockSize;
  uint64_t block_start = initial_offset_ - offset_in_block;
  // No record can start in a block's trailer.
  if (offset_in_block > kBlockSize - kHeaderSize) block_start += kBlockSize;
  end_of_buffer_offset_ = block_start;
  if (block_start > 0) {
    Status s = file_->Skip(block_start);
    if (!s.ok()) {
      ReportDrop(block_start, s);
      return false;
    }
  }
  return true;
}

bool Reader::ReadRecord(Slice* record, std::string* scratch) {
  if (last_record_offset_ < initial_offset_) {
    if (!SkipToInitialBlock()) return false;
  }
  scratch->clear();
  record->clear();
  bool in_fragmented_record = false;
  // Offset of the first fragment of the record being assembled.
  uint64_t prospective_offset = 0;

  Slice fragment;
  while (true) {
    const unsigned int type = ReadPhysicalRecord(&fragment);
    // Offset at which this fragment's header starts.
    const uint64_t fragment_offset =
        end_of_buffer_offset_ - buffer_.size() - kHeaderSize - fragment.size();
    if (resyncing_) {
      // Skip the rest of a record that began before initial_offset_.
      if (type == kMiddleType || type == kBadRecord) continue;
      if (type == kLastType) {
        resyncing_ = false;
        continue;
      }
      resyncing_ = false;
    }
    switch (type) {
      case kFullType:
        if (in_fragmented_record && !scratch->empty()) {
          ReportCorruption(scratch->size(), "partial record without end(1)");
        }
        scratch->clear();
        *record = fragment;
        last_record_offset_ = fragment_offset;
        return true;

      case kFirstType:
        if (in_fragmented_record && !scratch->empty()) {
          ReportCorruption(scratch->size(), "partial record without end(2)");
        }
        prospective_offset = fragment_offset;
        scratch->assign(fragment.data(), fragment.size());
        in_fragmented_record = true;
        break;

      case kMiddleType:
        if (!in_fragmented_record) {
          ReportCorruption(fragment.size(),
                           "missing start of fragmented record(1)");
        } else {
          scratch->append(fragment.data(), fragment.size());
        }
        break;

      case kLastType:
        if (!in_fragmented_record) {
          ReportCorruption(fragment.size(),
                           "missing start of fragmented record(2)");
        } else {
          scratch->append(fragment.data(), fragment.size());
          *record = Slice(*scratch);
          last_record_offset_ = prospective_offset;
          return true;
        }
        break;

      case kEof:
        // A record whose later fragments never reached the file is a torn
        // write, not corruption: drop it silently.
        scratch->clear();
        return false;

      case kBadRecord:
        if (in_fragmented_record) {
          ReportCorruption(scratch->size(), "error in middle of record");
          in_fragmented_record = false;
          scratch->clear();
        }
        break;

      default: {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "unknown record type %u", type);
        ReportCorruption(
            (in_fragmented_record ? scratch->size() : 0) + fragment.size(),
            buf);
        in_fragmented_record = false;
        scratch->clear();
        break;
      }
    }
  }
}

void Reader::ReportCorruption(uint64_t bytes, const char* reason) {
  ReportDrop(bytes, Status::Corruption(reason));
}

void Reader::ReportDrop(uint64_t bytes, const Status& reason) {
  // Damage that lies wholly before initial_offset_ is not the caller's
  // concern.
  const uint64_t position = end_of_buffer_offset_ - buffer_.size();
  if (reporter_ != nullptr &&
      (initial_offset_ == 0 ||
       (position >= bytes && position - bytes >= initial_offset_))) {
    reporter_->Corruption(static_cast<size_t>(bytes), reason);
  }
}

unsigned int Reader::ReadPhysicalRecord(Slice* result) {
  while (true) {
    if (buffer_.size() < static_cast<size_t>(kHeaderSize)) {
      if (!eof_) {
        // Whatever is left is the block's zero trailer: skip it.
        buffer_.clear();
        Status s = file_->Read(kBlockSize, &buffer_, backing_store_);
        end_of_buffer_offset_ += buffer_.size();
        if (!s.ok()) {
          buffer_.clear();
          ReportDrop(kBlockSize, s);
          eof_ = true;
          return kEof;
        }
        if (buffer_.size() < static_cast<size_t>(kBlockSize)) eof_ = true;
        continue;
      }
      // A partial header at the end of the file: the writer died while
      // writing it. Not corruption.
      buffer_.clear();
      return kEof;
    }

    const char* header = buffer_.data();
    const uint32_t length = static_cast<uint32_t>(
        static_cast<uint8_t>(header[4]) |
        (static_cast<uint32_t>(static_cast<uint8_t>(header[5])) << 8));
    const unsigned int type = static_cast<uint8_t>(header[6]);
    if (kHeaderSize + length > buffer_.size()) {
      const size_t drop = buffer_.size();
      buffer_.clear();
      if (!eof_) {
        ReportCorruption(drop, "bad record length");
        return kBadRecord;
      }
      // The payload was cut off by the end of the file: a torn write.
      return kEof;
    }

    if (type == kZeroType && length == 0) {
      // Zero-filled space, e.g. from preallocation; not a record. Skip the
      // rest of the block without reporting.
      buffer_.clear();
      return kBadRecord;
    }

    if (checksum_) {
      const uint32_t expected = crc32c::Unmask(DecodeFixed32(header));
      const uint32_t actual = crc32c::Value(header + 6, 1 + length);
      if (actual != expected) {
        // The length itself may be damaged, so nothing else in this block
        // can be trusted.
        const size_t drop = buffer_.size();
        buffer_.clear();
        ReportCorruption(drop, "checksum mismatch");
        return kBadRecord;
      }
    }

    buffer_.remove_prefix(kHeaderSize + length);

    // Fragments that begin before initial_offset_ belong to earlier records.
    if (end_of_buffer_offset_ - buffer_.size() - kHeaderSize - length <
        initial_offset_) {
      result->clear();
      return kBadRecord;
    }

    *result = Slice(header + kHeaderSize, length);
    return type;
  }
}

}  // namespace log
}  // namespace leveldb
