// The staging directory the conversion and the take-in of LevelDB's tables
// share (conversion_internal.h): its PLAN, and the moves out of it.
#include <set>
#include <string>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/conversion_internal.h"
#include "compat/leveldb/directory_kind.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/sst_dir_removal.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "util/env_util.h"
#include "util/logging.h"

namespace leveldb {

namespace {

constexpr char kPlanFileName[] = "PLAN";
constexpr char kPlanTempFileName[] = "PLAN.new";
constexpr char kConversionHeader[] =
    "DeLSM conversion of a LevelDB database, v1";
constexpr char kTakeInHeader[] = "DeLSM take-in of LevelDB tables, v1";

std::string EncodePlan(const conversion_internal::StagingPlan& plan) {
  using Kind = conversion_internal::StagingPlan::Kind;
  std::string out =
      plan.kind == Kind::kConversion ? kConversionHeader : kTakeInHeader;
  out += "\n";
  if (plan.kind == Kind::kConversion) {
    out += "manifest " + NumberToString(plan.manifest_number) + "\n";
  }
  for (const auto& m : plan.moves) {
    out += "move " + NumberToString(m.first) + " " + NumberToString(m.second) +
           "\n";
  }
  for (const std::string& r : plan.removals) out += "remove " + r + "\n";
  for (const std::string& l : plan.to_lost) out += "lost " + l + "\n";
  out += "end\n";
  return out;
}

// Only LevelDB's tables and manifests (the one its RepairDB left under a
// temporary name too) may ever be named for removal or for lost/.
bool IsLevelDbFileName(const std::string& name) {
  uint64_t number;
  FileType type;
  return ParseLevelDbTableFileName(name, &number) ||
         (ParseFileName(name, &number, &type) && type == kDescriptorFile) ||
         name == LevelDbRepairManifestName();
}

bool DecodePlan(const std::string& text,
                conversion_internal::StagingPlan* plan) {
  using Kind = conversion_internal::StagingPlan::Kind;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return false;  // torn
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (lines.size() < 2 || lines.back() != "end") return false;
  if (lines.front() == kConversionHeader) {
    plan->kind = Kind::kConversion;
  } else if (lines.front() == kTakeInHeader) {
    plan->kind = Kind::kTakeIn;
  } else {
    return false;
  }
  const bool conversion = plan->kind == Kind::kConversion;
  for (size_t i = 1; i + 1 < lines.size(); i++) {
    Slice line(lines[i]);
    uint64_t a, b;
    if (conversion && line.starts_with("manifest ")) {
      line.remove_prefix(9);
      if (!ConsumeDecimalNumber(&line, &a) || !line.empty()) return false;
      plan->manifest_number = a;
    } else if (line.starts_with("move ")) {
      line.remove_prefix(5);
      if (!ConsumeDecimalNumber(&line, &a) || !line.starts_with(" ")) {
        return false;
      }
      line.remove_prefix(1);
      if (!ConsumeDecimalNumber(&line, &b) || !line.empty() ||
          a >= static_cast<uint64_t>(config::kNumLevels)) {
        return false;
      }
      plan->moves.emplace_back(static_cast<int>(a), b);
    } else if (conversion && line.starts_with("remove ")) {
      line.remove_prefix(7);
      if (!IsLevelDbFileName(line.ToString())) return false;
      plan->removals.push_back(line.ToString());
    } else if (!conversion && line.starts_with("lost ")) {
      line.remove_prefix(5);
      if (!IsLevelDbFileName(line.ToString())) return false;
      plan->to_lost.push_back(line.ToString());
    } else {
      return false;
    }
  }
  return conversion ? plan->manifest_number != 0 : !plan->to_lost.empty();
}

}  // namespace

namespace conversion_internal {

std::string StagedSstPath(const std::string& staging, uint64_t number) {
  const std::string placed = SstDirName("", 0, number);
  return staging + placed.substr(placed.rfind('/'));
}

Status WritePlan(Env* env, const std::string& staging,
                 const StagingPlan& plan) {
  const std::string temp = staging + "/" + kPlanTempFileName;
  Status s = WriteStringToFileSync(env, EncodePlan(plan), temp);
  if (s.ok()) s = env->RenameFile(temp, staging + "/" + kPlanFileName);
  return s;
}

Status ReadPlan(Env* env, const std::string& staging, StagingPlan* plan) {
  const std::string path = staging + "/" + kPlanFileName;
  std::string text;
  Status s = ReadFileToString(env, path, &text);
  if (!s.ok() && !(s.IsNotFound() && !env->FileExists(path))) {
    // A directory under its name is the user's (DeLSM writes PLAN only as
    // a file): no plan, as one that does not decode.
    std::vector<std::string> entries;
    if (env->GetChildren(path, &entries).ok()) {
      return Status::Corruption(path, "a directory, not a plan");
    }
    if (s.IsNotFound()) return Status::IOError(path, s.ToString());
  }
  if (!s.ok()) return s;
  *plan = StagingPlan();
  if (!DecodePlan(text, plan)) {
    return Status::Corruption(path, "not a whole plan");
  }
  return Status::OK();
}

Status RemoveStaging(Env* env, FileSystem* fs, const std::string& staging) {
  std::vector<std::string> children;
  Status s = env->GetChildren(staging, &children);
  if (!s.ok()) return s;
  for (const std::string& child : children) {
    uint64_t number;
    if (ParseSstDirName(child, &number)) {
      s = RemoveSstDirectory(fs, staging + "/" + child, nullptr);
    } else if (IsStagingPlanFileName(child)) {
      s = env->RemoveFile(staging + "/" + child);
    }
    if (!s.ok()) return s;
  }
  return fs->RemoveDir(staging);
}

Status PlaceStagedSsts(FileSystem* fs, delsm::Durability durability,
                       const std::string& dbname, const std::string& staging,
                       const std::vector<std::pair<int, uint64_t>>& moves) {
  std::set<std::string> touched;
  for (const auto& move : moves) {
    const std::string from = StagedSstPath(staging, move.second);
    const std::string to = SstDirName(dbname, move.first, move.second);
    // An SST leaves the staging directory only by this rename, so its
    // absence there (ENOENT) proves it was moved before a crash. A lookup
    // that fails otherwise (EIO, ENOMEM) proves nothing: taken for a move,
    // the SST would stay staged while the caller goes on as if placed
    // (a conversion removes LevelDB's tables, a take-in's repair commits
    // without it).
    bool staged = false, placed = false;
    Status s = fs->Probe(from, &staged);
    if (s.ok() && staged) s = fs->Probe(to, &placed);
    if (!s.ok()) return s;
    if (!staged) continue;  // moved before a crash
    if (placed) {
      return Status::Corruption("LevelDB staging: both staged and placed", to);
    }
    s = fs->CreateDir(LevelDirName(dbname, move.first), true);
    if (s.ok()) s = fs->Rename(from, to);
    if (!s.ok()) return s;
    touched.insert(LevelDirName(dbname, move.first));
  }
  std::vector<std::string> dirs(touched.begin(), touched.end());
  dirs.push_back(staging);
  return MakeDirectoriesDurable(fs, durability, dirs);
}

Status RemoveFinishedStaging(Env* env, FileSystem* fs,
                             delsm::Durability durability,
                             const std::string& dbname,
                             const std::string& staging) {
  Status s = env->RemoveFile(staging + "/" + kPlanFileName);
  if (s.ok()) s = fs->RemoveDir(staging);
  if (s.ok()) s = MakeDirectoriesDurable(fs, durability, {dbname});
  return s;
}

}  // namespace conversion_internal

bool IsStagingPlanFileName(const std::string& name) {
  return name == kPlanFileName || name == kPlanTempFileName;
}

Status TakeInCutShortError(const std::string& dbname,
                           const std::string& operation) {
  return Status::Corruption(
      dbname, "holds a PLAN of RepairDB's taking in of LevelDB's tables (in " +
                  std::string(kLevelDbConversionDirName) +
                  "/), which was cut short; run RepairDB (leveldb::RepairDB) "
                  "with DeLSM, which finishes it. " +
                  operation + " changed nothing");
}

Status ReadStagingState(Env* env, const std::string& dbname,
                        StagingState* state) {
  const std::string staging = dbname + "/" + kLevelDbConversionDirName;
  *state = StagingState::kAbsent;
  // The PLAN is read whether or not the directory's lookup finds it:
  // access(2) says no on any error (EIO), and a take-in's PLAN taken for
  // absent would let Open make a new database beside the SSTs it placed
  // and remove them as SSTs no manifest names. ReadPlan says NotFound only
  // when the open of the PLAN does (ENOENT).
  conversion_internal::StagingPlan plan;
  Status s = conversion_internal::ReadPlan(env, staging, &plan);
  if (s.IsNotFound()) {
    if (env->FileExists(staging)) *state = StagingState::kNoPlan;
  } else if (s.IsCorruption()) {
    *state = StagingState::kUnreadablePlan;
  } else if (s.ok()) {
    *state = plan.kind == conversion_internal::StagingPlan::Kind::kTakeIn
                 ? StagingState::kTakeIn
                 : StagingState::kConversion;
  } else {
    return s;
  }
  return Status::OK();
}

Status FindTableNoPlanNames(Env* env, const std::string& dbname,
                            const std::vector<std::string>& tables,
                            std::string* unplanned) {
  using Kind = conversion_internal::StagingPlan::Kind;
  unplanned->clear();
  if (tables.empty()) return Status::OK();
  conversion_internal::StagingPlan plan;
  Status s = conversion_internal::ReadPlan(
      env, dbname + "/" + kLevelDbConversionDirName, &plan);
  if (s.IsCorruption()) return Status::OK();
  if (!s.ok() && !s.IsNotFound()) return s;
  if (s.ok() && plan.kind == Kind::kTakeIn) return Status::OK();
  std::set<std::string> planned;
  if (s.ok()) planned.insert(plan.removals.begin(), plan.removals.end());
  for (const std::string& table : tables) {
    if (planned.count(table) == 0) {
      *unplanned = table;
      break;
    }
  }
  return Status::OK();
}

}  // namespace leveldb
