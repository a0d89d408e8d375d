// RepairDB's salvage of one SST directory (repair_salvage.h).
//
// Evidence for leaving a listed file out (RepairDB puts it in lost/,
// nothing is deleted): a file whose key and sequence number a loaded meta
// file elsewhere names (named_files) is that entry's value; bytes that
// do not match that entry's size and checksum are not that value (a
// damaged link of the same inode or a stray copy), and taken back from its
// name alone they would be served with a checksum of their damage.
#include "db/repair_salvage.h"

#include <algorithm>
#include <string>
#include <utility>

#include "db/dbformat.h"
#include "db/repair_homes.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "table/key_codec.h"
#include "table/sst_dir.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// Full keys of hash-named KV files, from one of the directory's LONGKEYS
// files.
// Corruption if the file is damaged (hashed-name files it alone names
// go to lost/); the read's error if it could not be read.
Status ReadLongKeys(Directory* dir, const std::string& file_name,
                    std::vector<std::pair<std::string, std::string>>* out) {
  std::string data;
  Status s = dir->ReadFile(file_name, &data);
  if (!s.ok()) return s;
  const size_t body = data.size() < 4 ? 0 : data.size() - 4;
  if (data.size() < 4 || crc32c::Unmask(DecodeFixed32(data.data() + body)) !=
                             crc32c::Value(data.data(), body)) {
    return Status::Corruption(dir->path() + "/" + file_name,
                              "damaged LONGKEYS file");
  }
  Slice in(data.data(), body);
  Slice name, key;
  while (GetLengthPrefixedSlice(&in, &name) &&
         GetLengthPrefixedSlice(&in, &key)) {
    out->push_back({name.ToString(), key.ToString()});
  }
  return Status::OK();
}

}  // namespace

