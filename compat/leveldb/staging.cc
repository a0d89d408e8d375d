// The staging directory the conversion and the take-in of LevelDB's tables
// share (conversion_internal.h): its PLAN, and the moves out of it.
#include <algorithm>
#include <memory>
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
#include "util/crc32c.h"
#include "util/env_util.h"
#include "util/logging.h"

namespace leveldb {

namespace {

constexpr char kPlanFileName[] = "PLAN";
constexpr char kPlanTempFileName[] = "PLAN.new";
// The format this build writes names each of LevelDB's files with its
// identity (and, for a take-in, its name in lost/); the previous format
// named them by name alone, and is still read.
constexpr char kConversionHeader[] =
    "DeLSM conversion of a LevelDB database, v2";
constexpr char kTakeInHeader[] = "DeLSM take-in of LevelDB tables, v2";
constexpr char kUnidentifiedConversionHeader[] =
    "DeLSM conversion of a LevelDB database, v1";
constexpr char kUnidentifiedTakeInHeader[] =
    "DeLSM take-in of LevelDB tables, v1";

using conversion_internal::PlannedFile;

std::string EncodeFile(const PlannedFile& f, bool with_lost_name) {
  std::string out = f.name;
  if (f.identified) {
    out += " " + NumberToString(f.identity.size) + " " +
           NumberToString(f.identity.crc);
    if (with_lost_name) out += " " + f.lost_name;
  }
  return out;
}

std::string EncodePlan(const conversion_internal::StagingPlan& plan) {
  using Kind = conversion_internal::StagingPlan::Kind;
  std::string out;
  if (plan.kind == Kind::kConversion) {
    out = plan.identified ? kConversionHeader : kUnidentifiedConversionHeader;
  } else {
    out = plan.identified ? kTakeInHeader : kUnidentifiedTakeInHeader;
  }
  out += "\n";
  if (plan.kind == Kind::kConversion) {
    out += "manifest " + NumberToString(plan.manifest_number) + "\n";
  }
  for (const auto& m : plan.moves) {
    out += "move " + NumberToString(m.first) + " " + NumberToString(m.second) +
           "\n";
  }
  for (const PlannedFile& r : plan.removals) {
    out += "remove " + EncodeFile(r, false) + "\n";
  }
  for (const PlannedFile& l : plan.to_lost) {
    out += "lost " + EncodeFile(l, true) + "\n";
  }
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

// The names a take-in gives `name` in lost/: leveldb-<name>, and
// leveldb-<name>.<k> (k from 1 up).
std::string LostNameFor(const std::string& name, int k) {
  std::string lost = "leveldb-" + name;
  if (k > 0) lost += "." + std::to_string(k);
  return lost;
}

bool IsLostNameFor(const std::string& name, const std::string& lost) {
  const std::string base = LostNameFor(name, 0);
  if (lost == base) return true;
  if (lost.compare(0, base.size() + 1, base + ".") != 0) return false;
  Slice k(lost.data() + base.size() + 1, lost.size() - base.size() - 1);
  uint64_t n;
  return !k.empty() && k[0] != '0' && ConsumeDecimalNumber(&k, &n) && k.empty();
}

// Decodes "<name>" (the previous format) or "<name> <size> <crc>", then
// " <lost name>" if `with_lost_name`, into *f.
bool DecodeFile(Slice line, bool identified, bool with_lost_name,
                PlannedFile* f) {
  const char* end = line.data() + line.size();
  const char* space = std::find(line.data(), end, ' ');  // names hold no space
  f->name.assign(line.data(), space - line.data());
  if (!IsLevelDbFileName(f->name)) return false;
  f->identified = identified;
  if (!identified) return space == end;
  line = Slice(space, end - space);
  uint64_t size, crc;
  if (!line.starts_with(" ")) return false;
  line.remove_prefix(1);
  if (!ConsumeDecimalNumber(&line, &size) || !line.starts_with(" ")) {
    return false;
  }
  line.remove_prefix(1);
  if (!ConsumeDecimalNumber(&line, &crc) || crc > 0xffffffffu) return false;
  f->identity.size = size;
  f->identity.crc = static_cast<uint32_t>(crc);
  if (!with_lost_name) return line.empty();
  if (!line.starts_with(" ")) return false;
  line.remove_prefix(1);
  f->lost_name = line.ToString();
  return IsLostNameFor(f->name, f->lost_name);
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
  const std::string& header = lines.front();
  if (header == kConversionHeader || header == kUnidentifiedConversionHeader) {
    plan->kind = Kind::kConversion;
  } else if (header == kTakeInHeader || header == kUnidentifiedTakeInHeader) {
    plan->kind = Kind::kTakeIn;
  } else {
    return false;
  }
  plan->identified = header == kConversionHeader || header == kTakeInHeader;
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
      PlannedFile f;
      if (!DecodeFile(line, plan->identified, false, &f)) return false;
      plan->removals.push_back(f);
    } else if (!conversion && line.starts_with("lost ")) {
      line.remove_prefix(5);
      PlannedFile f;
      if (!DecodeFile(line, plan->identified, true, &f)) return false;
      plan->to_lost.push_back(f);
    } else {
      return false;
    }
  }
  return conversion ? plan->manifest_number != 0 : !plan->to_lost.empty();
}

}  // namespace

