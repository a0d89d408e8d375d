#include "leveldb/write_batch.h"

#include <string>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/iterator.h"

namespace leveldb {
namespace {

// Applies `b` to a fresh memtable and renders its contents, e.g.
// "Put(a, va)@100Delete(b)@101", followed by any error.
std::string PrintContents(const WriteBatch* b) {
  InternalKeyComparator cmp(BytewiseComparator());
  MemTable* mem = new MemTable(cmp);
  mem->Ref();
  std::string state;
  Status s = WriteBatchInternal::InsertInto(b, mem);
  int count = 0;
  Iterator* iter = mem->NewIterator();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    ParsedInternalKey ikey;
    EXPECT_TRUE(ParseInternalKey(iter->key(), &ikey));
    if (ikey.type == kTypeValue) {
      state += "Put(" + ikey.user_key.ToString() + ", " +
               iter->value().ToString() + ")";
    } else {
      state += "Delete(" + ikey.user_key.ToString() + ")";
    }
    state += "@" + std::to_string(ikey.sequence);
    count++;
  }
  delete iter;
  if (!s.ok()) {
    state += "ParseError()";
  } else if (count != WriteBatchInternal::Count(b)) {
    state += "CountMismatch()";
  }
  mem->Unref();
  return state;
}

// Records the calls Iterate() makes.
class Recorder : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice& value) override {
    log += "Put(" + key.ToString() + "," + value.ToString() + ")";
  }
  void Delete(const Slice& key) override {
    log += "Delete(" + key.ToString() + ")";
  }
  std::string log;
};

TEST(WriteBatchTest, Empty) {
  WriteBatch batch;
  EXPECT_EQ("", PrintContents(&batch));
  EXPECT_EQ(0, WriteBatchInternal::Count(&batch));
  EXPECT_EQ(WriteBatchInternal::kHeader, WriteBatchInternal::ByteSize(&batch));
  Recorder r;
  EXPECT_TRUE(batch.Iterate(&r).ok());
  EXPECT_EQ("", r.log);
}

TEST(WriteBatchTest, Multiple) {
  WriteBatch batch;
  batch.Put(Slice("foo"), Slice("bar"));
  batch.Delete(Slice("box"));
  batch.Put(Slice("baz"), Slice("boo"));
  WriteBatchInternal::SetSequence(&batch, 100);
  EXPECT_EQ(100u, WriteBatchInternal::Sequence(&batch));
  EXPECT_EQ(3, WriteBatchInternal::Count(&batch));
  EXPECT_EQ("Put(baz, boo)@102Delete(box)@101Put(foo, bar)@100",
            PrintContents(&batch));
  Recorder r;
  EXPECT_TRUE(batch.Iterate(&r).ok());
  EXPECT_EQ("Put(foo,bar)Delete(box)Put(baz,boo)", r.log);
}

TEST(WriteBatchTest, EncodingIsTheWalFormat) {
  WriteBatch batch;
  WriteBatchInternal::SetSequence(&batch, 0x0102030405060708ull);
  batch.Put("k", "vv");
  batch.Delete("d");
  std::string expected;
  PutFixed64(&expected, 0x0102030405060708ull);
  PutFixed32(&expected, 2);
  expected.push_back(static_cast<char>(kTypeValue));
  expected += std::string("\x01k\x02vv", 5);
  expected.push_back(static_cast<char>(kTypeDeletion));
  expected += std::string(
      "\x01"
      "d",
      2);
  EXPECT_EQ(expected, WriteBatchInternal::Contents(&batch).ToString());

  // SetContents round-trips (what WAL replay does).
  WriteBatch replay;
  WriteBatchInternal::SetContents(&replay, expected);
  EXPECT_EQ(2, WriteBatchInternal::Count(&replay));
  EXPECT_EQ(0x0102030405060708ull, WriteBatchInternal::Sequence(&replay));
  Recorder r;
  EXPECT_TRUE(replay.Iterate(&r).ok());
  EXPECT_EQ("Put(k,vv)Delete(d)", r.log);
}

