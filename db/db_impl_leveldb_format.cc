// Recover on a directory that LevelDB's formats reach: a LevelDB database,
// converted in place (compat/leveldb/conversion.h), and the staging
// directory a conversion or RepairDB's taking in of LevelDB's tables
// leaves when cut short. What cannot be converted was refused before the
// LOCK (CheckDatabaseFormat, called by OpenWithFileSystem); what is here
// runs under it, from Recover.
#include <string>

#include "compat/leveldb/conversion.h"
#include "db/db_impl.h"

namespace leveldb {

LevelDbConversionOptions DBImpl::ConversionOptions() const {
  LevelDbConversionOptions o;
  o.env = env_;
  o.fs = fs_;
  o.info_log = options_.info_log;
  o.user_comparator = internal_comparator_.user_comparator();
  o.sst_options = sst_options_;
  o.durability = tuning_.durability;
  o.sst_entries = tuning_.sst_entries;
  return o;
}

Status DBImpl::CheckNoTakeInCutShort() {
  // A take-in cut short where LevelDB's CURRENT was lost leaves none: its
  // SSTs in L0/, no manifest naming them, its PLAN keeping Open out until
  // RepairDB finishes. Refused here, under the LOCK, before NewDB writes
  // anything (CheckDatabaseFormat refused it before the LOCK if it was one
  // then): a new CURRENT naming an empty manifest is what RepairDB takes
  // for its own repair committed, and it would remove the PLAN before its
  // repair merged those SSTs.
  StagingState staging;
  Status s = ReadStagingState(env_, dbname_, &staging);
  if (!s.ok()) return s;
  if (staging == StagingState::kTakeIn) {
    return TakeInCutShortError(dbname_, "DB::Open");
  }
  // A PLAN that does not decode (damaged) may be such a take-in's: no
  // evidence says its SSTs are copies, and a new database would remove
  // them as named by no manifest. Refused alike; RepairDB refuses it too
  // (ResolveStaging), changing nothing.
  if (staging == StagingState::kUnreadablePlan) {
    return Status::Corruption(
        dbname_ + "/" + kLevelDbConversionDirName + "/PLAN",
        "does not read, and there is no CURRENT: it may be RepairDB's "
        "taking in of LevelDB's tables, cut short, whose SSTs no manifest "
        "names; DB::Open changed nothing");
  }
  return Status::OK();
}

Status DBImpl::ConvertLevelDbDatabase() {
  return ConvertLevelDbIfPresent(ConversionOptions(), dbname_);
}

}  // namespace leveldb
