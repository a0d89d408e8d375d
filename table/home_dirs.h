// Home directories: where a value that stays put lives (Tuning::
// values_stay_put, docs/DESIGN.md section 5). A flush in that mode writes
// its KV files into <db>/values/<home>/ (home = the flush's SST number)
// rather than into its SST directory; meta entries of the home kinds
// (meta_file.h) name the home, and compactions rewrite only meta files.
// A home is removed when its last value dies.
//
// HomeDirs opens each home on first use and keeps it open for every later
// read (a Directory holds a descriptor only within the process's budget,
// fs/file_system.h), so a read of a value in a home costs one openat()
// relative to a held descriptor, as a read in an SST directory does.
// Thread-safe.
#ifndef DELSM_TABLE_HOME_DIRS_H_
#define DELSM_TABLE_HOME_DIRS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "leveldb/status.h"
#include "port/port.h"
#include "port/thread_annotations.h"

namespace leveldb {

class Directory;
class FileSystem;

// The directory under the DB directory holding every home.
constexpr char kValuesDirName[] = "values";

// "000123" for home 123: the number zero-padded to six digits, no further
// leading zeros (every version of DeLSM has written this one form).
std::string HomeDirName(uint64_t home);
// Parses a name under values/ (no path) spelled exactly as HomeDirName
// spells a number, and sets *home. Returns false for anything else, "5"
// and "0000005" included: a directory DeLSM never made, which nothing
// that removes homes may take.
bool ParseHomeDirName(const std::string& name, uint64_t* home);

// One KV file in a home: what a compaction that dropped its entry leaves
// to be unlinked once no version can see the entry.
struct HomeValue {
  uint64_t home = 0;
  std::string name;
};

class HomeDirs {
 public:
  // `root` is <db>/values; `fs` is not owned and must outlive this.
  HomeDirs(FileSystem* fs, std::string root);
  HomeDirs(const HomeDirs&) = delete;
  HomeDirs& operator=(const HomeDirs&) = delete;

  const std::string& root() const { return root_; }
  std::string PathOf(uint64_t home) const;

  // The open directory of `home`, opened on the first call and shared by
  // every later one. NotFound if the home does not exist.
  Status Get(uint64_t home, std::shared_ptr<Directory>* dir);

  // Forgets `home`'s open directory (its last value died and it was
  // removed); readers holding it keep a valid object.
  void Forget(uint64_t home);

 private:
  FileSystem* const fs_;
  const std::string root_;
  port::Mutex mu_;
  std::map<uint64_t, std::shared_ptr<Directory>> open_ GUARDED_BY(mu_);
};

}  // namespace leveldb

#endif  // DELSM_TABLE_HOME_DIRS_H_
