// Encoding, parsing and ordering of internal keys (see db/dbformat.h).
#include "db/dbformat.h"

#include <cstdio>

#include "util/logging.h"

namespace leveldb {

void AppendInternalKey(std::string* result, const ParsedInternalKey& key) {
  result->append(key.user_key.data(), key.user_key.size());
  PutFixed64(result, PackSequenceAndType(key.sequence, key.type));
}

bool ParseInternalKey(const Slice& internal_key, ParsedInternalKey* result) {
  if (internal_key.size() < 8) return false;
  const uint64_t tag = ExtractTag(internal_key);
  const uint8_t type = static_cast<uint8_t>(tag & 0xff);
  if (type > static_cast<uint8_t>(kTypeValue)) return false;
  result->user_key = ExtractUserKey(internal_key);
  result->sequence = tag >> 8;
  result->type = static_cast<ValueType>(type);
  return true;
}

std::string ParsedInternalKey::DebugString() const {
  std::string out = "'";
  out += EscapeString(user_key.ToString());
  out += "' @ ";
  AppendNumberTo(&out, sequence);
  out += " : ";
  AppendNumberTo(&out, static_cast<uint64_t>(type));
  return out;
}

std::string InternalKey::DebugString() const {
  ParsedInternalKey parsed;
  if (ParseInternalKey(rep_, &parsed)) return parsed.DebugString();
  return "(bad)" + EscapeString(rep_);
}

const char* InternalKeyComparator::Name() const {
  return "leveldb.InternalKeyComparator";
}

int InternalKeyComparator::CompareWithUserComparator(const Slice& a,
                                                     const Slice& b) const {
  int r = user_comparator_->Compare(ExtractUserKey(a), ExtractUserKey(b));
  if (r != 0) return r;
  // Same user key: the larger tag (newer sequence) sorts first.
  const uint64_t ta = ExtractTag(a);
  const uint64_t tb = ExtractTag(b);
  if (ta > tb) return -1;
  if (ta < tb) return +1;
  return 0;
}

// The user comparator may shorten the user-key part. When it does, the
// result is strictly greater (as a user key) than the original, so giving it
// the newest possible tag keeps it >= the original internal key while still
// < limit.
void InternalKeyComparator::FindShortestSeparator(std::string* start,
                                                  const Slice& limit) const {
  const Slice user_start = ExtractUserKey(*start);
  const Slice user_limit = ExtractUserKey(limit);
  std::string shortened(user_start.data(), user_start.size());
  user_comparator_->FindShortestSeparator(&shortened, user_limit);
  if (shortened.size() < user_start.size() &&
      user_comparator_->Compare(user_start, shortened) < 0) {
    PutFixed64(&shortened,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    start->swap(shortened);
  }
}

void InternalKeyComparator::FindShortSuccessor(std::string* key) const {
  const Slice user_key = ExtractUserKey(*key);
  std::string shortened(user_key.data(), user_key.size());
  user_comparator_->FindShortSuccessor(&shortened);
  if (shortened.size() < user_key.size() &&
      user_comparator_->Compare(user_key, shortened) < 0) {
    PutFixed64(&shortened,
               PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    key->swap(shortened);
  }
}

LookupKey::LookupKey(const Slice& user_key, SequenceNumber s) {
  const size_t internal_size = user_key.size() + 8;
  // Room for a 5-byte varint32 prefix, the user key and the tag.
  const size_t needed = internal_size + 5;
  char* buf = (needed <= sizeof(space_)) ? space_ : new char[needed];
  start_ = buf;
  char* p = EncodeVarint32(buf, static_cast<uint32_t>(internal_size));
  kstart_ = p;
  if (!user_key.empty()) std::memcpy(p, user_key.data(), user_key.size());
  p += user_key.size();
  EncodeFixed64(p, PackSequenceAndType(s, kValueTypeForSeek));
  p += 8;
  end_ = p;
}

LookupKey::~LookupKey() {
  if (start_ != space_) delete[] start_;
}

}  // namespace leveldb
