#include "db/dbformat.h"

#include <string>

#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "util/logging.h"
#include "util/random.h"

namespace leveldb {
namespace {

std::string IKey(const std::string& user_key, SequenceNumber seq,
                 ValueType type) {
  std::string encoded;
  AppendInternalKey(&encoded, ParsedInternalKey(user_key, seq, type));
  return encoded;
}

std::string Shorten(const std::string& s, const std::string& l) {
  std::string result = s;
  InternalKeyComparator(BytewiseComparator()).FindShortestSeparator(&result, l);
  return result;
}

std::string ShortSuccessor(const std::string& s) {
  std::string result = s;
  InternalKeyComparator(BytewiseComparator()).FindShortSuccessor(&result);
  return result;
}

TEST(DBFormatTest, EncodeDecodeRoundTrip) {
  const std::string keys[] = {"", "k", "hello", "longggggggggggggggggggg",
                              std::string("\0\xff/", 3)};
  const SequenceNumber seqs[] = {
      0, 1, 2, 255, 256, (1ull << 32) - 1, 1ull << 32, kMaxSequenceNumber};
  for (const std::string& k : keys) {
    for (SequenceNumber s : seqs) {
      for (ValueType t : {kTypeValue, kTypeDeletion}) {
        const std::string encoded = IKey(k, s, t);
        EXPECT_EQ(k.size() + 8, encoded.size());
        ParsedInternalKey decoded;
        ASSERT_TRUE(ParseInternalKey(encoded, &decoded));
        EXPECT_EQ(k, decoded.user_key.ToString());
        EXPECT_EQ(s, decoded.sequence);
        EXPECT_EQ(t, decoded.type);
        EXPECT_EQ(k, ExtractUserKey(encoded).ToString());
        EXPECT_EQ(PackSequenceAndType(s, t), ExtractTag(encoded));
      }
    }
  }
}

TEST(DBFormatTest, ParseRejectsMalformed) {
  ParsedInternalKey decoded;
  EXPECT_FALSE(ParseInternalKey(Slice(""), &decoded));
  EXPECT_FALSE(ParseInternalKey(Slice("1234567"), &decoded));
  std::string bad_type = IKey("foo", 7, kTypeValue);
  bad_type[3] = 0x2;  // Low byte of the tag is the type.
  EXPECT_FALSE(ParseInternalKey(bad_type, &decoded));
  bad_type[3] = static_cast<char>(0xff);
  EXPECT_FALSE(ParseInternalKey(bad_type, &decoded));
}

TEST(DBFormatTest, Ordering) {
  InternalKeyComparator cmp(BytewiseComparator());
  EXPECT_STREQ("leveldb.InternalKeyComparator", cmp.Name());
  EXPECT_EQ(BytewiseComparator(), cmp.user_comparator());
  // User keys ascending.
  EXPECT_LT(cmp.Compare(IKey("a", 1, kTypeValue), IKey("b", 100, kTypeValue)),
            0);
  EXPECT_LT(cmp.Compare(IKey("", 1, kTypeValue), IKey("a", 1, kTypeValue)), 0);
  // Same user key: newer sequence first.
  EXPECT_LT(cmp.Compare(IKey("a", 5, kTypeValue), IKey("a", 4, kTypeValue)), 0);
  EXPECT_GT(cmp.Compare(IKey("a", 4, kTypeValue), IKey("a", 5, kTypeValue)), 0);
  // Same sequence: value (larger type) first.
  EXPECT_LT(cmp.Compare(IKey("a", 5, kTypeValue), IKey("a", 5, kTypeDeletion)),
            0);
  EXPECT_EQ(cmp.Compare(IKey("a", 5, kTypeValue), IKey("a", 5, kTypeValue)), 0);
  // InternalKey overload agrees.
  EXPECT_LT(cmp.Compare(InternalKey("x", 9, kTypeValue),
                        InternalKey("x", 8, kTypeValue)),
            0);
}

// The inline comparison used with the bytewise comparator must order every
// pair of internal keys exactly as the user comparator does: memtables,
// merges and lookups rely on one order. A comparator that forwards to
// BytewiseComparator() takes the general path, so the two are compared on
// keys that stress the word-at-a-time loop: shared prefixes of every length,
// bytes at and past 0x80, one key a prefix of the other, and equal user keys
// with different tags.
class ForwardingBytewise : public Comparator {
 public:
  const char* Name() const override { return BytewiseComparator()->Name(); }
  int Compare(const Slice& a, const Slice& b) const override {
    return BytewiseComparator()->Compare(a, b);
  }
  void FindShortestSeparator(std::string* s, const Slice& l) const override {
    BytewiseComparator()->FindShortestSeparator(s, l);
  }
  void FindShortSuccessor(std::string* k) const override {
    BytewiseComparator()->FindShortSuccessor(k);
  }
};

int Sign(int r) { return r < 0 ? -1 : (r > 0 ? 1 : 0); }

TEST(DBFormatTest, InlineBytewiseOrderMatchesTheUserComparator) {
  ForwardingBytewise forwarding;
  const InternalKeyComparator general(&forwarding);
  const InternalKeyComparator inline_bytewise(BytewiseComparator());
  const char alphabet[] = {'\x00', '\x01', 'a', '\x7f', '\x80', '\xfe', '\xff'};
  Random rnd(301);
  auto random_key = [&](const std::string& base) {
    std::string user =
        base.substr(0, rnd.Uniform(static_cast<int>(base.size()) + 1));
    const int extra = rnd.Uniform(20);
    for (int i = 0; i < extra; i++) user += alphabet[rnd.Uniform(7)];
    const SequenceNumber seq = rnd.Uniform(4);
    const ValueType type = rnd.OneIn(2) ? kTypeValue : kTypeDeletion;
    std::string key;
    AppendInternalKey(&key, ParsedInternalKey(user, seq, type));
    return key;
  };
  int orders[3] = {0, 0, 0};
  for (int i = 0; i < 200000; i++) {
    const std::string a = random_key("prefix-of-twenty-bytes");
    const std::string b =
        rnd.OneIn(3) ? a : random_key(a.substr(0, a.size() - 8));
    const int expected = Sign(general.Compare(a, b));
    ASSERT_EQ(expected, Sign(inline_bytewise.Compare(a, b)))
        << EscapeString(a) << " vs " << EscapeString(b);
    ASSERT_EQ(-expected, Sign(inline_bytewise.Compare(b, a)));
    orders[expected + 1]++;
  }
  // Every outcome was exercised.
  EXPECT_GT(orders[0], 1000);
  EXPECT_GT(orders[1], 1000);
  EXPECT_GT(orders[2], 1000);
}

TEST(DBFormatTest, ShortestSeparator) {
  // Shortened when the user keys allow it, with the newest possible tag.
  EXPECT_EQ(
      IKey("g", kMaxSequenceNumber, kValueTypeForSeek),
      Shorten(IKey("foo", 100, kTypeValue), IKey("hello", 200, kTypeValue)));
  // Unchanged: same user key.
  EXPECT_EQ(IKey("foo", 100, kTypeValue),
            Shorten(IKey("foo", 100, kTypeValue), IKey("foo", 99, kTypeValue)));
  EXPECT_EQ(
      IKey("foo", 100, kTypeValue),
      Shorten(IKey("foo", 100, kTypeValue), IKey("foo", 101, kTypeValue)));
  // Unchanged: limit's user key is a prefix extension / misordered.
  EXPECT_EQ(
      IKey("foo", 100, kTypeValue),
      Shorten(IKey("foo", 100, kTypeValue), IKey("foobar", 200, kTypeValue)));
  EXPECT_EQ(
      IKey("foobar", 100, kTypeValue),
      Shorten(IKey("foobar", 100, kTypeValue), IKey("foo", 200, kTypeValue)));

  // Whatever the result, start <= result < limit.
  InternalKeyComparator cmp(BytewiseComparator());
  const std::string start = IKey("abcdef", 5, kTypeDeletion);
  const std::string limit = IKey("abzz", 3, kTypeValue);
  const std::string sep = Shorten(start, limit);
  EXPECT_LE(cmp.Compare(start, sep), 0);
  EXPECT_LT(cmp.Compare(sep, limit), 0);
  ParsedInternalKey parsed;
  EXPECT_TRUE(ParseInternalKey(sep, &parsed));
}

TEST(DBFormatTest, ShortSuccessor) {
  EXPECT_EQ(IKey("g", kMaxSequenceNumber, kValueTypeForSeek),
            ShortSuccessor(IKey("foo", 100, kTypeValue)));
  const std::string all_ff = IKey("\xff\xff", 100, kTypeValue);
  EXPECT_EQ(all_ff, ShortSuccessor(all_ff));
}

TEST(DBFormatTest, LookupKey) {
  for (size_t len : {size_t{0}, size_t{3}, size_t{150}, size_t{191},
                     size_t{192}, size_t{500}, size_t{70000}}) {
    const std::string user_key(len, 'x');
    LookupKey lk(user_key, 42);
    EXPECT_EQ(user_key, lk.user_key().ToString());
    EXPECT_EQ(IKey(user_key, 42, kValueTypeForSeek),
              lk.internal_key().ToString());
    // memtable_key = varint32 length prefix + internal key.
    Slice mk = lk.memtable_key();
    uint32_t prefix;
    ASSERT_TRUE(GetVarint32(&mk, &prefix));
    EXPECT_EQ(len + 8, prefix);
    EXPECT_EQ(lk.internal_key().ToString(), mk.ToString());
  }
}

TEST(DBFormatTest, DebugString) {
  EXPECT_EQ("'foo' @ 7 : 1",
            ParsedInternalKey("foo", 7, kTypeValue).DebugString());
  EXPECT_EQ("'foo' @ 7 : 0",
            InternalKey("foo", 7, kTypeDeletion).DebugString());
  InternalKey bad;
  ASSERT_TRUE(bad.DecodeFrom("short"));
  EXPECT_NE(std::string::npos, bad.DebugString().find("(bad)"));
}

TEST(DBFormatTest, InternalKeyAccessors) {
  InternalKey k;
  EXPECT_TRUE(k.empty());
  k.SetFrom(ParsedInternalKey("user", 3, kTypeValue));
  EXPECT_FALSE(k.empty());
  EXPECT_EQ("user", k.user_key().ToString());
  InternalKey copy;
  ASSERT_TRUE(copy.DecodeFrom(k.Encode()));
  EXPECT_EQ(k.Encode().ToString(), copy.Encode().ToString());
  k.Clear();
  EXPECT_TRUE(k.empty());
}

}  // namespace
}  // namespace leveldb
