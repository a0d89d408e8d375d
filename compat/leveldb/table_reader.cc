// LevelDB 1.23 table reader (see the header for the format it reads).
#include "compat/leveldb/table_reader.h"

#include <vector>

#include "leveldb/env.h"
#include "port/port.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

namespace {

constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
// Two block handles of at most 10 + 10 varint bytes each, then the magic.
constexpr size_t kFooterSize = 2 * 20 + 8;
// After each block: compression type byte and masked crc32c.
constexpr size_t kBlockTrailerSize = 5;
constexpr char kNoCompression = 0x0;
constexpr char kSnappyCompression = 0x1;
constexpr char kZstdCompression = 0x2;  // later LevelDB releases
constexpr char kFilterPrefix[] = "filter.";

bool DecodeHandle(Slice* input, uint64_t* offset, uint64_t* size) {
  return GetVarint64(input, offset) && GetVarint64(input, size);
}

}  // namespace

// One uncompressed block, scanned front to back. The restart array is
// checked as the scan passes it: every restart offset must be the start of
// an entry that shares no bytes with the key before it, in order.
class LevelDbTableReader::Block {
 public:
  Block(const Slice& contents, const std::string* name)
      : data_(contents), name_(name) {}

  Status Init() {
    if (data_.size() < 4) return Bad("block too short for its restart count");
    num_restarts_ = DecodeFixed32(data_.data() + data_.size() - 4);
    const uint64_t max_restarts = (data_.size() - 4) / 4;
    if (num_restarts_ == 0 || num_restarts_ > max_restarts) {
      return Bad("bad restart count in block");
    }
    restarts_offset_ = data_.size() - 4 * (1 + uint64_t{num_restarts_});
    return Status::OK();
  }

  void SeekToFirst() {
    offset_ = 0;
    next_restart_ = 0;
    key_.clear();
    valid_ = false;
    Next();
  }

  // Decodes the entry at offset_; valid_ is false at the end or on damage.
  void Next() {
    valid_ = false;
    if (!status_.ok()) return;
    if (offset_ >= restarts_offset_) {
      // An empty block still records one restart, at offset 0.
      if (restarts_offset_ == 0 && next_restart_ == 0 && Restart(0) == 0) {
        next_restart_ = 1;
      }
      if (next_restart_ != num_restarts_) {
        status_ = Bad("restart offset is not an entry of the block");
      }
      return;
    }
    const bool at_restart =
        next_restart_ < num_restarts_ && Restart(next_restart_) == offset_;
    if (next_restart_ < num_restarts_ && Restart(next_restart_) < offset_) {
      status_ = Bad("restart offset is not an entry of the block");
      return;
    }
    const char* p = data_.data() + offset_;
    const char* limit = data_.data() + restarts_offset_;
    uint32_t shared, non_shared, value_length;
    p = GetVarint32Ptr(p, limit, &shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &non_shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &value_length);
    if (p == nullptr ||
        static_cast<uint64_t>(limit - p) <
            uint64_t{non_shared} + value_length ||
        shared > key_.size() || (at_restart && shared != 0)) {
      status_ = Bad("malformed block entry");
      return;
    }
    if (at_restart) next_restart_++;
    key_.resize(shared);
    key_.append(p, non_shared);
    value_ = Slice(p + non_shared, value_length);
    offset_ = (p + non_shared + value_length) - data_.data();
    valid_ = true;
  }

  bool Valid() const { return valid_; }
  Slice key() const { return key_; }
  Slice value() const { return value_; }
  Status status() const { return status_; }

 private:
  uint32_t Restart(uint32_t i) const {
    return DecodeFixed32(data_.data() + restarts_offset_ + 4 * uint64_t{i});
  }
  Status Bad(const char* what) const {
    return Status::Corruption(*name_, what);
  }

