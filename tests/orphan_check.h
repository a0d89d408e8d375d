// What a reopened database must not have left on disk: SST directories the
// live version does not list, and, inside the listed ones, entries their
// meta file does not name (or named KV files that are missing). Shared by
// the power-loss and fault-sweep tests, which call it after a reopen once
// background work has settled.
#ifndef DELSM_TESTS_ORPHAN_CHECK_H_
#define DELSM_TESTS_ORPHAN_CHECK_H_

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "delsm/file_system.h"
#include "delsm/key_codec.h"
#include "leveldb/db.h"
#include "table/meta_file.h"
#include "tests/test_support.h"

namespace delsm_test {

// Checks `dbname`'s level directories against `db`'s "leveldb.sstables"
// property (`db` open on dbname, background work finished). Returns an
// empty string if nothing is orphaned or missing, else a description of
// the first few problems.
inline std::string FindOrphans(leveldb::DB* db, const std::string& dbname) {
  std::string sstables;
  if (!db->GetProperty("leveldb.sstables", &sstables)) {
    return "no leveldb.sstables property";
  }
  std::set<uint64_t> listed;
  std::istringstream in(sstables);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == ' ') {
      listed.insert(std::strtoull(line.c_str() + 1, nullptr, 10));
    }
  }
  std::string problems;
  int count = 0;
  auto report = [&](const std::string& what) {
    if (count++ < 5) problems += what + "; ";
  };
  leveldb::FileSystem* fs = leveldb::FileSystem::Default();
  for (int level = 0; level < 7; level++) {
    const std::string level_dir = dbname + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(level_dir)) {
      const std::string path = level_dir + "/" + d;
      if (listed.count(std::strtoull(d.c_str(), nullptr, 10)) == 0) {
        report("orphan directory " + path);
        continue;
      }
      // Every entry of a live directory is its META, its LONGKEYS, or a
      // KV file the meta file names; every named KV file is there.
      std::unique_ptr<leveldb::Directory> dir;
      std::string meta;
      leveldb::MetaFileContents contents;
      leveldb::Status s = fs->OpenDirectory(path, &dir);
      if (s.ok()) s = dir->ReadFile(leveldb::kMetaFileName, &meta);
      if (s.ok()) s = leveldb::DecodeMetaFile(meta, path, &contents);
      if (!s.ok()) {
        report(path + ": " + s.ToString());
        continue;
      }
      std::set<std::string> expected = {leveldb::kMetaFileName,
                                        leveldb::kLongKeysFileName};
      for (const leveldb::MetaEntry& e : contents.entries) {
        if (!leveldb::StoredInFile(e.storage)) continue;
        leveldb::ParsedInternalKey ikey;
        if (!leveldb::ParseInternalKey(e.internal_key, &ikey)) {
          report(path + ": bad internal key in META");
          continue;
        }
        const std::string name = leveldb::KvStoredFileName(
            ikey.user_key, ikey.sequence,
            e.storage == leveldb::ValueStorage::kFileSnappy);
        expected.insert(name);
        if (!fs->Exists(path + "/" + name)) {
          report("missing KV file " + path + "/" + name);
        }
      }
      for (const std::string& name : ListDir(path)) {
        if (expected.count(name) == 0) {
          report("orphan link " + path + "/" + name);
        }
      }
    }
  }
  if (count > 5) problems += std::to_string(count - 5) + " more";
  return problems;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_ORPHAN_CHECK_H_
