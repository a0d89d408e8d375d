// RepairDB's side of values that stay put (docs/DESIGN.md section 5): which
// files the homes hold, which of them the entries given to the merge name,
// which only replaced SSTs name, setting aside (before the merge's commit)
// what no entry given to the merge names, and, after the commit, putting
// away what the merge did not keep. The values themselves never move: the
// repaired entries name the same homes. Not thread-safe.
#ifndef DELSM_DB_REPAIR_HOMES_H_
#define DELSM_DB_REPAIR_HOMES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "leveldb/status.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"

namespace leveldb {

class Directory;
class FileSystem;
class Logger;

// The entry of a KV file that repair takes back by its name alone (no meta
// file names it): user key and sequence number from the name, a file kind
// (a home kind with `home` when home != 0) and sizes and crc from the bytes
// it holds. False when compressed bytes do not say their length (the file
// is not taken back).
bool TakeBackEntry(const Slice& user_key, SequenceNumber sequence,
                   bool compressed, const std::string& stored, uint64_t home,
                   MetaEntry* e);

class RepairHomes {
 public:
  // `fs` is not owned and must outlive this.
  RepairHomes(FileSystem* fs, const std::string& dbname);
  RepairHomes(const RepairHomes&) = delete;
  RepairHomes& operator=(const RepairHomes&) = delete;

  // For SstDirOptions::homes.
  HomeDirs* homes() { return &homes_; }

  // Lists every home and its files; raises *next_number past every home's
  // number. OK when there is no values/ directory (NotFound); any other
  // failure to list it (EIO) fails: taken for no homes, every value an
  // entry names would read as missing, and the repair would leave those
  // entries out.
  Status Find(uint64_t* next_number);
  size_t home_count() const { return files_.size(); }

  // Corruption naming the home if a home entry of `index` names a file
  // that is not there.
  Status CheckPresent(const MetaIndex& index) const;
  bool Present(const MetaIndexEntry& entry) const;
  // The entry (of a home kind) is given to the merge.
  void NoteUsed(const MetaIndexEntry& entry);
  void NoteAllUsed(const MetaIndex& index);
  // `index` is of an SST a manifest records as replaced: the files only it
  // names are not taken back.
  void NoteReplaced(const MetaIndex& index);
  // The entry (of a home kind) is withheld from the merge
  // (Repairer::Withheld): its file is not taken back, and SetAside links
  // it into lost/.
  void NoteWithheld(const MetaIndexEntry& entry);

  // A meta file of an SST no manifest records as replaced could not be
  // read, or an SST directory holds none: the files it named are unknown.
  // The caller does not note one of an SST no manifest committed
  // (Repairer::NeverCommitted): nothing it names lives only through it.
  void NoteMetaFileLost() { meta_file_lost_ = true; }
  bool meta_file_lost() const { return meta_file_lost_; }

  // An entry of a home kind for every readable file that no entry given to
  // the merge and no replaced SST names, its key and sequence from its
  // name (hashed names, which LONGKEYS alone maps to keys, are not taken
  // back); marked used. In no particular order. A home or file that cannot
  // be opened or read (EIO, EMFILE, ENOENT for a file just listed) is an
  // error: its value is unknown, not absent.
  //
  // Only if a meta file was lost (NoteMetaFileLost): otherwise none is
  // taken back, and SetAside links them into lost/. Evidence: a value a
  // committed flush wrote is named by the meta file of every SST its entry
  // was in since, and the one live now names it until the value dies; its
  // file goes before the last of those meta files (docs/DESIGN.md section
  // 5, "Death"). So when every meta file reads, a file no meta file names
  // is either a value whose death was committed (taking it back would
  // bring back a deleted or overwritten key) or one of a flush that never
  // committed (a crashed or discarded build): such a flush's writes were
  // never acknowledged as flushed, and its WAL, which RepairDB replays, is
  // deleted only after the memtable committed in another flush (a retried
  // build's) whose own home holds the same values. Nothing acknowledged is
  // lost by leaving them out.
  Status TakeBackUnnamed(std::vector<MetaEntry>* entries);

  // Before the commit: hands every file nobody used (no entry given to the
  // merge names it) to link_to_lost(its home, its name, lost/'s
  // subdirectory for the home: values-<home>), which sets *linked when
  // lost/ holds the file. Stops at the first error.
  Status SetAside(
      const std::function<Status(Directory* home, const std::string& name,
                                 const std::string& lost_dir, bool* linked)>&
          link_to_lost);

  // After the commit: unlinks the files of `dropped` (the merge dropped
  // their entries) and those SetAside linked into lost/ (lost/ holds
  // them), hands any other file nobody used (not linked: a directory) to
  // move_to_lost(path, lost/'s subdirectory for its home), and removes
  // homes left empty. Goes on past a failure (what failed stays where it
  // is); returns the first.
  Status PutAway(
      const std::vector<HomeValue>& dropped,
      const std::function<Status(const std::string& path,
                                 const std::string& lost_dir)>& move_to_lost,
      Logger* info_log);

 private:
  using Key = std::pair<uint64_t, std::string>;  // (home, file name)
  static Key KeyOf(const MetaIndexEntry& entry);

  FileSystem* const fs_;
  HomeDirs homes_;
  std::map<uint64_t, std::set<std::string>> files_;  // by home
  std::set<Key> used_;
  std::set<Key> replaced_;
  std::set<Key> set_aside_;  // linked into lost/ (SetAside)
  bool meta_file_lost_ = false;
};

}  // namespace leveldb

#endif  // DELSM_DB_REPAIR_HOMES_H_
