// delsm_demo: writes keys through the LevelDB API, lets DeLSM flush them
// into L0 SST directories, reads everything back, prints the on-disk layout,
// then compacts and prints it again: the KV files keep their inode numbers
// (the value bytes never move; only directory entries do).
//
// Usage: delsm_demo [db_path] [num_keys]
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "leveldb/db.h"
#include "leveldb/write_batch.h"

namespace {

std::string KeyFor(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user:%06d", i);
  return buf;
}

std::string ValueFor(int i, size_t size) {
  std::string v(size, 'a' + (i % 26));
  std::snprintf(&v[0], size, "value-%d", i);  // distinct head, padded tail
  return v;
}

std::vector<std::string> ListSorted(const std::string& path) {
  std::vector<std::string> names;
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Prints each level's SST directories and, for the first few KV files of
// each, name, size, 512-byte blocks, inode and link count.
void PrintLayout(const std::string& db) {
  for (const std::string& top : ListSorted(db)) {
    const std::string path = db + "/" + top;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {
      std::printf("  %-28s %8lld bytes\n", top.c_str(),
                  static_cast<long long>(st.st_size));
      continue;
    }
    std::vector<std::string> dirs = ListSorted(path);
    std::printf("  %s/  (%zu SST directories)\n", top.c_str(), dirs.size());
    for (const std::string& dir : dirs) {
      std::vector<std::string> files = ListSorted(path + "/" + dir);
      std::printf("    %s/  (%zu entries)\n", dir.c_str(), files.size());
      int shown = 0;
      for (const std::string& f : files) {
        if (shown++ == 4) {
          std::printf("      ...\n");
          break;
        }
        const std::string fp = path + "/" + dir + "/" + f;
        if (lstat(fp.c_str(), &st) != 0) continue;
        std::printf("      %-28s %6lld bytes %3lld blocks  inode %-10llu links %llu\n",
                    f.c_str(), static_cast<long long>(st.st_size),
                    static_cast<long long>(st.st_blocks),
                    static_cast<unsigned long long>(st.st_ino),
                    static_cast<unsigned long long>(st.st_nlink));
      }
    }
  }
}

// KV file name -> inode, over every SST directory of every level.
std::map<std::string, ino_t> KvInodes(const std::string& db) {
  std::map<std::string, ino_t> inodes;
  for (const std::string& level : ListSorted(db)) {
    if (level.size() != 2 || level[0] != 'L') continue;
    for (const std::string& dir : ListSorted(db + "/" + level)) {
      for (const std::string& f : ListSorted(db + "/" + level + "/" + dir)) {
        if (f == "META" || f == "LONGKEYS") continue;
        struct stat st;
        const std::string path = db + "/" + level + "/" + dir + "/" + f;
        if (lstat(path.c_str(), &st) == 0) inodes[f] = st.st_ino;
      }
    }
  }
  return inodes;
}

int Fail(const leveldb::Status& s, const char* what) {
  std::fprintf(stderr, "delsm_demo: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string db_path = argc > 1 ? argv[1] : "/tmp/delsm-demo";
  const int num = argc > 2 ? std::atoi(argv[2]) : 3000;
  if (num <= 0) {
    std::fprintf(stderr, "delsm_demo: num_keys must be a positive number\n");
    return 2;
  }
  const size_t value_size = 4096;

  leveldb::Options options;
  options.create_if_missing = true;
  options.compression = leveldb::kNoCompression;
  options.write_buffer_size = 1 << 20;  // small, so flushes happen
  leveldb::DestroyDB(db_path, options);

  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, db_path, &db);
  if (!s.ok()) return Fail(s, "open");

  for (int i = 0; i < num && s.ok(); i++) {
    s = db->Put(leveldb::WriteOptions(), KeyFor(i), ValueFor(i, value_size));
  }
  for (int i = 0; i < num && s.ok(); i += 10) {
    s = db->Delete(leveldb::WriteOptions(), KeyFor(i));  // tombstones: no file
  }
  if (!s.ok()) return Fail(s, "write");

  // Wait until every immutable memtable is flushed into L0.
  std::string imm;
  for (int tries = 0; tries < 600; tries++) {
    if (db->GetProperty("delsm.immutable-memtables", &imm) && imm == "0") break;
    usleep(10000);
  }

  int found = 0, missing_as_expected = 0, wrong = 0;
  for (int i = 0; i < num; i++) {
    std::string v;
    leveldb::Status g = db->Get(leveldb::ReadOptions(), KeyFor(i), &v);
    if (i % 10 == 0) {
      g.IsNotFound() ? missing_as_expected++ : wrong++;
    } else if (g.ok() && v == ValueFor(i, value_size)) {
      found++;
    } else {
      wrong++;
    }
  }
  std::printf("wrote %d keys of %zu-byte values, deleted every 10th\n", num,
              value_size);
  std::printf("read back: %d found, %d deleted as expected, %d wrong\n", found,
              missing_as_expected, wrong);

  std::string prop;
  std::printf("\nOn-disk layout after flushes (%s):\n", db_path.c_str());
  PrintLayout(db_path);

  const std::map<std::string, ino_t> before = KvInodes(db_path);
  db->CompactRange(nullptr, nullptr);
  const std::map<std::string, ino_t> after = KvInodes(db_path);
  int same = 0, changed = 0;
  for (const auto& kv : after) {
    auto it = before.find(kv.first);
    if (it == before.end()) continue;  // flushed during the compaction
    (it->second == kv.second ? same : changed)++;
  }
  std::printf("\nAfter CompactRange (values linked, never copied):\n");
  PrintLayout(db_path);
  std::printf("\nKV files surviving the compaction: %d kept their inode, %d "
              "changed; %zu files before, %zu after\n",
              same, changed, before.size(), after.size());
  if (db->GetProperty("leveldb.stats", &prop)) std::printf("\n%s", prop.c_str());
  if (db->GetProperty("delsm.stats", &prop)) std::printf("\n%s", prop.c_str());
  if (changed != 0) wrong++;
  delete db;
  return wrong == 0 ? 0 : 1;
}
