#include "table/key_codec.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace leveldb {
namespace {

// Properties every KV file name must have to be a safe single path component.
void ExpectSafeName(const std::string& name) {
  EXPECT_FALSE(name.empty());
  EXPECT_LE(name.size(), kMaxKvFileNameLength);
  EXPECT_EQ(name.find('/'), std::string::npos) << name;
  EXPECT_EQ(name.find('\0'), std::string::npos) << name;
  EXPECT_NE(name, ".");
  EXPECT_NE(name, "..");
}

void ExpectRoundTrip(const std::string& key, uint64_t seq) {
  const std::string name = KvFileName(key, seq);
  ExpectSafeName(name);
  std::string parsed = "junk";
  uint64_t parsed_seq = 0;
  bool hashed = true;
  ASSERT_TRUE(ParseKvFileName(name, &parsed, &parsed_seq, &hashed)) << name;
  EXPECT_EQ(parsed_seq, seq);
  EXPECT_EQ(hashed, KvFileNameIsHashed(key));
  if (hashed) {
    EXPECT_TRUE(parsed.empty());
  } else {
    EXPECT_EQ(parsed, key);
  }
}

TEST(KeyCodecTest, EverySingleByte) {
  std::set<std::string> names;
  for (int b = 0; b < 256; b++) {
    const std::string key(1, static_cast<char>(b));
    ExpectRoundTrip(key, 7);
    EXPECT_FALSE(KvFileNameIsHashed(key));
    names.insert(KvFileName(key, 7));
  }
  EXPECT_EQ(names.size(), 256u);  // all distinct
}

TEST(KeyCodecTest, AllBytesInOneKey) {
  std::string key;
  for (int b = 0; b < 256; b++) key.push_back(static_cast<char>(b));
  // 256 bytes escape to more than 255, so this key is hashed.
  EXPECT_TRUE(KvFileNameIsHashed(key));
  ExpectRoundTrip(key, 1);
  // The first 80 bytes still fit readably.
  ExpectRoundTrip(key.substr(0, 80), 1);
  ExpectRoundTrip(key.substr(176), 1);
}

TEST(KeyCodecTest, PathLikeKeys) {
  for (const char* k : {"/", ".", "..", "../..", "a/b", "/etc/passwd", "@", "%",
                        "%41", "@00000000000001", "META", "LONGKEYS"}) {
    ExpectRoundTrip(k, 42);
  }
  EXPECT_EQ(KvFileName("/", 1), "%2F@00000000000001");
  EXPECT_EQ(KvFileName(".", 1), ".@00000000000001");
  EXPECT_EQ(KvFileName("..", 2), "..@00000000000002");
}

TEST(KeyCodecTest, EmptyKey) {
  ExpectRoundTrip("", 0);
  EXPECT_EQ(KvFileName("", 0), "@00000000000000");
}

TEST(KeyCodecTest, PrintableKeysStayReadable) {
  EXPECT_EQ(KvFileName("user:1234 name", 0x1f),
            "user:1234 name@0000000000001f");
  EXPECT_EQ(KvFileName("a@b%c", 1), "a%40b%25c@00000000000001");
  EXPECT_EQ(KvFileName(std::string("x\0y\xff", 4), 1),
            "x%00y%FF@00000000000001");
}

TEST(KeyCodecTest, SequenceRange) {
  const uint64_t kMaxSeq = (1ull << 56) - 1;
  for (uint64_t seq :
       {uint64_t{0}, uint64_t{1}, uint64_t{255}, uint64_t{1} << 40, kMaxSeq}) {
    ExpectRoundTrip("k", seq);
  }
  EXPECT_EQ(KvFileName("k", kMaxSeq), "k@ffffffffffffff");
}

TEST(KeyCodecTest, LengthBoundary) {
  // 239 bytes of escaped key plus "@", 14 digits and the 'z' of a compressed
  // value is exactly 255.
  const std::string fits(239, 'a');
  EXPECT_FALSE(KvFileNameIsHashed(fits));
  EXPECT_EQ(KvFileName(fits, 3).size(), 254u);
  EXPECT_EQ(KvStoredFileName(fits, 3, /*compressed=*/true).size(), 255u);
  ExpectRoundTrip(fits, 3);
  const std::string too_long(240, 'a');
  EXPECT_TRUE(KvFileNameIsHashed(too_long));
  ExpectRoundTrip(too_long, 3);
  // 79 escaped bytes are 237 characters; 80 (240) are too many.
  EXPECT_FALSE(KvFileNameIsHashed(std::string(79, '\x01')));
  EXPECT_TRUE(KvFileNameIsHashed(std::string(80, '\x01')));
}

// Every stored name, compressed or not, fits a path component (a name the
// file system refuses would make the key unwritable), for printable,
// escaped and '/' keys of every length up to 300.
TEST(KeyCodecTest, StoredNamesFitForEveryKeyLength) {
  for (size_t len = 1; len <= 300; len++) {
    for (int kind = 0; kind < 3; kind++) {
      std::string key;
      for (size_t i = 0; i < len; i++) {
        key.push_back(kind == 0   ? static_cast<char>('a' + i % 26)
                      : kind == 1 ? static_cast<char>(0x80 + i % 100)
                                  : (i % 3 == 2 ? '/' : 'u'));
      }
      for (bool compressed : {false, true}) {
        const std::string name = KvStoredFileName(key, 0x123456, compressed);
        ExpectSafeName(name);
        std::string parsed;
        uint64_t seq;
        bool hashed, was_compressed;
        ASSERT_TRUE(ParseKvStoredFileName(name, &parsed, &seq, &hashed,
                                          &was_compressed))
            << name;
        EXPECT_EQ(was_compressed, compressed);
        EXPECT_EQ(seq, 0x123456u);
        if (!hashed) EXPECT_EQ(parsed, key);
      }
    }
  }
}

TEST(KeyCodecTest, LongKeys) {
  for (size_t n : {255u, 256u, 4096u, 65536u}) {
    std::string key(n, 'x');
    ExpectRoundTrip(key, 9);
    std::string binary;
    for (size_t i = 0; i < n; i++) binary.push_back(static_cast<char>(i * 7));
    ExpectRoundTrip(binary, 9);
  }
}

TEST(KeyCodecTest, HashedNamesDistinguishKeys) {
  std::set<std::string> names;
  std::string base(1000, 'k');
  for (int i = 0; i < 1000; i++) {
    std::string key = base;
    key[i] = 'j';  // differ in one byte, at every position
    names.insert(KvFileName(key, 5));
  }
  names.insert(KvFileName(base, 5));
  names.insert(KvFileName(base + "k", 5));
  EXPECT_EQ(names.size(), 1002u);
  // Same key, different sequence: different name.
  EXPECT_NE(KvFileName(base, 5), KvFileName(base, 6));
}

TEST(KeyCodecTest, ShortKeySpelledLikeAHashIsNotHashed) {
  const std::string long_key(300, 'z');
  const std::string hashed_name = KvFileName(long_key, 1);
  ASSERT_EQ(hashed_name[0], '#');
  // Use the hex digits of the hashed name as a short key.
  const std::string impostor = hashed_name.substr(0, 33);
  ExpectRoundTrip(impostor, 1);
  EXPECT_NE(KvFileName(impostor, 1), hashed_name);
}

TEST(KeyCodecTest, RejectsForeignNames) {
  std::string key;
  uint64_t seq;
  bool hashed;
  for (const char* name :
       {"META", "LONGKEYS", "", "@", "x@1", "x@0000000000000g",
        "x@0000000000000A", "x@000000000000001", "%41@00000000000001",
        "%4@00000000000001", "%zz@00000000000001", "%@00000000000001",
        "a%2f@00000000000001", "a@b@00000000000001", "foo.tmp"}) {
    EXPECT_FALSE(ParseKvFileName(name, &key, &seq, &hashed)) << name;
  }
  EXPECT_FALSE(ParseKvFileName(std::string("a\x01@00000000000001"), &key, &seq,
                               &hashed));
  EXPECT_FALSE(ParseKvFileName(std::string(241, 'a') + "@00000000000001", &key,
                               &seq, &hashed));
}

}  // namespace
}  // namespace leveldb
