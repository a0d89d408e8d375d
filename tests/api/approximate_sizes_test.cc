// GetApproximateSizes reports the bytes a key range
// occupies on disk, as LevelDB reports its table files' sizes: every KV
// file takes whole blocks, so 200-byte values take far more than 200 bytes
// each. Checked against the blocks the files really allocate (st_blocks),
// on a real file system. Public API only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::Range;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr int kKeys = 20000;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

// Bytes allocated by the regular files under `path` (each inode once).
uint64_t AllocatedUnder(const std::string& path,
                        std::set<std::pair<dev_t, ino_t>>* seen) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  if (S_ISREG(st.st_mode)) {
    if (!seen->insert({st.st_dev, st.st_ino}).second) return 0;
    return static_cast<uint64_t>(st.st_blocks) * 512;
  }
  if (!S_ISDIR(st.st_mode)) return 0;
  uint64_t total = 0;
  for (const std::string& name : delsm_test::ListDir(path)) {
    total += AllocatedUnder(path + "/" + name, seen);
  }
  return total;
}

// Run in pure mode (every value a KV file) and with the default
// inline_threshold (200-byte values inline in the meta files).
class ApproximateSizesTest : public testing::TestWithParam<bool> {};

TEST_P(ApproximateSizesTest, ReportsBytesOnDisk) {
  const bool pure = GetParam();
  delsm_test::TempDir parent("delsm_approx");
  ASSERT_FALSE(parent.path().empty());
  const std::string dbname = parent.path() + "/db";
  Options options;
  options.create_if_missing = true;
  delsm::Tuning tuning;
  if (pure) tuning.inline_threshold = 0;
  DB* raw = nullptr;
  Status s = delsm::Open(options, tuning, dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys; i++) {
    std::string value(200, static_cast<char>('a' + i % 26));
    value[0] = static_cast<char>(i);
    s = db->Put(WriteOptions(), Key(i), value);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  db->CompactRange(nullptr, nullptr);

  std::set<std::pair<dev_t, ino_t>> seen;
  uint64_t on_disk = 0;
  for (int level = 0; level < 7; level++) {
    on_disk += AllocatedUnder(dbname + "/L" + std::to_string(level), &seen);
  }
  // Pure mode: at least the value bytes (each KV file a whole block);
  // inline values compress in the meta files, which still take space.
  ASSERT_GT(on_disk, pure ? static_cast<uint64_t>(kKeys) * 200 : 0);

  const std::string first = Key(0), middle = Key(kKeys / 2), end = Key(kKeys);
  Range ranges[3] = {Range(first, end), Range(first, middle),
                     Range(middle, end)};
  uint64_t sizes[3];
  db->GetApproximateSizes(ranges, 3, sizes);
  std::printf(
      "allocated under L*/: %llu bytes; reported: all %llu, "
      "first half %llu, second half %llu\n",
      static_cast<unsigned long long>(on_disk),
      static_cast<unsigned long long>(sizes[0]),
      static_cast<unsigned long long>(sizes[1]),
      static_cast<unsigned long long>(sizes[2]));
  // Within 10% of what the files allocate (the file system may allocate a
  // little more or less than whole 4 KiB blocks per file).
  EXPECT_GE(sizes[0], on_disk - on_disk / 10);
  EXPECT_LE(sizes[0], on_disk + on_disk / 10);
  // The halves hold equal numbers of equal values.
  EXPECT_GE(sizes[1], sizes[0] * 4 / 10);
  EXPECT_LE(sizes[1], sizes[0] * 6 / 10);
  EXPECT_GE(sizes[2], sizes[0] * 4 / 10);
  EXPECT_LE(sizes[2], sizes[0] * 6 / 10);
  // An empty range is empty.
  Range none(middle, middle);
  uint64_t zero = 1;
  db->GetApproximateSizes(&none, 1, &zero);
  EXPECT_EQ(0u, zero);
}

INSTANTIATE_TEST_SUITE_P(Modes, ApproximateSizesTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "pure" : "default");
                         });

}  // namespace