TEST(WriteBatchTest, CorruptionIsReported) {
  WriteBatch batch;
  batch.Put(Slice("foo"), Slice("bar"));
  batch.Delete(Slice("box"));
  WriteBatchInternal::SetSequence(&batch, 200);
  const std::string good = WriteBatchInternal::Contents(&batch).ToString();

  // Truncated inside the last record: the first is applied, then an error.
  WriteBatch truncated;
  WriteBatchInternal::SetContents(&truncated,
                                  Slice(good.data(), good.size() - 1));
  EXPECT_EQ("Put(foo, bar)@200ParseError()", PrintContents(&truncated));
  Recorder r;
  Status s = truncated.Iterate(&r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  // Truncated inside a value's length-prefixed bytes.
  WriteBatch cut_value;
  WriteBatchInternal::SetContents(
      &cut_value, Slice(good.data(), WriteBatchInternal::kHeader + 6));
  EXPECT_TRUE(cut_value.Iterate(&r).IsCorruption());

  // Unknown record tag.
  std::string bad_tag = good;
  bad_tag[WriteBatchInternal::kHeader] = 0x7;
  WriteBatch tagged;
  WriteBatchInternal::SetContents(&tagged, bad_tag);
  EXPECT_TRUE(tagged.Iterate(&r).IsCorruption());

  // Count in the header disagrees with the records.
  WriteBatch miscounted = batch;
  WriteBatchInternal::SetCount(&miscounted, 3);
  EXPECT_TRUE(miscounted.Iterate(&r).IsCorruption());
  WriteBatchInternal::SetCount(&miscounted, 1);
  EXPECT_TRUE(miscounted.Iterate(&r).IsCorruption());

  // A record length pointing far past the end.
  std::string huge_len = good.substr(0, WriteBatchInternal::kHeader);
  huge_len.push_back(static_cast<char>(kTypeDeletion));
  PutVarint32(&huge_len, 1000000);
  huge_len += "x";
  WriteBatch overlong;
  WriteBatchInternal::SetContents(&overlong, huge_len);
  EXPECT_TRUE(overlong.Iterate(&r).IsCorruption());
}

TEST(WriteBatchTest, Append) {
  WriteBatch b1, b2;
  WriteBatchInternal::SetSequence(&b1, 200);
  WriteBatchInternal::SetSequence(&b2, 300);
  b1.Append(b2);
  EXPECT_EQ("", PrintContents(&b1));
  b2.Put("a", "va");
  b1.Append(b2);
  EXPECT_EQ("Put(a, va)@200", PrintContents(&b1));
  b2.Clear();
  b2.Put("b", "vb");
  b1.Append(b2);
  EXPECT_EQ("Put(a, va)@200Put(b, vb)@201", PrintContents(&b1));
  b2.Delete("foo");
  b1.Append(b2);
  EXPECT_EQ("Put(a, va)@200Put(b, vb)@202Put(b, vb)@201Delete(foo)@203",
            PrintContents(&b1));
  EXPECT_EQ(200u, WriteBatchInternal::Sequence(&b1));
  EXPECT_EQ(4, WriteBatchInternal::Count(&b1));
}

TEST(WriteBatchTest, ClearResetsEverything) {
  WriteBatch batch;
  WriteBatchInternal::SetSequence(&batch, 7);
  batch.Put("a", "b");
  batch.Clear();
  EXPECT_EQ(0, WriteBatchInternal::Count(&batch));
  EXPECT_EQ(0u, WriteBatchInternal::Sequence(&batch));
  EXPECT_EQ(WriteBatchInternal::kHeader, batch.ApproximateSize());
  batch.Put("c", "d");
  EXPECT_EQ("Put(c, d)@0", PrintContents(&batch));
}

TEST(WriteBatchTest, ApproximateSize) {
  WriteBatch batch;
  const size_t empty_size = batch.ApproximateSize();
  batch.Put(Slice("foo"), Slice("bar"));
  const size_t one_key_size = batch.ApproximateSize();
  EXPECT_LT(empty_size, one_key_size);
  batch.Put(Slice("baz"), Slice("boo"));
  const size_t two_keys_size = batch.ApproximateSize();
  EXPECT_LT(one_key_size, two_keys_size);
  batch.Delete(Slice("box"));
  EXPECT_LT(two_keys_size, batch.ApproximateSize());
}

TEST(WriteBatchTest, CopyIsIndependent) {
  WriteBatch a;
  a.Put("k", "v");
  WriteBatch b = a;
  b.Delete("x");
  EXPECT_EQ(1, WriteBatchInternal::Count(&a));
  EXPECT_EQ(2, WriteBatchInternal::Count(&b));
}

TEST(WriteBatchTest, BinaryAndLargeEntries) {
  WriteBatch batch;
  const std::string key("\0/\xff", 3);
  const std::string value(300000, '\0');
  batch.Put(key, value);
  batch.Put("", "");
  Recorder r;
  ASSERT_TRUE(batch.Iterate(&r).ok());
  EXPECT_EQ("Put(" + key + "," + value + ")Put(,)", r.log);
}

}  // namespace
}  // namespace leveldb
