// A LevelDB client for the DELSM_OPTIONS drop-in test (dropin_test): built
// against the system's LevelDB headers and linked with Debian's
// libleveldb.so.1d, like dropin_client, but it keeps its database so the
// test can read the LOG. Opens (creating) <dir>, writes and reads one key,
// closes, and prints the open status as "open: <kind> <message>".
//
// Usage: options_client <database folder>
#include <cstdio>
#include <memory>
#include <string>

#include "leveldb/db.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <database folder>\n", argv[0]);
    return 2;
  }
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, argv[1], &raw);
  std::printf("open: %s %s\n",
              s.ok()                  ? "OK"
              : s.IsInvalidArgument() ? "InvalidArgument"
                                      : "Other",
              s.ToString().c_str());
  if (!s.ok()) return 1;
  std::unique_ptr<leveldb::DB> db(raw);
  std::string value;
  s = db->Put(leveldb::WriteOptions(), "key", "value");
  if (s.ok()) s = db->Get(leveldb::ReadOptions(), "key", &value);
  std::printf("put/get: %s %s\n", s.ToString().c_str(), value.c_str());
  return s.ok() && value == "value" ? 0 : 1;
}
