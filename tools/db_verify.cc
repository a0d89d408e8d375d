#include "tools/db_verify.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/version.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "tools/tool_util.h"
#include "util/crc32c.h"

namespace delsm_tool {

namespace {

using leveldb::Status;

std::string ErrnoText(const char* call) {
  return std::string(call) + ": " + std::strerror(errno);
}

// Names in `path`; false (with errno set) if it cannot be listed.
bool ListNames(const std::string& path, std::set<std::string>* names) {
  names->clear();
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return false;
  errno = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names->insert(n);
    errno = 0;
  }
  const int err = errno;
  if (closedir(d) != 0) return false;
  errno = err;
  return err == 0;
}

// Reads the KV file at `path` whole and compares length and masked crc32c.
void CheckKvFile(const std::string& path, const leveldb::MetaEntry& e,
                 VerifyReport* report) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    report->problems.push_back(
        {errno == ENOENT ? "missing" : "read", path, ErrnoText("open")});
    return;
  }
  uint32_t crc = 0;
  uint64_t length = 0;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      report->problems.push_back({"read", path, ErrnoText("read")});
      close(fd);
      return;
    }
    if (n == 0) break;
    crc = leveldb::crc32c::Extend(crc, buf, n);
    length += n;
  }
  if (close(fd) != 0) {
    report->problems.push_back({"read", path, ErrnoText("close")});
    return;
  }
  report->kv_files++;
  report->kv_bytes += length;
  if (length != e.stored_size) {
    report->problems.push_back({"length", path,
                                "holds " + std::to_string(length) +
                                    " bytes, the meta file says " +
                                    std::to_string(e.stored_size)});
  } else if (leveldb::crc32c::Mask(crc) != e.stored_crc) {
    report->problems.push_back(
        {"checksum", path, "crc32c does not match the meta file's"});
  }
}

// Values that stay put: every file a live entry names in a home is there
// and sound; every home, and every file in one, is named by a live entry.
// An unnamed home or file in one is a leftover when `meta_all_read` (the
// next Open's sweep removes it), else an orphan (that sweep does nothing
// while a live meta file does not read).
Status VerifyHomes(const std::string& db,
                   const std::map<uint64_t, std::set<std::string>>& named,
                   const std::vector<leveldb::MetaEntry>& entries,
                   bool meta_all_read, VerifyReport* report) {
  auto unnamed = [&](const std::string& path, const std::string& detail) {
    if (meta_all_read) {
      report->leftovers.push_back(
          {"leftover", path, detail + "; the next Open removes it"});
    } else {
      report->problems.push_back({"orphan", path, detail});
    }
  };
  const std::string root = db + "/" + leveldb::kValuesDirName;
  std::set<std::string> homes;
  if (!ListNames(root, &homes)) {
    if (errno != ENOENT) return Status::IOError(root, ErrnoText("list"));
    homes.clear();
  }
  std::map<uint64_t, std::set<std::string>> present;
  for (const std::string& h : homes) {
    const std::string path = root + "/" + h;
    uint64_t home = 0;
    if (!leveldb::ParseHomeDirName(h, &home)) {
      report->problems.push_back({"foreign", path, "not a home directory"});
      continue;
    }
    auto it = named.find(home);
    if (it == named.end()) {
      unnamed(path, "no live entry names a value in this home");
      continue;
    }
    if (!ListNames(path, &present[home])) {
      report->problems.push_back({"read", path, ErrnoText("list")});
      continue;
    }
    for (const std::string& n : present[home]) {
      if (it->second.count(n) == 0) {
        unnamed(path + "/" + n, "no live entry names this value");
      }
    }
  }
  for (const leveldb::MetaEntry& e : entries) {
    const leveldb::Slice ikey(e.internal_key);
    const std::string name = leveldb::KvStoredFileName(
        leveldb::ExtractUserKey(ikey), leveldb::ExtractTag(ikey) >> 8,
        leveldb::StoredCompressed(e.storage));
    const std::string path =
        root + "/" + leveldb::HomeDirName(e.home) + "/" + name;
    if (present[e.home].count(name) == 0) {
      report->problems.push_back(
          {"missing", path, "a live entry names this value"});
      continue;
    }
    CheckKvFile(path, e, report);
  }
  return Status::OK();
}

}  // namespace