namespace conversion_internal {

Status ReadFileIdentity(Env* env, const std::string& path,
                        FileIdentity* identity) {
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  constexpr size_t kChunk = 1 << 16;
  std::unique_ptr<char[]> buf(new char[kChunk]);
  uint64_t size = 0;
  uint32_t crc = 0;
  while (true) {
    Slice chunk;
    s = file->Read(kChunk, &chunk, buf.get());
    if (!s.ok()) return s;
    if (chunk.empty()) break;
    crc = crc32c::Extend(crc, chunk.data(), chunk.size());
    size += chunk.size();
  }
  identity->size = size;
  identity->crc = crc;
  return Status::OK();
}

Status IsPlannedFile(Env* env, const std::string& dbname,
                     const std::set<std::string>& listed,
                     const PlannedFile& file, bool* match) {
  *match = listed.count(file.name) > 0;
  if (!*match || !file.identified) return Status::OK();
  const std::string path = dbname + "/" + file.name;
  // The size first: a file of another size is not the one (and is not
  // read whole for it).
  uint64_t size;
  Status s = env->GetFileSize(path, &size);
  if (!s.ok()) return s;
  FileIdentity identity;
  if (size == file.identity.size) s = ReadFileIdentity(env, path, &identity);
  if (!s.ok()) return s;
  *match = size == file.identity.size && identity == file.identity;
  return Status::OK();
}

std::vector<std::string> PlannedNames(const std::vector<PlannedFile>& files) {
  std::vector<std::string> names;
  for (const PlannedFile& f : files) names.push_back(f.name);
  return names;
}

Status ListLost(Env* env, const std::string& dbname,
                std::vector<std::string>* names) {
  names->clear();
  const std::string lost = dbname + "/lost";
  Status s = env->GetChildren(lost, names);
  if (s.IsNotFound() && !env->FileExists(lost)) return Status::OK();
  return s;
}

Status ChooseLostNames(Env* env, const std::string& dbname,
                       std::vector<PlannedFile>* files) {
  std::vector<std::string> listed;
  Status s = ListLost(env, dbname, &listed);
  if (!s.ok()) return s;
  std::set<std::string> taken(listed.begin(), listed.end());
  for (const PlannedFile& f : *files) {
    if (!f.lost_name.empty()) taken.insert(f.lost_name);
  }
  for (PlannedFile& f : *files) {
    if (!f.lost_name.empty()) continue;
    int k = 0;
    while (taken.count(LostNameFor(f.name, k)) > 0) k++;
    f.lost_name = LostNameFor(f.name, k);
    taken.insert(f.lost_name);
  }
  return Status::OK();
}

// A name is taken if lost/'s listing holds it, which fails the move if it
// cannot be read: a lookup of the name itself (FileExists, access(2))
// answers no on any error (EIO), and a name taken for free on that would
// lose what lost/ held there.
Status MoveToLost(Env* env, FileSystem* fs, const std::string& dbname,
                  const std::string& name, const std::string& lost_name) {
  const std::string lost = dbname + "/lost";
  Status s = fs->CreateDir(lost, true);
  if (!s.ok()) return s;
  env->CreateDir(lost);  // the Env's own (a memory Env's); may exist
  std::vector<std::string> listed;
  s = env->GetChildren(lost, &listed);
  if (!s.ok()) return s;
  const std::set<std::string> taken(listed.begin(), listed.end());
  std::string to = lost_name;
  if (to.empty()) {
    for (int k = 0; to.empty() || taken.count(to) > 0; k++) {
      to = LostNameFor(name, k);
    }
  } else if (taken.count(to) > 0) {
    return Status::Corruption(lost + "/" + to,
                              "taken; the PLAN moves " + name + " there");
  }
  return env->RenameFile(dbname + "/" + name, lost + "/" + to);
}

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
  if (s.IsNotFound()) {
    *unplanned = tables.front();
    return Status::OK();
  }
  // A table under a name the PLAN removes is the one it removes only if it
  // is of the identity the PLAN records (a PLAN of the previous format
  // records none, and names it by name alone).
  const std::set<std::string> listed(tables.begin(), tables.end());
  for (const std::string& table : tables) {
    bool planned = false;
    for (const conversion_internal::PlannedFile& f : plan.removals) {
      if (f.name != table) continue;
      s = conversion_internal::IsPlannedFile(env, dbname, listed, f, &planned);
      if (!s.ok()) return s;
      if (planned) break;
    }
    if (!planned) {
      *unplanned = table;
      break;
    }
  }
  return Status::OK();
}

}  // namespace leveldb
