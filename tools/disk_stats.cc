#include "tools/disk_stats.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/version.h"
#include "fs/posix_file_system.h"
#include "tools/tool_util.h"

namespace delsm_tool {

namespace {

using leveldb::Status;

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::IOError(path, what + ": " + std::strerror(errno));
}

// The names in directory `path` (without "." and "..").
Status ListNames(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return ErrnoStatus("opendir", path);
  errno = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names->push_back(n);
    errno = 0;
  }
  const int err = errno;
  if (closedir(d) != 0) return ErrnoStatus("closedir", path);
  if (err != 0) {
    errno = err;
    return ErrnoStatus("readdir", path);
  }
  return Status::OK();
}

// Adds `path` (not followed if a link) to `area`, once per inode.
class InodeCounter {
 public:
  explicit InodeCounter(AreaStats* area) : area_(area) {}
  Status Add(const std::string& path, struct stat* st) {
    if (lstat(path.c_str(), st) != 0) return ErrnoStatus("lstat", path);
    if (!seen_.insert({st->st_dev, st->st_ino}).second) return Status::OK();
    area_->inodes++;
    area_->apparent_bytes += st->st_size;
    area_->allocated_bytes += static_cast<uint64_t>(st->st_blocks) * 512;
    if (S_ISREG(st->st_mode) && st->st_nlink > 1) area_->extra_link_files++;
    return Status::OK();
  }

 private:
  AreaStats* area_;
  std::set<std::pair<dev_t, ino_t>> seen_;
};

// Every inode under `path`, recursively.
Status AddTree(const std::string& path, InodeCounter* counter) {
  struct stat st;
  Status s = counter->Add(path, &st);
  if (!s.ok() || !S_ISDIR(st.st_mode)) return s;
  std::vector<std::string> names;
  s = ListNames(path, &names);
  for (size_t i = 0; s.ok() && i < names.size(); ++i) {
    s = AddTree(path + "/" + names[i], counter);
  }
  return s;
}

void AddTo(AreaStats* sum, const AreaStats& a) {
  sum->sst_dirs += a.sst_dirs;
  sum->ssts += a.ssts;
  sum->entries += a.entries;
  sum->tombstones += a.tombstones;
  sum->inline_values += a.inline_values;
  sum->kv_files += a.kv_files;
  sum->apparent_bytes += a.apparent_bytes;
  sum->allocated_bytes += a.allocated_bytes;
  sum->inodes += a.inodes;
  sum->extra_link_files += a.extra_link_files;
}

}  // namespace

Status CollectDiskStats(leveldb::DbView* view, bool progress,
                        DiskStats* stats) {
  const std::string& db = view->dbname();
  *stats = DiskStats();
  stats->wal_files = view->wal_numbers().size();

  // Count the SST directories first so progress can say "i of N".
  std::vector<std::vector<std::string>> level_names(
      leveldb::config::kNumLevels);
  std::vector<bool> level_present(leveldb::config::kNumLevels, false);
  uint64_t total_dirs = 0;
  for (int level = 0; level < leveldb::config::kNumLevels; ++level) {
    const std::string dir = leveldb::LevelDirName(db, level);
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return ErrnoStatus("lstat", dir);
    }
    level_present[level] = true;
    Status s = ListNames(dir, &level_names[level]);
    if (!s.ok()) return s;
    total_dirs += level_names[level].size();
  }

  Progress meter("stats: SST directories", total_dirs, progress);
  uint64_t done = 0;
  leveldb::Version* v = view->current();
  for (int level = 0; level < leveldb::config::kNumLevels; ++level) {
    if (!level_present[level] && v->NumFiles(level) == 0) continue;
    AreaStats area;
    area.name = "L" + std::to_string(level);
    InodeCounter counter(&area);
    const std::string dir = leveldb::LevelDirName(db, level);
    if (level_present[level]) {
      struct stat st;
      Status s = counter.Add(dir, &st);
      if (!s.ok()) return s;
      for (const std::string& name : level_names[level]) {
        uint64_t number;
        if (leveldb::ParseSstDirName(name, &number)) area.sst_dirs++;
        s = AddTree(dir + "/" + name, &counter);
        if (!s.ok()) return s;
        meter.Update(++done);
      }
    }
    for (const leveldb::FileMetaData* f : v->files(level)) {
      leveldb::MetaFileContents meta;
      Status s =
          leveldb::ReadMetaFile(leveldb::SstDirName(db, level, f->dir) + "/" +
                                    leveldb::MetaFileName(f->number, f->dir),
                                &meta);
      if (!s.ok()) return s;
      area.ssts++;
      for (const leveldb::MetaEntry& e : meta.entries) {
        area.entries++;
        if (e.storage == leveldb::ValueStorage::kNone) area.tombstones++;
        if (leveldb::StoredInline(e.storage)) area.inline_values++;
        if (leveldb::HasKvFile(e.storage)) area.kv_files++;
      }
    }
    stats->areas.push_back(area);
  }

  // Everything beside the level directories: CURRENT, LOCK, LOG, manifests,
  // WALs, and anything else found there.
  AreaStats other;
  other.name = "other";
  InodeCounter counter(&other);
  std::vector<std::string> names;
  Status s = ListNames(db, &names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    leveldb::FileType type;
    if (leveldb::ParseFileName(name, &number, &type) &&
        type == leveldb::kLevelDir) {
      continue;
    }
    s = AddTree(db + "/" + name, &counter);
    if (!s.ok()) return s;
  }
  stats->areas.push_back(other);
  stats->total.name = "total";
  for (const AreaStats& a : stats->areas) AddTo(&stats->total, a);

  struct statvfs vfs;
  if (statvfs(db.c_str(), &vfs) != 0) return ErrnoStatus("statvfs", db);
  stats->fs_total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  stats->fs_free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  stats->fs_total_inodes = vfs.f_files;
  stats->fs_free_inodes = vfs.f_favail;
  leveldb::FileSystemSpace space;
  s = leveldb::GetFileSystemSpace(db, &space);
  if (!s.ok()) return s;
  stats->headroom = leveldb::ProjectInodeHeadroom(
      space, stats->total.allocated_bytes, stats->total.inodes);
  return Status::OK();
}

