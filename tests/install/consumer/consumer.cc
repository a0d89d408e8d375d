// An installed-DeLSM consumer: LevelDB's API from the system headers, DeLSM's
// tuning from <delsm/delsm.h>. Writes, reads back and iterates a small
// database in the given folder and prints "consumer: ok" on success.
#include <cstdio>
#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "leveldb/db.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <new database folder>\n", argv[0]);
    return 2;
  }
  delsm::Tuning tuning;
  leveldb::Status s = delsm::ParseTuning("durability=fsync", &tuning);
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* raw = nullptr;
  if (s.ok()) s = delsm::Open(options, tuning, argv[1], &raw);
  std::unique_ptr<leveldb::DB> db(raw);
  for (int i = 0; s.ok() && i < 100; i++) {
    s = db->Put(leveldb::WriteOptions(), "key" + std::to_string(i),
                std::string(i, 'v'));
  }
  std::string value;
  if (s.ok()) s = db->Get(leveldb::ReadOptions(), "key42", &value);
  if (s.ok() && value != std::string(42, 'v')) {
    s = leveldb::Status::Corruption("key42 has the wrong value");
  }
  int count = 0;
  if (s.ok()) {
    std::unique_ptr<leveldb::Iterator> it(
        db->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) count++;
    s = it->status();
  }
  if (s.ok() && count != 100) s = leveldb::Status::Corruption("lost keys");
  db.reset();
  if (s.ok()) s = leveldb::DestroyDB(argv[1], options);
  if (!s.ok()) {
    std::fprintf(stderr, "consumer: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("consumer: ok (%s)\n", delsm::TuningToString(tuning).c_str());
  return 0;
}
