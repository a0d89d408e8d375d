// What a damaged format-4 meta file (table/meta_file.h) still proves: its
// entries are in groups, each under its own crc32c, and its trailer, under
// its own, says where each group is and which keys it starts with. A group
// that checks holds exactly the entries the writer wrote, whatever else in
// the file is damaged; so RepairDB (db/repair_salvage.h) takes those back,
// as LevelDB's RepairDB takes back every record of a table's intact blocks,
// and loses only a damaged group's. Reads memory only.
#ifndef DELSM_TABLE_META_FILE_SALVAGE_H_
#define DELSM_TABLE_META_FILE_SALVAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/comparator.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "table/meta_file.h"

namespace leveldb {

struct MetaFileSalvage {
  // A group whose entries are lost: its number, how many entries it held,
  // and the user keys it may have held, from its first key to the next
  // group's first key (the trailer's largest key for the last group), both
  // included: one user key's versions may span two groups.
  struct LostGroup {
    size_t group = 0;
    uint64_t entries = 0;
    std::string smallest_user_key;
    std::string largest_user_key;
    // Its entries' internal keys, in the file's order: from first_key, at
    // or after it, to limit_key, before it (the next group's first key) or,
    // for the last group, at or before it (the file's largest key).
    std::string first_key;
    std::string limit_key;
    bool limit_included = false;
    Status why;  // what DecodeMetaGroup found wrong
  };

  // Every entry of every group that checks, in order, each inline value
  // loaded into inline_value and checked against its entry's crc; an
  // inline entry whose value fails its crc is left out, and its user key
  // is in damaged_value_keys.
  std::vector<MetaEntry> entries;
  std::vector<std::string> damaged_value_keys;
  std::vector<LostGroup> lost_groups;
  // Whether the trailer read (else the groups were found by their own
  // checksums, and every one of them was: lost_groups is empty).
  bool trailer_read = false;
  // The trailer's filter (FilterPolicy name, length-prefixed, then the
  // filter) over the user keys of every entry, the lost ones included;
  // empty when the trailer did not read.
  std::string filter;
};

// Format 4, for a reader whose trailer is lost: whether `bytes` begins
// with a group, that is one to kMetaGroupEntries records, each of whose
// fields checks as in DecodeMetaGroup, followed by the masked crc32c of
// those records. The crc is tried after every record, so the last group of
// a file, which may hold fewer entries, is found too (a caller that finds
// a short group elsewhere has found no group). If so, sets *out to its
// entries (pointing into `bytes`; inline_offset 0: without the trailer a
// group's share of the value section is not known) and *size to its
// length, records and crc.
bool FindMetaGroupAt(const Slice& bytes, std::vector<MetaIndexEntry>* out,
                     uint64_t* size);

// Salvages the format-4 meta file `data`:
//  - if its trailer reads (its crc holds), every group the trailer
//    describes is decoded on its own (DecodeMetaGroup, crc and all); a
//    group that does not decode becomes a LostGroup;
//  - if not, the groups are found without it: a chain of groups
//    (FindMetaGroupAt), all of kMetaGroupEntries entries but the last,
//    their keys in ascending order under `icmp`, that starts where the
//    inline values its entries name end (kMetaValuesOffset plus their
//    stored sizes) and ends exactly where the footer says the trailer
//    starts. Every byte between the head and the trailer is then accounted
//    for by checksummed groups, and each inline value by its own crc: that
//    is the proof that no entry is missing. A chain that falls short proves
//    nothing about the entries past it, and none is taken.
// Corruption naming `path_for_errors` when nothing can be taken back on
// that evidence: a footer that does not read (the trailer's place is then
// unknown), a format other than 4 (its index is under one crc), no chain
// of groups.
Status SalvageMetaFile(const Slice& data, const Comparator* icmp,
                       const std::string& path_for_errors,
                       MetaFileSalvage* result);

}  // namespace leveldb

#endif  // DELSM_TABLE_META_FILE_SALVAGE_H_