Status SalvageSstDir(Directory* src, const std::vector<std::string>& names,
                     const std::vector<std::unique_ptr<SstDir>>& metas,
                     const std::vector<SalvagedMetaFile>& salvaged,
                     const std::set<std::string>& retired,
                     const std::map<std::string, MetaEntry>& named_files,
                     const std::function<bool(const Slice&)>& withheld,
                     RepairHomes* homes, Logger* info_log,
                     std::set<std::string>* used,
                     std::vector<MetaEntry>* entries, size_t* withheld_count) {
  std::set<std::string> present(names.begin(), names.end());
  std::set<std::string> seen_keys;  // internal keys taken so far
  std::set<std::string> named;      // KV files some meta entry names
  // KV files of withheld entries: neither used nor taken back by name.
  std::set<std::string> withheld_files;
  entries->clear();
  *withheld_count = 0;
  auto withhold = [&](const Slice& internal_key, const char* where) {
    Log(info_log,
        "RepairDB: %s: withheld %s @ %llu (%s): a lost group of a meta file "
        "above may have held a newer version or a deletion of its key\n",
        src->path().c_str(), EscapeString(ExtractUserKey(internal_key)).c_str(),
        static_cast<unsigned long long>(
            DecodeFixed64(internal_key.data() + internal_key.size() - 8) >> 8),
        where);
    ++*withheld_count;
  };
  // Whether entry `e` (of a meta file) is taken: its value is still there,
  // it is not withheld, and its internal key is not taken yet.
  auto admit = [&](const MetaIndexEntry& e, bool* meta_whole) {
    ParsedInternalKey k;
    if (!ParseInternalKey(e.internal_key, &k)) return false;
    std::string name;
    if (StoredInFile(e.storage)) {
      name = KvStoredFileName(k.user_key, k.sequence,
                              e.storage == ValueStorage::kFileSnappy);
    }
    if (e.storage != ValueStorage::kNone && withheld(e.internal_key)) {
      if (!name.empty()) withheld_files.insert(name);
      homes->NoteWithheld(e);
      // Inline: the meta file that holds the value is set aside whole.
      if (StoredInline(e.storage)) *meta_whole = false;
      withhold(e.internal_key, "a meta file's entry");
      return false;
    }
    if (!name.empty()) {
      // Its value is not in the directory: the file was lost (damage),
      // or never linked (the output of a compaction killed before its
      // commit). No file holds it here, so there is nothing to take back
      // or to set aside in lost/; the entry alone would fail the merge's
      // link and every read. An older version of its key, if an SST holds
      // one, answers for it, as when a whole SST is lost.
      if (present.count(name) == 0) return false;
      named.insert(std::move(name));
    }
    if (StoredInHome(e.storage) && !homes->Present(e)) return false;
    if (!seen_keys.insert(e.internal_key.ToString()).second) return false;
    homes->NoteUsed(e);
    return true;
  };
  for (const auto& meta : metas) {
    bool meta_whole = true;  // false once an inline value is not taken
    for (const MetaIndexEntry& e : meta->index().entries) {
      if (!admit(e, &meta_whole)) continue;
      entries->push_back(CopyOfEntry(e));
      if (StoredInline(e.storage)) {
        // Bring the inline value along; a damaged one loses its entry.
        const size_t index =
            static_cast<size_t>(&e - &meta->index().entries[0]);
        std::string buffer;
        uint64_t offset = 0;
        Slice stored;
        Status r =
            meta->ReadInlineStored(index, 0, 0, &buffer, &offset, &stored);
        // Only damage loses the entry. A read that failed otherwise (EIO;
        // EMFILE when a meta file read past the mapping budget opens per
        // read) says nothing about the value: taken without it, an older
        // version of its key, or none, would answer for it.
        if (!r.ok() && !r.IsCorruption()) return r;
        if (!r.ok()) {
          entries->pop_back();
          meta_whole = false;
          continue;
        }
        entries->back().inline_value = stored.ToString();
      }
    }
    if (meta_whole) used->insert(meta->meta_name());
  }
  // A salvaged meta file is damaged: never used, so it is set aside whole.
  for (const SalvagedMetaFile& meta : salvaged) {
    bool meta_whole = false;
    for (const MetaEntry& e : meta.entries) {
      MetaIndexEntry view;
      static_cast<ValueRecord&>(view) = e;
      view.internal_key = e.internal_key;
      if (admit(view, &meta_whole)) entries->push_back(e);
    }
  }
  std::vector<std::pair<std::string, std::string>> long_keys;
  for (const std::string& name : names) {
    uint64_t n;
    if (!ParseLongKeysFileName(name, 0, &n)) continue;
    Status s = ReadLongKeys(src, name, &long_keys);
    if (s.ok()) {
      used->insert(name);
    } else if (!s.IsCorruption()) {
      return s;
    }
  }
  used->insert(named.begin(), named.end());

  for (const std::string& name : names) {
    std::string user_key;
    uint64_t sequence;
    bool hashed, compressed;
    if (named.count(name) > 0 || retired.count(name) > 0 ||
        withheld_files.count(name) > 0 ||
        !ParseKvStoredFileName(name, &user_key, &sequence, &hashed,
                               &compressed)) {
      continue;
    }
    if (hashed) {
      auto it =
          std::find_if(long_keys.begin(), long_keys.end(),
                       [&name](const std::pair<std::string, std::string>& p) {
                         return p.first + "z" == name || p.first == name;
                       });
      if (it == long_keys.end()) continue;
      user_key = it->second;
    }
    std::string stored;
    Status r = src->ReadFile(name, &stored);
    if (!r.ok()) return r;  // listed a moment ago: not damage
    MetaEntry e;
    std::string internal_key;
    AppendInternalKey(&internal_key,
                      ParsedInternalKey(user_key, sequence, kTypeValue));
    auto named_elsewhere = named_files.find(internal_key);
    if (named_elsewhere != named_files.end()) {
      const MetaEntry& n = named_elsewhere->second;
      if (n.stored_size != stored.size() ||
          compressed != (n.storage == ValueStorage::kFileSnappy) ||
          crc32c::Unmask(n.stored_crc) !=
              crc32c::Value(stored.data(), stored.size())) {
        Log(info_log,
            "RepairDB: %s/%s: does not match the checksum of the entry "
            "another meta file has for it; not taken back\n",
            src->path().c_str(), name.c_str());
        continue;
      }
      e = n;
    } else if (!TakeBackEntry(user_key, sequence, compressed, stored, 0, &e)) {
      continue;
    }
    if (withheld(e.internal_key)) {
      withhold(e.internal_key, name.c_str());
      continue;
    }
    used->insert(name);
    if (seen_keys.insert(e.internal_key).second) {
      entries->push_back(std::move(e));
    }
  }
  return Status::OK();
}

}  // namespace leveldb
