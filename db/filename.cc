#include "db/filename.h"

#include <cstdio>

#include "db/dbformat.h"
#include "leveldb/env.h"
#include "util/env_util.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// dbname/<number padded to six digits><suffix>
std::string NumberedName(const std::string& dbname, uint64_t number,
                         const char* suffix) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "/%06llu%s",
                static_cast<unsigned long long>(number), suffix);
  return dbname + buf;
}

// Consumes a decimal number that makes up all of `in` (no sign, no empty
// string, no overflow).
bool WholeNumber(Slice in, uint64_t* number) {
  return ConsumeDecimalNumber(&in, number) && in.empty();
}

}  // namespace

const char kCleanCloseMarkerName[] = "CLOSED";

std::string LogFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, ".log");
}

std::string DescriptorFileName(const std::string& dbname, uint64_t number) {
  return dbname + "/" + DescriptorName(number);
}

std::string DescriptorName(uint64_t number) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "MANIFEST-%06llu",
                static_cast<unsigned long long>(number));
  return buf;
}

std::string CurrentFileName(const std::string& dbname) {
  return dbname + "/CURRENT";
}

std::string LockFileName(const std::string& dbname) { return dbname + "/LOCK"; }

std::string TempFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, ".dbtmp");
}

std::string InfoLogFileName(const std::string& dbname) {
  return dbname + "/LOG";
}

std::string OldInfoLogFileName(const std::string& dbname) {
  return dbname + "/LOG.old";
}

std::string LevelDirName(const std::string& dbname, int level) {
  return dbname + "/L" + std::to_string(level);
}

std::string SstDirName(const std::string& dbname, int level, uint64_t number) {
  return NumberedName(LevelDirName(dbname, level), number, ".sst");
}

bool ParseFileName(const std::string& filename, uint64_t* number,
                   FileType* type) {
  Slice rest(filename);
  if (rest == "CURRENT") {
    *number = 0;
    *type = kCurrentFile;
    return true;
  }
  if (rest == "LOCK") {
    *number = 0;
    *type = kDBLockFile;
    return true;
  }
  if (rest == "LOG" || rest == "LOG.old") {
    *number = 0;
    *type = kInfoLogFile;
    return true;
  }
  if (rest.starts_with("MANIFEST-")) {
    rest.remove_prefix(sizeof("MANIFEST-") - 1);
    uint64_t n;
    if (!WholeNumber(rest, &n)) return false;
    *number = n;
    *type = kDescriptorFile;
    return true;
  }
  if (rest.starts_with("L") && rest.size() > 1) {
    rest.remove_prefix(1);
    uint64_t level;
    // Exactly "L<digit>": no leading zeros or other spellings of a level.
    if (rest.size() != 1 || !WholeNumber(rest, &level) ||
        level >= static_cast<uint64_t>(config::kNumLevels)) {
      return false;
    }
    *number = level;
    *type = kLevelDir;
    return true;
  }
  uint64_t n;
  if (!ConsumeDecimalNumber(&rest, &n)) return false;
  if (rest == ".log") {
    *type = kLogFile;
  } else if (rest == ".dbtmp") {
    *type = kTempFile;
  } else {
    return false;
  }
  *number = n;
  return true;
}

bool ParseSstDirName(const std::string& name, uint64_t* number) {
  Slice rest(name);
  uint64_t n;
  if (!ConsumeDecimalNumber(&rest, &n) || rest != ".sst") return false;
  // Only the spelling SstDirName gives n ("%06llu": six digits, zero
  // padded, or more without a leading zero): "5.sst" or "0000005.sst" is
  // not DeLSM's, and whatever removes SST directories leaves it alone.
  const size_t digits = name.size() - rest.size();
  if (digits < 6 || (digits > 6 && name[0] == '0')) return false;
  *number = n;
  return true;
}

Status SetCurrentFile(Env* env, const std::string& dbname,
                      uint64_t descriptor_number) {
  const std::string tmp = TempFileName(dbname, descriptor_number);
  Status s =
      WriteStringToFileSync(env, DescriptorName(descriptor_number) + "\n", tmp);
  if (s.ok()) s = env->RenameFile(tmp, CurrentFileName(dbname));
  if (!s.ok()) env->RemoveFile(tmp);  // Best effort; the error is s.
  return s;
}

}  // namespace leveldb
