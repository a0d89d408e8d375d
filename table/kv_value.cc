#include "table/kv_value.h"

#include "port/port.h"

namespace leveldb {

Slice EncodeKvValue(const Slice& value, CompressionType compression,
                    std::string* scratch, bool* compressed) {
  *compressed = false;
  if (compression != kSnappyCompression || value.empty()) return value;
  if (!port::SnappyCompress(value.data(), value.size(), scratch)) {
    return value;
  }
  // Compression must pay for the CPU it costs every reader.
  if (scratch->size() > value.size() - value.size() / 8) return value;
  *compressed = true;
  return Slice(*scratch);
}

Status DecodeKvValue(const Slice& stored, bool compressed,
                     uint64_t expected_size, const std::string& name_for_errors,
                     std::string* value) {
  if (!compressed) {
    if (stored.size() != expected_size) {
      value->clear();
      return Status::Corruption(
          name_for_errors, "value size " + std::to_string(stored.size()) +
                               " != recorded " + std::to_string(expected_size));
    }
    value->assign(stored.data(), stored.size());
    return Status::OK();
  }
  size_t n = 0;
  if (!port::SnappyGetUncompressedLength(stored.data(), stored.size(), &n)) {
    value->clear();
    return Status::Corruption(name_for_errors, "bad snappy data");
  }
  if (n != expected_size) {
    value->clear();
    return Status::Corruption(
        name_for_errors, "uncompressed size " + std::to_string(n) +
                             " != recorded " + std::to_string(expected_size));
  }
  // Every byte is written by the decompression: only growth zero-fills.
  value->resize(n);
  if (n > 0 &&
      !port::SnappyUncompress(stored.data(), stored.size(), &(*value)[0])) {
    value->clear();
    return Status::Corruption(name_for_errors, "bad snappy data");
  }
  return Status::OK();
}

}  // namespace leveldb
