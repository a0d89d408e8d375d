// RepairHomes: the homes as RepairDB finds them and leaves them.
#include "db/repair_homes.h"

#include "fs/file_system.h"
#include "fs/list_if_present.h"
#include "leveldb/env.h"
#include "port/port.h"
#include "table/key_codec.h"
#include "util/crc32c.h"
#include "util/logging.h"

namespace leveldb {

RepairHomes::RepairHomes(FileSystem* fs, const std::string& dbname)
    : fs_(fs), homes_(fs, dbname + "/" + kValuesDirName) {}

RepairHomes::Key RepairHomes::KeyOf(const MetaIndexEntry& entry) {
  const Slice ikey = entry.internal_key;
  return {entry.home,
          KvStoredFileName(ExtractUserKey(ikey), ExtractTag(ikey) >> 8,
                           StoredCompressed(entry.storage))};
}

Status RepairHomes::Find(uint64_t* next_number) {
  std::vector<std::string> homes;
  // A values/ that cannot be told absent leaves every home unknown: a
  // repair that went on would take their values for lost.
  bool absent;
  Status s = ListDirectoryIfPresent(fs_, homes_.root(), &homes, &absent);
  if (!s.ok() || absent) return s;
  for (const std::string& h : homes) {
    uint64_t home;
    if (!ParseHomeDirName(h, &home)) continue;
    std::vector<std::string> names;
    s = fs_->ListDirectory(homes_.PathOf(home), &names);
    if (!s.ok()) return s;
    files_[home].insert(names.begin(), names.end());
    if (home >= *next_number) *next_number = home + 1;
  }
  return Status::OK();
}

bool RepairHomes::Present(const MetaIndexEntry& entry) const {
  const Key key = KeyOf(entry);
  auto it = files_.find(key.first);
  return it != files_.end() && it->second.count(key.second) > 0;
}

Status RepairHomes::CheckPresent(const MetaIndex& index) const {
  for (const MetaIndexEntry& e : index.entries) {
    if (StoredInHome(e.storage) && !Present(e)) {
      return Status::Corruption(homes_.PathOf(e.home) + "/" + KeyOf(e).second,
                                "a value an entry names is missing");
    }
  }
  return Status::OK();
}

void RepairHomes::NoteUsed(const MetaIndexEntry& entry) {
  if (StoredInHome(entry.storage)) used_.insert(KeyOf(entry));
}

void RepairHomes::NoteAllUsed(const MetaIndex& index) {
  for (const MetaIndexEntry& e : index.entries) NoteUsed(e);
}

void RepairHomes::NoteReplaced(const MetaIndex& index) {
  for (const MetaIndexEntry& e : index.entries) {
    if (StoredInHome(e.storage)) replaced_.insert(KeyOf(e));
  }
}

void RepairHomes::NoteWithheld(const MetaIndexEntry& entry) {
  if (StoredInHome(entry.storage)) replaced_.insert(KeyOf(entry));
}

bool TakeBackEntry(const Slice& user_key, SequenceNumber sequence,
                   bool compressed, const std::string& stored, uint64_t home,
                   MetaEntry* e) {
  e->internal_key.clear();
  AppendInternalKey(&e->internal_key,
                    ParsedInternalKey(user_key, sequence, kTypeValue));
  if (home != 0) {
    e->storage =
        compressed ? ValueStorage::kHomeFileSnappy : ValueStorage::kHomeFile;
    e->home = home;
  } else {
    e->storage = compressed ? ValueStorage::kFileSnappy : ValueStorage::kFile;
  }
  e->stored_size = stored.size();
  e->value_size = stored.size();
  if (compressed) {
    size_t n;
    if (!port::SnappyGetUncompressedLength(stored.data(), stored.size(), &n)) {
      return false;
    }
    e->value_size = n;
  }
  e->stored_crc = crc32c::Mask(crc32c::Value(stored.data(), stored.size()));
  return true;
}

Status RepairHomes::TakeBackUnnamed(std::vector<MetaEntry>* entries) {
  entries->clear();
  if (!meta_file_lost_) return Status::OK();  // see the header
  for (const auto& home : files_) {
    for (const std::string& name : home.second) {
      const Key key(home.first, name);
      if (used_.count(key) > 0 || replaced_.count(key) > 0) continue;
      std::string user_key;
      uint64_t sequence;
      bool hashed, compressed;
      if (!ParseKvStoredFileName(name, &user_key, &sequence, &hashed,
                                 &compressed) ||
          hashed) {
        continue;
      }
      // Listed a moment ago: a home or file that cannot be opened or read
      // (EIO, EMFILE, ENOENT) is not damage, and the value it holds may be
      // the only copy of an acknowledged write. RepairDB fails.
      std::shared_ptr<Directory> dir;
      std::string stored;
      Status s = homes_.Get(home.first, &dir);
      if (s.ok()) s = dir->ReadFile(name, &stored);
      if (!s.ok()) return s;
      MetaEntry e;
      if (!TakeBackEntry(user_key, sequence, compressed, stored, home.first,
                         &e)) {
        continue;  // damaged: compressed bytes that do not say their length
      }
      used_.insert(key);
      entries->push_back(std::move(e));
    }
  }
  return Status::OK();
}

Status RepairHomes::SetAside(
    const std::function<Status(Directory*, const std::string&,
                               const std::string&, bool*)>& link_to_lost) {
  for (const auto& home : files_) {
    std::shared_ptr<Directory> dir;
    for (const std::string& name : home.second) {
      const Key key(home.first, name);
      if (used_.count(key) > 0) continue;
      Status s = dir == nullptr ? homes_.Get(home.first, &dir) : Status::OK();
      bool linked = false;
      if (s.ok()) {
        s = link_to_lost(dir.get(), name, "values-" + HomeDirName(home.first),
                         &linked);
      }
      if (!s.ok()) return s;
      if (linked) set_aside_.insert(key);
    }
  }
  return Status::OK();
}

Status RepairHomes::PutAway(
    const std::vector<HomeValue>& dropped,
    const std::function<Status(const std::string&, const std::string&)>&
        move_to_lost,
    Logger* info_log) {
  Status first;
  std::set<Key> dead;
  for (const HomeValue& v : dropped) dead.insert({v.home, v.name});
  for (const auto& home : files_) {
    const std::string path = homes_.PathOf(home.first);
    std::shared_ptr<Directory> dir;
    Status s = homes_.Get(home.first, &dir);
    size_t unlinked = 0, kept = 0, lost = 0;
    for (const std::string& name : home.second) {
      if (!s.ok()) break;
      const Key key(home.first, name);
      Status r;
      if (dead.count(key) > 0 || set_aside_.count(key) > 0) {
        // Dropped by the merge, or held by lost/ (SetAside).
        r = dir->Unlink(name);
        if (r.ok()) (dead.count(key) > 0 ? unlinked : lost)++;
      } else if (used_.count(key) > 0) {
        kept++;
      } else {
        r = move_to_lost(path + "/" + name,
                         "values-" + HomeDirName(home.first));
        lost++;
      }
      if (first.ok()) first = r;
    }
    dir.reset();
    homes_.Forget(home.first);
    // Fails, and the home stays, if anything is left in it.
    if (s.ok() && kept == 0) s = fs_->RemoveDir(path);
    Log(info_log,
        "RepairDB: %s: %zu values removed, %zu kept, %zu put away: %s\n",
        path.c_str(), unlinked, kept, lost, s.ToString().c_str());
    if (first.ok()) first = s;
  }
  return first;
}

}  // namespace leveldb
