// `delsm verify`: checks everything a database's files can be checked
// against, without changing any of them.
//   - every live SST's meta file decodes with its checksums (index, or whole
//     file for format 1) and every inline value matches its entry's crc;
//   - every KV file a live SST names exists, has the stored length and the
//     stored crc32c;
//   - nothing else is in the level directories and the homes. A file, SST
//     directory or home no live SST owns that the next Open removes (a
//     crash leftover: a retired SST, a dead value, an interrupted flush's
//     or compaction's files) is a leftover, reported apart: the database
//     is healthy. One the next Open would keep (in a directory whose meta
//     files do not all read, or not named as DeLSM names its files) is a
//     problem.
// A problem is damage or loss (or something verify cannot vouch for):
// `delsm verify` exits 1 when there is one, 0 otherwise, leftovers or not.
#ifndef DELSM_TOOLS_DB_VERIFY_H_
#define DELSM_TOOLS_DB_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/status.h"
#include "tools/db_view.h"

namespace delsm_tool {

struct VerifyProblem {
  // Problems: "meta", "missing", "length", "checksum", "read", "orphan"
  // (the next Open would keep it), "foreign" (not a DeLSM name), "wal".
  // Leftovers: "leftover".
  std::string kind;
  std::string path;
  std::string detail;
};

struct VerifyReport {
  uint64_t meta_files = 0;     // meta files checked
  uint64_t kv_files = 0;       // KV files checked
  uint64_t inline_values = 0;  // inline values checked
  uint64_t kv_bytes = 0;       // bytes of KV files read
  std::vector<VerifyProblem> problems;
  std::vector<VerifyProblem> leftovers;  // what the next Open removes
};

// Problems found go to *report; the Status is non-OK only when the walk
// itself could not go on (a level directory that cannot be listed).
leveldb::Status VerifyDatabase(leveldb::DbView* view, bool progress,
                               VerifyReport* report);

void PrintVerifyReport(const std::string& dbname, const VerifyReport& report,
                       bool json);

}  // namespace delsm_tool

#endif  // DELSM_TOOLS_DB_VERIFY_H_