void PrintDiskStats(const std::string& dbname, const DiskStats& stats,
                    bool json) {
  const leveldb::InodeHeadroom& h = stats.headroom;
  if (json) {
    JsonWriter w;
    w.BeginObject();
    w.Field("db", dbname);
    w.Key("areas");
    w.BeginArray();
    std::vector<const AreaStats*> rows;
    for (const AreaStats& a : stats.areas) rows.push_back(&a);
    rows.push_back(&stats.total);
    for (const AreaStats* a : rows) {
      w.BeginObject();
      w.Field("name", a->name);
      const std::pair<const char*, uint64_t> fields[] = {
          {"sst_dirs", a->sst_dirs},
          {"ssts", a->ssts},
          {"entries", a->entries},
          {"tombstones", a->tombstones},
          {"inline_values", a->inline_values},
          {"kv_files", a->kv_files},
          {"apparent_bytes", a->apparent_bytes},
          {"allocated_bytes", a->allocated_bytes},
          {"inodes", a->inodes},
          {"extra_link_files", a->extra_link_files}};
      for (const auto& f : fields) {
        w.Field(f.first, f.second);
      }
      w.EndObject();
    }
    w.EndArray();
    w.Field("wal_files", stats.wal_files);
    w.Key("filesystem");
    w.BeginObject();
    w.Field("total_bytes", stats.fs_total_bytes);
    w.Field("free_bytes", stats.fs_free_bytes);
    w.Field("total_inodes", stats.fs_total_inodes);
    w.Field("free_inodes", stats.fs_free_inodes);
    w.Field("type", h.space.type);
    w.Field("dynamic_inodes", h.space.dynamic_inodes);
    w.EndObject();
    // Counts that are no limit (kUnlimited) are left out.
    w.Key("inode_headroom");
    w.BeginObject();
    if (h.values() != leveldb::InodeHeadroom::kUnlimited) {
      w.Field("values", h.values());
    }
    w.Field("first_limit", h.inodes_first() ? "inodes" : "space");
    if (h.values_until_inodes != leveldb::InodeHeadroom::kUnlimited) {
      w.Field("values_until_inodes", h.values_until_inodes);
    }
    if (h.values_until_space != leveldb::InodeHeadroom::kUnlimited) {
      w.Field("values_until_space", h.values_until_space);
    }
    w.Field("bytes_per_value", h.bytes_per_value);
    w.EndObject();
    w.EndObject();
    w.Finish();
    return;
  }
  Table t({"area", "sst_dirs", "ssts", "entries", "tombstones", "inline",
           "kv_files", "apparent_B", "allocated_B", "inodes", "extra_links"});
  std::vector<const AreaStats*> rows;
  for (const AreaStats& a : stats.areas) rows.push_back(&a);
  rows.push_back(&stats.total);
  for (const AreaStats* a : rows) {
    t.AddRow({a->name, Number(a->sst_dirs), Number(a->ssts), Number(a->entries),
              Number(a->tombstones), Number(a->inline_values),
              Number(a->kv_files), Number(a->apparent_bytes),
              Number(a->allocated_bytes), Number(a->inodes),
              Number(a->extra_link_files)});
  }
  std::printf("database %s (%llu WAL file(s) to replay)\n", dbname.c_str(),
              static_cast<unsigned long long>(stats.wal_files));
  t.Print();
  std::printf(
      "file system: %llu of %llu bytes free, %llu of %llu inodes free\n",
      static_cast<unsigned long long>(stats.fs_free_bytes),
      static_cast<unsigned long long>(stats.fs_total_bytes),
      static_cast<unsigned long long>(stats.fs_free_inodes),
      static_cast<unsigned long long>(stats.fs_total_inodes));
  auto count = [](uint64_t n) {
    return n == leveldb::InodeHeadroom::kUnlimited ? std::string("unlimited")
                                                   : std::to_string(n);
  };
  std::printf(
      "inode headroom: %s more values, %s run out first (%s until inodes, %s "
      "until space at %llu bytes a value%s; %s inodes, %s)\n",
      count(h.values()).c_str(), h.inodes_first() ? "inodes" : "space",
      count(h.values_until_inodes).c_str(), count(h.values_until_space).c_str(),
      static_cast<unsigned long long>(h.bytes_per_value),
      h.assumed ? ", assumed" : "",
      h.space.dynamic_inodes ? "dynamic" : "fixed", h.space.type.c_str());
}

}  // namespace delsm_tool
