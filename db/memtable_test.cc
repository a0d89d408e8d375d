#include "db/memtable.h"

#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/iterator.h"

namespace leveldb {
namespace {

class MemTableTest : public testing::Test {
 protected:
  MemTableTest() : icmp_(BytewiseComparator()), mem_(new MemTable(icmp_)) {
    mem_->Ref();
  }
  ~MemTableTest() override { mem_->Unref(); }

  // Returns "NOT_IN_TABLE", "DELETED" or the value of `key` at `seq`.
  std::string Get(const std::string& key, SequenceNumber seq) {
    LookupKey lk(key, seq);
    std::string value;
    Status s;
    if (!mem_->Get(lk, &value, &s)) return "NOT_IN_TABLE";
    if (s.IsNotFound()) return "DELETED";
    EXPECT_TRUE(s.ok());
    return value;
  }

  InternalKeyComparator icmp_;
  MemTable* mem_;
};

TEST_F(MemTableTest, EmptyTable) {
  EXPECT_EQ("NOT_IN_TABLE", Get("a", 100));
  EXPECT_EQ(0u, mem_->NumEntries());
  Iterator* iter = mem_->NewIterator();
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().ok());
  delete iter;
}

TEST_F(MemTableTest, GetHonoursSequenceAndDeletions) {
  mem_->Add(1, kTypeValue, "k", "v1");
  mem_->Add(3, kTypeDeletion, "k", "ignored");
  mem_->Add(5, kTypeValue, "k", "v5");
  mem_->Add(2, kTypeValue, "other", "o2");
  EXPECT_EQ(4u, mem_->NumEntries());

  EXPECT_EQ("NOT_IN_TABLE", Get("k", 0));
  EXPECT_EQ("v1", Get("k", 1));
  EXPECT_EQ("v1", Get("k", 2));
  EXPECT_EQ("DELETED", Get("k", 3));
  EXPECT_EQ("DELETED", Get("k", 4));
  EXPECT_EQ("v5", Get("k", 5));
  EXPECT_EQ("v5", Get("k", kMaxSequenceNumber));
  EXPECT_EQ("NOT_IN_TABLE", Get("other", 1));
  EXPECT_EQ("o2", Get("other", 2));
  // Neighbouring keys are not confused with each other.
  EXPECT_EQ("NOT_IN_TABLE", Get("j", 100));
  EXPECT_EQ("NOT_IN_TABLE", Get("ka", 100));
  EXPECT_EQ("NOT_IN_TABLE", Get("", 100));
}

TEST_F(MemTableTest, BinaryKeysValuesAndLargeEntries) {
  const std::string nul_key("a\0b", 3);
  const std::string big_key(100000, 'k');
  const std::string big_value(1 << 20, 'v');
  mem_->Add(1, kTypeValue, nul_key, std::string("\0\xff", 2));
  mem_->Add(2, kTypeValue, big_key, big_value);
  mem_->Add(3, kTypeValue, "", "empty-key");
  mem_->Add(4, kTypeValue, "empty-value", "");
  EXPECT_EQ(std::string("\0\xff", 2), Get(nul_key, 10));
  EXPECT_EQ("NOT_IN_TABLE", Get("a", 10));
  EXPECT_EQ(big_value, Get(big_key, 10));
  EXPECT_EQ("empty-key", Get("", 10));
  EXPECT_EQ("", Get("empty-value", 10));
  EXPECT_GE(mem_->ApproximateMemoryUsage(), big_key.size() + big_value.size());
}

TEST_F(MemTableTest, IteratorYieldsInternalKeysInOrder) {
  mem_->Add(1, kTypeValue, "b", "b1");
  mem_->Add(2, kTypeValue, "a", "a2");
  mem_->Add(3, kTypeValue, "b", "b3");
  mem_->Add(4, kTypeDeletion, "c", "");
  mem_->Add(5, kTypeValue, "a", "a5");

  const std::vector<std::pair<ParsedInternalKey, std::string>> expected = {
      {ParsedInternalKey("a", 5, kTypeValue), "a5"},
      {ParsedInternalKey("a", 2, kTypeValue), "a2"},
      {ParsedInternalKey("b", 3, kTypeValue), "b3"},
      {ParsedInternalKey("b", 1, kTypeValue), "b1"},
      {ParsedInternalKey("c", 4, kTypeDeletion), ""},
  };
  Iterator* iter = mem_->NewIterator();
  iter->SeekToFirst();
  for (const auto& e : expected) {
    ASSERT_TRUE(iter->Valid());
    ParsedInternalKey got;
    ASSERT_TRUE(ParseInternalKey(iter->key(), &got));
    EXPECT_EQ(e.first.DebugString(), got.DebugString());
    EXPECT_EQ(e.second, iter->value().ToString());
    iter->Next();
  }
  EXPECT_FALSE(iter->Valid());

  // Backwards.
  iter->SeekToLast();
  for (auto it = expected.rbegin(); it != expected.rend(); ++it) {
    ASSERT_TRUE(iter->Valid());
    ParsedInternalKey got;
    ASSERT_TRUE(ParseInternalKey(iter->key(), &got));
    EXPECT_EQ(it->first.DebugString(), got.DebugString());
    iter->Prev();
  }
  EXPECT_FALSE(iter->Valid());

  // Seek takes an internal key: "b" as of sequence 2 lands on b@1.
  std::string target;
  AppendInternalKey(&target, ParsedInternalKey("b", 2, kValueTypeForSeek));
  iter->Seek(target);
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b1", iter->value().ToString());
  iter->Seek(InternalKey("zzz", 9, kTypeValue).Encode());
  EXPECT_FALSE(iter->Valid());
  delete iter;
}

TEST_F(MemTableTest, IteratorSeesEntriesAddedWhileOpen) {
  Iterator* iter = mem_->NewIterator();
  mem_->Add(1, kTypeValue, "x", "1");
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("x", ExtractUserKey(iter->key()).ToString());
  delete iter;
}

TEST_F(MemTableTest, MemoryUsageGrows) {
  const size_t before = mem_->ApproximateMemoryUsage();
  for (int i = 0; i < 1000; i++) {
    mem_->Add(i + 1, kTypeValue, "key" + std::to_string(i),
              std::string(100, 'v'));
  }
  EXPECT_GE(mem_->ApproximateMemoryUsage(), before + 1000 * 100);
  EXPECT_EQ(1000u, mem_->NumEntries());
}

TEST(MemTableRefTest, SharedOwnership) {
  InternalKeyComparator icmp(BytewiseComparator());
  MemTable* mem = new MemTable(icmp);
  mem->Ref();
  mem->Ref();
  mem->Add(1, kTypeValue, "k", "v");
  mem->Unref();  // Still referenced once: must remain usable.
  LookupKey lk("k", 1);
  std::string value;
  Status s;
  EXPECT_TRUE(mem->Get(lk, &value, &s));
  EXPECT_EQ("v", value);
  mem->Unref();  // Deletes (checked by ASan builds).
}

}  // namespace
}  // namespace leveldb