Status VerifyDatabase(leveldb::DbView* view, bool progress,
                      VerifyReport* report) {
  const std::string& db = view->dbname();
  leveldb::Version* v = view->current();
  // Live SSTs by (level, directory number).
  std::map<std::pair<int, uint64_t>, std::vector<uint64_t>> live;
  uint64_t total_dirs = 0;
  for (int level = 0; level < leveldb::config::kNumLevels; ++level) {
    for (const leveldb::FileMetaData* f : v->files(level)) {
      auto& ssts = live[{level, f->dir}];
      if (ssts.empty()) total_dirs++;
      ssts.push_back(f->number);
    }
  }
  Progress meter("verify: SST directories", total_dirs, progress);
  uint64_t done = 0;
  // Values that stay put: the file names live entries give in each home.
  std::map<uint64_t, std::set<std::string>> home_named;
  std::vector<leveldb::MetaEntry> home_entries;
  bool meta_all_read = true;  // every live meta file decoded

  for (int level = 0; level < leveldb::config::kNumLevels; ++level) {
    const std::string level_dir = leveldb::LevelDirName(db, level);
    std::set<std::string> dirs;
    if (!ListNames(level_dir, &dirs)) {
      if (errno != ENOENT) {
        return Status::IOError(level_dir, ErrnoText("list"));
      }
      dirs.clear();
    }
    // Directories the manifest names must exist.
    for (auto it = live.lower_bound({level, 0});
         it != live.end() && it->first.first == level; ++it) {
      const std::string name = leveldb::SstDirName(db, level, it->first.second);
      if (dirs.count(name.substr(level_dir.size() + 1)) == 0) {
        report->problems.push_back(
            {"missing", name, "the manifest names this SST directory"});
      }
    }
    for (const std::string& name : dirs) {
      const std::string path = level_dir + "/" + name;
      uint64_t dir_number = 0;
      if (!leveldb::ParseSstDirName(name, &dir_number)) {
        report->problems.push_back({"foreign", path, "not an SST directory"});
        continue;
      }
      auto owners = live.find({level, dir_number});
      if (owners == live.end()) {
        // Open removes every numbered SST directory no live SST uses.
        report->leftovers.push_back(
            {"leftover", path,
             "no live SST is in this directory; the next Open removes it"});
        continue;
      }
      // The next Open sweeps this directory only if every meta file in it
      // reads, and finds an extra entry only by the count of entries,
      // which a missing one can hide.
      const size_t problems_before = report->problems.size();
      std::set<std::string> names;
      if (!ListNames(path, &names)) {
        report->problems.push_back({"read", path, ErrnoText("list")});
        continue;
      }
      std::set<std::string> owned;
      for (uint64_t number : owners->second) {
        const std::string meta_name = leveldb::MetaFileName(number, dir_number);
        const std::string long_keys =
            leveldb::LongKeysFileName(number, dir_number);
        owned.insert(meta_name);
        if (names.count(long_keys) != 0) owned.insert(long_keys);
        leveldb::MetaFileContents meta;
        Status s = leveldb::ReadMetaFile(path + "/" + meta_name, &meta);
        report->meta_files++;
        if (!s.ok()) {
          report->problems.push_back(
              {"meta", path + "/" + meta_name, s.ToString()});
          meta_all_read = false;
          continue;
        }
        for (const leveldb::MetaEntry& e : meta.entries) {
          leveldb::ParsedInternalKey ikey;
          if (!leveldb::ParseInternalKey(e.internal_key, &ikey)) {
            report->problems.push_back(
                {"meta", path + "/" + meta_name, "unparsable internal key"});
            continue;
          }
          if (leveldb::StoredInline(e.storage)) {
            report->inline_values++;
            const uint32_t crc = leveldb::crc32c::Mask(leveldb::crc32c::Value(
                e.inline_value.data(), e.inline_value.size()));
            if (crc != e.stored_crc) {
              report->problems.push_back({"checksum", path + "/" + meta_name,
                                          "inline value of key " +
                                              Printable(ikey.user_key) +
                                              " does not match its crc"});
            }
            continue;
          }
          if (leveldb::StoredInHome(e.storage)) {
            home_named[e.home].insert(leveldb::KvStoredFileName(
                ikey.user_key, ikey.sequence,
                leveldb::StoredCompressed(e.storage)));
            home_entries.push_back(e);
            continue;
          }
          if (!leveldb::StoredInFile(e.storage)) continue;
          const std::string kv = leveldb::KvStoredFileName(
              ikey.user_key, ikey.sequence,
              e.storage == leveldb::ValueStorage::kFileSnappy);
          owned.insert(kv);
          if (names.count(kv) == 0) {
            report->problems.push_back(
                {"missing", path + "/" + kv,
                 "the meta file " + meta_name + " names this KV file"});
            continue;
          }
          CheckKvFile(path + "/" + kv, e, report);
        }
      }
      bool swept = true;
      for (size_t i = problems_before; i < report->problems.size(); i++) {
        const std::string& kind = report->problems[i].kind;
        if (kind == "meta" || kind == "missing") swept = false;
      }
      for (const std::string& n : names) {
        if (owned.count(n) > 0) continue;
        if (swept) {
          report->leftovers.push_back(
              {"leftover", path + "/" + n,
               "no live SST owns this file; the next Open removes it"});
        } else {
          report->problems.push_back(
              {"orphan", path + "/" + n, "no live SST owns this file"});
        }
      }
      meter.Update(++done);
    }
  }
  return VerifyHomes(db, home_named, home_entries, meta_all_read, report);
}