  const Slice data_;
  const std::string* const name_;
  uint32_t num_restarts_ = 0;
  uint64_t restarts_offset_ = 0;  // where the entries end
  uint64_t offset_ = 0;           // next entry to decode
  uint32_t next_restart_ = 0;     // first restart not yet passed
  std::string key_;
  Slice value_;
  bool valid_ = false;
  Status status_;
};

LevelDbTableReader::LevelDbTableReader(RandomAccessFile* file,
                                       uint64_t file_size,
                                       const std::string& name)
    : file_(file), file_size_(file_size), name_(name) {}

LevelDbTableReader::~LevelDbTableReader() = default;

Status LevelDbTableReader::Open(RandomAccessFile* file, uint64_t file_size,
                                const std::string& name,
                                std::unique_ptr<LevelDbTableReader>* result) {
  result->reset();
  std::unique_ptr<LevelDbTableReader> reader(
      new LevelDbTableReader(file, file_size, name));
  Status s = reader->Init();
  if (s.ok()) *result = std::move(reader);
  return s;
}

Status LevelDbTableReader::ReadBlockAt(const Slice& encoded_handle,
                                       std::string* contents,
                                       bool* was_snappy) {
  Slice input = encoded_handle;
  uint64_t offset, size;
  if (!DecodeHandle(&input, &offset, &size)) {
    return Status::Corruption(name_, "malformed block handle");
  }
  if (offset > file_size_ || size > file_size_ - offset ||
      file_size_ - offset - size < kBlockTrailerSize + kFooterSize) {
    return Status::Corruption(name_, "block handle points outside the table");
  }
  const size_t n = static_cast<size_t>(size);
  std::string buf(n + kBlockTrailerSize, '\0');
  Slice raw;
  Status s = file_->Read(offset, buf.size(), &raw, &buf[0]);
  if (!s.ok()) return s;
  if (raw.size() != buf.size()) {
    return Status::Corruption(name_, "truncated block read");
  }
  const char* data = raw.data();
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(data + n + 1));
  if (crc32c::Value(data, n + 1) != stored) {
    return Status::Corruption(name_, "block checksum mismatch");
  }
  *was_snappy = false;
  switch (data[n]) {
    case kNoCompression:
      contents->assign(data, n);
      return Status::OK();
    case kSnappyCompression: {
      size_t length;
      if (!port::SnappyGetUncompressedLength(data, n, &length)) {
        return Status::Corruption(name_, "bad snappy block length");
      }
      contents->resize(length);
      if (length > 0 && !port::SnappyUncompress(data, n, &(*contents)[0])) {
        return Status::Corruption(name_, "bad snappy block contents");
      }
      *was_snappy = true;
      return Status::OK();
    }
    case kZstdCompression:
      return Status::NotSupported(name_, "zstd-compressed table block");
    default:
      return Status::Corruption(name_, "unknown block compression type");
  }
}

