// `delsm verify`: checks everything a database's files can be checked
// against, without changing any of them.
//   - every live SST's meta file decodes with its checksums (index, or whole
//     file for format 1) and every inline value matches its entry's crc;
//   - every KV file a live SST names exists, has the stored length and the
//     stored crc32c;
//   - nothing else is in the level directories: a file or SST directory no
//     live SST owns is an orphan (a crash leftover that the next Open's
//     sweep would remove, or something put there by hand).
#ifndef DELSM_TOOLS_DB_VERIFY_H_
#define DELSM_TOOLS_DB_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/status.h"
#include "tools/db_view.h"

namespace delsm_tool {

struct VerifyProblem {
  std::string kind;  // "meta", "missing", "length", "checksum", "orphan"
  std::string path;
  std::string detail;
};

struct VerifyReport {
  uint64_t meta_files = 0;     // meta files checked
  uint64_t kv_files = 0;       // KV files checked
  uint64_t inline_values = 0;  // inline values checked
  uint64_t kv_bytes = 0;       // bytes of KV files read
  std::vector<VerifyProblem> problems;
};

// Problems found go to *report; the Status is non-OK only when the walk
// itself could not go on (a level directory that cannot be listed).
leveldb::Status VerifyDatabase(leveldb::DbView* view, bool progress,
                               VerifyReport* report);

void PrintVerifyReport(const std::string& dbname, const VerifyReport& report,
                       bool json);

}  // namespace delsm_tool

#endif  // DELSM_TOOLS_DB_VERIFY_H_