void PrintVerifyReport(const std::string& dbname, const VerifyReport& r,
                       bool json) {
  if (json) {
    JsonWriter w;
    w.BeginObject();
    w.Field("db", dbname);
    w.Field("ok", r.problems.empty());
    w.Field("meta_files", r.meta_files);
    w.Field("kv_files", r.kv_files);
    w.Field("kv_bytes", r.kv_bytes);
    w.Field("inline_values", r.inline_values);
    for (const auto* list : {&r.problems, &r.leftovers}) {
      w.Key(list == &r.problems ? "problems" : "leftovers");
      w.BeginArray();
      for (const VerifyProblem& p : *list) {
        w.BeginObject();
        w.Field("kind", p.kind);
        w.Field("path", p.path);
        w.Field("detail", p.detail);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    w.Finish();
    return;
  }
  std::printf(
      "checked %llu meta files, %llu KV files (%llu bytes), %llu inline "
      "values\n",
      static_cast<unsigned long long>(r.meta_files),
      static_cast<unsigned long long>(r.kv_files),
      static_cast<unsigned long long>(r.kv_bytes),
      static_cast<unsigned long long>(r.inline_values));
  if (!r.leftovers.empty()) {
    Table t({"leftover", "path", "detail"});
    for (const VerifyProblem& p : r.leftovers) {
      t.AddRow({p.kind, Printable(p.path), p.detail});
    }
    t.Print();
    std::printf("%zu leftover(s) the next Open removes\n", r.leftovers.size());
  }
  if (r.problems.empty()) {
    std::printf("%s: OK\n", dbname.c_str());
    return;
  }
  Table t({"problem", "path", "detail"});
  for (const VerifyProblem& p : r.problems) {
    t.AddRow({p.kind, Printable(p.path), p.detail});
  }
  t.Print();
  std::printf("%s: %zu problem(s)\n", dbname.c_str(), r.problems.size());
}

}  // namespace delsm_tool
