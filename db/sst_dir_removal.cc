#include "db/sst_dir_removal.h"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <vector>

#include "db/dbformat.h"
#include "fs/file_system.h"
#include "table/key_codec.h"
#include "table/meta_file.h"

namespace leveldb {

namespace {

// Unlinks `name`; a name already gone counts as removed (UnlinkUnlessGone).
Status UnlinkIfPresent(Directory* dir, const std::string& name,
                       uint64_t* unlinked) {
  bool removed = false;
  Status s = UnlinkUnlessGone(dir, name, &removed);
  if (removed && unlinked != nullptr) ++*unlinked;
  return s;
}

}  // namespace

std::vector<std::string> KvFileNamesOf(const MetaIndex& index) {
  std::vector<std::string> names;
  for (const MetaIndexEntry& e : index.entries) {
    ParsedInternalKey key;
    if (!StoredInFile(e.storage) || !ParseInternalKey(e.internal_key, &key)) {
      continue;
    }
    names.push_back(KvStoredFileName(key.user_key, key.sequence,
                                     e.storage == ValueStorage::kFileSnappy));
  }
  return names;
}

namespace {

// Every directory entry the SSTs `live` own: KV files, meta and LONGKEYS.
std::unordered_set<std::string> NamesOwnedBy(
    const std::vector<SstInDir>& live) {
  std::unordered_set<std::string> names;
  for (const SstInDir& l : live) {
    for (std::string& name : KvFileNamesOf(*l.index)) {
      names.insert(std::move(name));
    }
    names.insert(l.meta_name);
    names.insert(l.long_keys_name);
  }
  return names;
}

}  // namespace

namespace {

// A KV file entry as its name depends on it: a readable (non-hashed) name is
// a reversible function of the internal key and of whether the stored bytes
// are compressed (the 'z'), so two such entries share a name exactly when
// these are equal. Comparing them needs no name to be formatted, which
// matters here: a compaction into a level retires SSTs whose entries almost
// all live on in their replacements, thousands per directory.
struct FileEntryKey {
  Slice internal_key;
  bool compressed;

  bool operator<(const FileEntryKey& other) const {
    const int c = internal_key.compare(other.internal_key);
    return c < 0 || (c == 0 && compressed < other.compressed);
  }
};

// What the SSTs `live` own: readable KV file names as sorted FileEntryKeys;
// hashed KV file names, meta and LONGKEYS names as names.
struct OwnedEntries {
  std::vector<FileEntryKey> readable;  // sorted
  std::unordered_set<std::string> names;

  explicit OwnedEntries(const std::vector<SstInDir>& live) {
    for (const SstInDir& l : live) {
      for (const MetaIndexEntry& e : l.index->entries) {
        ParsedInternalKey key;
        if (!StoredInFile(e.storage) ||
            !ParseInternalKey(e.internal_key, &key)) {
          continue;
        }
        const bool compressed = e.storage == ValueStorage::kFileSnappy;
        if (KvFileNameIsHashed(key.user_key)) {
          names.insert(
              KvStoredFileName(key.user_key, key.sequence, compressed));
        } else {
          readable.push_back({e.internal_key, compressed});
        }
      }
      names.insert(l.meta_name);
      names.insert(l.long_keys_name);
    }
    std::sort(readable.begin(), readable.end());
  }

