// leveldb::RepairDB (declared in leveldb/db.h).
//
// Placeholder until the real repair lands (issue 5: "RepairDB salvages what
// is intact"): it reports NotSupported and touches nothing. It exists so that
// the shared libraries define every symbol the LevelDB headers declare: the C
// API (leveldb_repair_db) refers to RepairDB, and an undefined symbol there
// makes libleveldb.so.1d fail to load for programs run with immediate
// binding (LD_BIND_NOW, -z now) and breaks linking against libdelsm.so.
// Whoever implements repair replaces this file.
#include <string>

#include "leveldb/db.h"
#include "leveldb/options.h"
#include "leveldb/status.h"

namespace leveldb {

Status RepairDB(const std::string &dbname, const Options &options) {
  return Status::NotSupported(dbname, "RepairDB is not implemented yet");
}

} // namespace leveldb
