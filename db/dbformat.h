// Internal keys: a user key followed by an 8-byte tag (sequence << 8 | type).
// Internal keys order by user key (per the user's comparator) ascending, then
// by sequence descending, so the newest version of a key comes first.
#ifndef DELSM_DB_DBFORMAT_H_
#define DELSM_DB_DBFORMAT_H_

#include <cstdint>
#include <string>

#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "util/coding.h"

namespace leveldb {

namespace config {
constexpr int kNumLevels = 7;
// Queue of immutable memtables waiting for flush; writers stall past it.
constexpr int kMaxImmutableMemtables = 4;
}  // namespace config

// Stored in the low byte of the tag; values are part of the on-disk formats.
enum ValueType : uint8_t { kTypeDeletion = 0x0, kTypeValue = 0x1 };
// The type Seek targets use: the largest, so a lookup key sorts before
// every entry of the same user key and sequence.
constexpr ValueType kValueTypeForSeek = kTypeValue;

typedef uint64_t SequenceNumber;
constexpr SequenceNumber kMaxSequenceNumber = ((0x1ull << 56) - 1);

struct ParsedInternalKey {
  Slice user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeValue;

  ParsedInternalKey() = default;
  ParsedInternalKey(const Slice& u, SequenceNumber seq, ValueType t)
      : user_key(u), sequence(seq), type(t) {}
  std::string DebugString() const;
};

inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType t) {
  return (seq << 8) | t;
}

inline size_t InternalKeyEncodingLength(const ParsedInternalKey& key) {
  return key.user_key.size() + 8;
}

void AppendInternalKey(std::string* result, const ParsedInternalKey& key);

// False if the input is not a well-formed internal key.
bool ParseInternalKey(const Slice& internal_key, ParsedInternalKey* result);

inline Slice ExtractUserKey(const Slice& internal_key) {
  return Slice(internal_key.data(), internal_key.size() - 8);
}
inline uint64_t ExtractTag(const Slice& internal_key) {
  return DecodeFixed64(internal_key.data() + internal_key.size() - 8);
}

// Orders internal keys as InternalKeyComparator(BytewiseComparator()) does
// -- user keys by their unsigned bytes, a prefix first; then the newer tag
// first -- without a virtual call. Both keys are well-formed internal keys
// (at least 8 bytes).
inline int CompareBytewiseInternalKeys(const Slice& a, const Slice& b) {
  const char* pa = a.data();
  const char* pb = b.data();
  const size_t ua = a.size() - 8;
  const size_t ub = b.size() - 8;
  const size_t common = ua < ub ? ua : ub;
  size_t i = 0;
  // Eight bytes at a time, read big-endian: their order as integers is the
  // order of their bytes.
  for (; i + 8 <= common; i += 8) {
    const uint64_t wa = __builtin_bswap64(DecodeFixed64(pa + i));
    const uint64_t wb = __builtin_bswap64(DecodeFixed64(pb + i));
    if (wa != wb) return wa < wb ? -1 : +1;
  }
  for (; i < common; i++) {
    const uint8_t ca = static_cast<uint8_t>(pa[i]);
    const uint8_t cb = static_cast<uint8_t>(pb[i]);
    if (ca != cb) return ca < cb ? -1 : +1;
  }
  if (ua != ub) return ua < ub ? -1 : +1;
  const uint64_t ta = DecodeFixed64(pa + ua);
  const uint64_t tb = DecodeFixed64(pb + ub);
  if (ta != tb) return ta > tb ? -1 : +1;
  return 0;
}

// Orders internal keys with the user's comparator on the user-key part.
// With LevelDB's bytewise comparator (the default) it compares inline.
class InternalKeyComparator : public Comparator {
 public:
  explicit InternalKeyComparator(const Comparator* c)
      : user_comparator_(c), bytewise_(c == BytewiseComparator()) {}
  const char* Name() const override;
  int Compare(const Slice& a, const Slice& b) const override {
    if (bytewise_) return CompareBytewiseInternalKeys(a, b);
    return CompareWithUserComparator(a, b);
  }
  void FindShortestSeparator(std::string* start,
                             const Slice& limit) const override;
  void FindShortSuccessor(std::string* key) const override;

  const Comparator* user_comparator() const { return user_comparator_; }
  int Compare(const class InternalKey& a, const class InternalKey& b) const;

 private:
  int CompareWithUserComparator(const Slice& a, const Slice& b) const;

  const Comparator* user_comparator_;
  const bool bytewise_;  // user_comparator_ is BytewiseComparator()
};

// An internal key held in its encoded form.
class InternalKey {
 public:
  InternalKey() = default;  // Empty means invalid.
  InternalKey(const Slice& user_key, SequenceNumber s, ValueType t) {
    AppendInternalKey(&rep_, ParsedInternalKey(user_key, s, t));
  }
  bool DecodeFrom(const Slice& s) {
    rep_.assign(s.data(), s.size());
    return !rep_.empty();
  }
  Slice Encode() const { return rep_; }
  Slice user_key() const { return ExtractUserKey(rep_); }
  void SetFrom(const ParsedInternalKey& p) {
    rep_.clear();
    AppendInternalKey(&rep_, p);
  }
  void Clear() { rep_.clear(); }
  bool empty() const { return rep_.empty(); }
  std::string DebugString() const;

 private:
  std::string rep_;
};

inline int InternalKeyComparator::Compare(const InternalKey& a,
                                          const InternalKey& b) const {
  return Compare(a.Encode(), b.Encode());
}

// A key for memtable and level lookups of user_key as of sequence s.
// Layout: varint32 (internal key length) | user key | tag.
class LookupKey {
 public:
  LookupKey(const Slice& user_key, SequenceNumber s);
  ~LookupKey();
  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;

  Slice memtable_key() const { return Slice(start_, end_ - start_); }
  Slice internal_key() const { return Slice(kstart_, end_ - kstart_); }
  Slice user_key() const { return Slice(kstart_, end_ - kstart_ - 8); }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
  char space_[200];  // Avoids allocation for short keys.
};

}  // namespace leveldb

#endif  // DELSM_DB_DBFORMAT_H_