  bool OwnsReadable(const FileEntryKey& entry) const {
    return std::binary_search(readable.begin(), readable.end(), entry);
  }
};

}  // namespace

Status RemoveRetiredSst(Directory* dir, const SstInDir& retired,
                        const std::vector<SstInDir>& live, uint64_t* unlinked) {
  const OwnedEntries keep(live);
  for (const MetaIndexEntry& e : retired.index->entries) {
    ParsedInternalKey key;
    if (!StoredInFile(e.storage) || !ParseInternalKey(e.internal_key, &key)) {
      continue;
    }
    const FileEntryKey entry{e.internal_key,
                             e.storage == ValueStorage::kFileSnappy};
    if (!KvFileNameIsHashed(key.user_key) && keep.OwnsReadable(entry)) {
      continue;
    }
    const std::string name =
        KvStoredFileName(key.user_key, key.sequence, entry.compressed);
    if (keep.names.count(name) > 0) continue;
    Status s = UnlinkIfPresent(dir, name, unlinked);
    if (!s.ok()) return s;
  }
  for (const std::string* name :
       {&retired.long_keys_name, &retired.meta_name}) {
    if (keep.names.count(*name) > 0) continue;
    Status s = UnlinkIfPresent(dir, *name, unlinked);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status RemoveMetaOnlySst(Directory* dir, const std::string& meta_name,
                         const std::string& long_keys_name,
                         uint64_t* unlinked) {
  // The meta file last, as RemoveRetiredSst does.
  Status s = UnlinkIfPresent(dir, long_keys_name, unlinked);
  if (s.ok()) s = UnlinkIfPresent(dir, meta_name, unlinked);
  return s;
}

Status RemoveUnownedEntries(Directory* dir,
                            const std::vector<std::string>& names,
                            const std::vector<SstInDir>& live,
                            uint64_t* unlinked) {
  const std::unordered_set<std::string> keep = NamesOwnedBy(live);
  // Meta and LONGKEYS files last: cut short, the sweep leaves the meta
  // files naming what is left, and RepairDB (which takes back a KV file no
  // meta file names) knows those files for a replaced SST's.
  std::vector<const std::string*> last;
  for (const std::string& name : names) {
    if (keep.count(name) > 0) continue;
    uint64_t sst_number;
    if (ParseMetaFileName(name, 0, &sst_number) ||
        ParseLongKeysFileName(name, 0, &sst_number)) {
      last.push_back(&name);
      continue;
    }
    std::string user_key;
    uint64_t sequence;
    bool hashed, compressed;
    if (!ParseKvStoredFileName(name, &user_key, &sequence, &hashed,
                               &compressed)) {
      continue;  // not a name DeLSM gives an entry: not ours to remove
    }
    Status s = UnlinkIfPresent(dir, name, unlinked);
    if (!s.ok()) return s;
  }
  for (const std::string* name : last) {
    Status s = UnlinkIfPresent(dir, *name, unlinked);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status RemoveSstDirectory(FileSystem* fs, const std::string& path,
                          uint64_t* unlinked) {
  // Only absence (ENOENT) is "removed already": a directory whose lookup
  // fails otherwise (EIO) is still there as far as anyone can tell, and a
  // caller told it is gone would go on as if it were (forget it, remove
  // the manifests that record its SSTs as replaced).
  bool exists;
  Status s = fs->Probe(path, &exists);
  if (!s.ok() || !exists) return s;
  std::unique_ptr<Directory> dir;
  s = fs->OpenDirectory(path, &dir);
  if (s.IsNotFound()) {
    // Gone since the lookup, if a second lookup agrees: one that still
    // finds it leaves the directory, and what it holds, unknown.
    Status again = fs->Probe(path, &exists);
    if (!again.ok()) return again;
    if (!exists) return Status::OK();
    return Status::IOError(path, "found, and does not open: " + s.ToString());
  }
  if (!s.ok()) return s;
  std::vector<std::string> names;
  s = dir->List(&names);
  if (!s.ok()) return s;
  // Meta and LONGKEYS files last, as in RemoveUnownedEntries: a removal
  // cut short between them and the KV files they name would leave those
  // KV files unnamed, and RepairDB takes such a file back by its name,
  // though the directory's SSTs were replaced and the file dropped.
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& name) {
                          return !Slice(name).starts_with(kMetaFileName) &&
                                 !Slice(name).starts_with(kLongKeysFileName);
                        });
  for (const std::string& name : names) {
    s = UnlinkIfPresent(dir.get(), name, unlinked);
    if (!s.ok()) return s;
  }
  dir.reset();
  s = fs->RemoveDir(path);
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace leveldb
