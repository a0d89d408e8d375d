// RepairDB's salvage of an SST directory it cannot use as it is (a
// compaction added SSTs to it, or its META does not load or names values
// that are gone): the entries that can be taken back from what survives in
// it. Nothing is deleted or moved here; what is not taken back is left for
// RepairDB to put away in lost/.
#ifndef DELSM_DB_REPAIR_SALVAGE_H_
#define DELSM_DB_REPAIR_SALVAGE_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "table/meta_file.h"

namespace leveldb {

class Directory;
class Logger;
class RepairHomes;
class SstDir;

// What SalvageMetaFile (table/meta_file_salvage.h) took back of a meta
// file of the directory that does not read whole: the entries of its
// intact groups, inline values loaded and checked.
struct SalvagedMetaFile {
  std::string name;
  std::vector<MetaEntry> entries;
};

// Sets *entries (in no particular order, one per internal key) to what can
// be taken back from SST directory `src`, whose listing is `names`:
//  - every entry of `metas` (its meta files that loaded) and of `salvaged`
//    (the intact groups of those that did not) whose value is still
//    there: a KV file in `names`, a file in a home (`homes`), or an
//    inline value that reads (a damaged one loses its entry);
//  - an entry for every KV file in `names` that none of those entries
//    names and `retired` (the files only replaced SSTs name) does not
//    hold: its user key from its name (a hashed name's from the
//    directory's LONGKEYS files; without one it is left out), sequence
//    number and compression from its name, sizes and checksum from its
//    bytes. If `named_files` (by internal key, the entries of every
//    loaded meta file whose values are KV files) has its key and sequence
//    number, the file is a link of that entry's value or a stray copy: it
//    is taken back as that entry only if its bytes match that entry's size
//    and checksum;
// but no value (a tombstone is never withheld) whose internal key
// `withheld` holds (Repairer::Withheld says why): its KV file is not
// taken back by its name, its file in a home is noted withheld
// (RepairHomes::NoteWithheld), the meta file holding it inline is not
// read whole; each is logged and counted in *withheld_count.
// Adds to *used the names whose contents *entries holds (meta files read
// whole, LONGKEYS files that read, KV files), and notes the entries of home
// values taken (RepairHomes::NoteUsed). Damage (a damaged LONGKEYS file or
// inline value) only leaves out what it covers; any other error reading
// `src` is returned, and then RepairDB fails.
Status SalvageSstDir(Directory* src, const std::vector<std::string>& names,
                     const std::vector<std::unique_ptr<SstDir>>& metas,
                     const std::vector<SalvagedMetaFile>& salvaged,
                     const std::set<std::string>& retired,
                     const std::map<std::string, MetaEntry>& named_files,
                     const std::function<bool(const Slice&)>& withheld,
                     RepairHomes* homes, Logger* info_log,
                     std::set<std::string>* used,
                     std::vector<MetaEntry>* entries, size_t* withheld_count);

}  // namespace leveldb

#endif  // DELSM_DB_REPAIR_SALVAGE_H_
