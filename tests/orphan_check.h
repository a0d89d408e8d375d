// What a reopened database must not have left on disk: SST directories the
// live version does not list (or lists at another level), and, inside the
// listed ones, entries none of its live meta files owns, KV files a meta
// file names that are missing, and KV files with more than one link (a
// link a compaction should have dropped); and, for values that stay put,
// homes no live entry names, files in homes no live entry names, and
// named files missing or with more than one link. Shared by the crash,
// power-loss, fault-sweep and soak tests, which call it after a reopen once
// background work has settled.
#ifndef DELSM_TESTS_ORPHAN_CHECK_H_
#define DELSM_TESTS_ORPHAN_CHECK_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "tests/test_support.h"

namespace delsm_test {

// The live SSTs a "leveldb.sstables" property lists, per level, each as
// "<dir>.sst/<meta file>": its lines look like
// " 000031.sst/META-000212: ..." under "--- level N ---".
inline std::map<int, std::set<std::string>> ListedSsts(
    const std::string& sstables) {
  std::map<int, std::set<std::string>> listed;
  std::istringstream in(sstables);
  std::string line;
  int level = -1;
  while (std::getline(in, line)) {
    if (line.rfind("--- level ", 0) == 0) {
      level = std::atoi(line.c_str() + 10);
    } else if (!line.empty() && line[0] == ' ' && level >= 0) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      listed[level].insert(line.substr(1, colon - 1));
    }
  }
  return listed;
}

// The findings for database `dbname` given the text of its
// "leveldb.sstables" property, taken while it was open with no background
// work pending (the database may be closed since). Empty means clean.
inline std::vector<std::string> OrphanSstEntries(const std::string& dbname,
                                                 const std::string& sstables) {
  std::map<int, std::map<std::string, std::set<std::string>>> listed;
  for (const auto& level : ListedSsts(sstables)) {
    for (const std::string& sst : level.second) {
      const size_t slash = sst.find('/');
      if (slash == std::string::npos) continue;
      listed[level.first][sst.substr(0, slash)].insert(sst.substr(slash + 1));
    }
  }
  std::vector<std::string> findings;
  std::map<uint64_t, std::set<std::string>> home_named;
  leveldb::FileSystem* fs = leveldb::FileSystem::Default();
  for (int lvl = 0; lvl < 7; lvl++) {
    const std::string level_dir = dbname + "/L" + std::to_string(lvl);
    for (const std::string& d : ListDir(level_dir)) {
      const std::string path = level_dir + "/" + d;
      auto it = listed[lvl].find(d);
      if (it == listed[lvl].end()) {
        findings.push_back("orphan directory " + path);
        continue;
      }
      // Every entry is a live SST's meta or LONGKEYS file, or a KV file
      // one of them names; every named KV file is there, with one link.
      std::set<std::string> expected;
      std::unique_ptr<leveldb::Directory> dir;
      leveldb::Status s = fs->OpenDirectory(path, &dir);
      for (const std::string& meta_name : it->second) {
        std::string meta;
        leveldb::MetaFileContents contents;
        if (s.ok()) s = dir->ReadFile(meta_name, &meta);
        if (s.ok()) s = leveldb::DecodeMetaFile(meta, path, &contents);
        if (!s.ok()) break;
        expected.insert(meta_name);
        expected.insert("LONGKEYS" + meta_name.substr(4));  // same suffix
        for (const leveldb::MetaEntry& e : contents.entries) {
          leveldb::ParsedInternalKey ikey;
          if (!leveldb::HasKvFile(e.storage)) continue;
          if (!leveldb::ParseInternalKey(e.internal_key, &ikey)) {
            findings.push_back(path + "/" + meta_name + ": bad internal key");
            continue;
          }
          const std::string name =
              leveldb::KvStoredFileName(ikey.user_key, ikey.sequence,
                                        leveldb::StoredCompressed(e.storage));
          std::string where = path + "/" + name;
          if (leveldb::StoredInHome(e.storage)) {
            if (!home_named[e.home].insert(name).second) {
              findings.push_back("two live entries name " + name + " in home " +
                                 std::to_string(e.home));
            }
            where =
                dbname + "/values/" + leveldb::HomeDirName(e.home) + "/" + name;
          } else {
            expected.insert(name);
          }
          struct stat st;
          if (lstat(where.c_str(), &st) != 0) {
            findings.push_back("missing KV file " + where + ": " +
                               std::strerror(errno));
          } else if (st.st_nlink != 1) {
            findings.push_back(std::to_string(st.st_nlink) + " links to " +
                               where);
          }
        }
      }
      if (!s.ok()) {
        findings.push_back(path + ": " + s.ToString());
        continue;
      }
      for (const std::string& name : ListDir(path)) {
        if (expected.count(name) == 0) {
          findings.push_back("orphan link " + path + "/" + name);
        }
      }
    }
  }
  // Homes: every one, and every file in it, named by a live entry.
  const std::string values = dbname + "/values";
  struct stat vst;
  if (lstat(values.c_str(), &vst) == 0) {
    for (const std::string& h : ListDir(values)) {
      uint64_t home = 0;
      auto it = leveldb::ParseHomeDirName(h, &home) ? home_named.find(home)
                                                    : home_named.end();
      if (it == home_named.end()) {
        findings.push_back("orphan home " + values + "/" + h);
        continue;
      }
      for (const std::string& name : ListDir(values + "/" + h)) {
        if (it->second.count(name) == 0) {
          findings.push_back("orphan value " + values + "/" + h + "/" + name);
        }
      }
    }
  }
  return findings;
}

// The same check on an open database `db` at `dbname` (background work
// finished). Returns an empty string if clean, else the first findings.
inline std::string FindOrphans(leveldb::DB* db, const std::string& dbname) {
  std::string sstables;
  if (!db->GetProperty("leveldb.sstables", &sstables)) {
    return "no leveldb.sstables property";
  }
  const std::vector<std::string> findings = OrphanSstEntries(dbname, sstables);
  std::string problems;
  for (size_t i = 0; i < findings.size() && i < 5; i++) {
    problems += findings[i] + "; ";
  }
  if (findings.size() > 5) {
    problems += std::to_string(findings.size() - 5) + " more";
  }
  return problems;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_ORPHAN_CHECK_H_