Status LevelDbTableReader::Init() {
  if (file_size_ < kFooterSize) {
    return Status::Corruption(name_, "file too short to be a LevelDB table");
  }
  char footer_buf[kFooterSize];
  Slice footer;
  Status s =
      file_->Read(file_size_ - kFooterSize, kFooterSize, &footer, footer_buf);
  if (!s.ok()) return s;
  if (footer.size() != kFooterSize) {
    return Status::Corruption(name_, "truncated table footer");
  }
  if (DecodeFixed64(footer.data() + kFooterSize - 8) != kTableMagicNumber) {
    return Status::Corruption(name_, "not a LevelDB table (bad magic number)");
  }
  Slice handles(footer.data(), kFooterSize - 8);
  Slice metaindex_handle = handles;
  uint64_t offset, size;
  if (!DecodeHandle(&handles, &offset, &size)) {
    return Status::Corruption(name_, "malformed metaindex handle");
  }
  metaindex_handle =
      Slice(metaindex_handle.data(), handles.data() - metaindex_handle.data());
  Slice index_handle = handles;
  if (!DecodeHandle(&handles, &offset, &size)) {
    return Status::Corruption(name_, "malformed index handle");
  }
  index_handle =
      Slice(index_handle.data(), handles.data() - index_handle.data());

  bool snappy;
  s = ReadBlockAt(index_handle, &index_contents_, &snappy);
  if (!s.ok()) return s;
  index_.reset(new Block(index_contents_, &name_));
  s = index_->Init();
  if (!s.ok()) return s;
  // Count the data blocks and check every handle decodes.
  for (index_->SeekToFirst(); index_->Valid(); index_->Next()) {
    Slice h = index_->value();
    if (!DecodeHandle(&h, &offset, &size)) {
      return Status::Corruption(name_, "malformed data block handle");
    }
    num_data_blocks_++;
  }
  if (!index_->status().ok()) return index_->status();

  // The metaindex names the meta blocks; LevelDB 1.23 writes at most a
  // filter block. Its layout is checked although conversion does not use it
  // (SST directories build their own filters).
  std::string metaindex;
  s = ReadBlockAt(metaindex_handle, &metaindex, &snappy);
  if (!s.ok()) return s;
  Block meta(metaindex, &name_);
  s = meta.Init();
  if (!s.ok()) return s;
  for (meta.SeekToFirst(); meta.Valid(); meta.Next()) {
    if (!meta.key().starts_with(kFilterPrefix)) continue;
    std::string filter;
    s = ReadBlockAt(meta.value(), &filter, &snappy);
    if (!s.ok()) return s;
    // filters, fixed32 offset of each, fixed32 start of that array, 1 byte
    // lg(base).
    if (filter.size() < 5) {
      return Status::Corruption(name_, "filter block too short");
    }
    const uint32_t array_start =
        DecodeFixed32(filter.data() + filter.size() - 5);
    if (array_start > filter.size() - 5 ||
        (filter.size() - 5 - array_start) % 4 != 0) {
      return Status::Corruption(name_, "malformed filter block");
    }
    Slice name_part = meta.key();
    name_part.remove_prefix(sizeof(kFilterPrefix) - 1);
    filter_name_ = name_part.ToString();
  }
  return meta.status();
}

void LevelDbTableReader::SeekToFirst() {
  status_ = Status::OK();
  damaged_blocks_ = 0;
  first_damage_ = Status::OK();
  valid_ = false;
  data_.reset();
  index_->SeekToFirst();
  AdvanceToNextDataBlock();
}

void LevelDbTableReader::AdvanceToNextDataBlock() {
  valid_ = false;
  while (status_.ok() && index_->Valid()) {
    bool snappy;
    Status s = ReadBlockAt(index_->value(), &data_contents_, &snappy);
    if (s.ok()) {
      if (snappy) snappy_blocks_read_++;
      data_.reset(new Block(data_contents_, &name_));
      s = data_->Init();
    }
    if (s.ok()) {
      data_->SeekToFirst();
      if (data_->Valid()) {
        index_->Next();
        valid_ = true;
        return;
      }
      s = data_->status();
    }
    if (!s.ok() && !SkipDamage(s)) {
      status_ = s;
      break;
    }
    index_->Next();
  }
  if (status_.ok()) status_ = index_->status();
}

bool LevelDbTableReader::SkipDamage(const Status& s) {
  if (!skip_damaged_blocks_ || !s.IsCorruption()) return false;
  if (first_damage_.ok()) first_damage_ = s;
  damaged_blocks_++;
  return true;
}

void LevelDbTableReader::Next() {
  if (!valid_) return;
  data_->Next();
  if (data_->Valid()) return;
  const Status s = data_->status();
  if (!s.ok() && !SkipDamage(s)) {
    status_ = s;
    valid_ = false;
    return;
  }
  AdvanceToNextDataBlock();
}

Slice LevelDbTableReader::key() const { return data_->key(); }
Slice LevelDbTableReader::value() const { return data_->value(); }

}  // namespace leveldb
