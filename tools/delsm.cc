// delsm: look inside a DeLSM database, and change it only when asked.
//
//   delsm stats  DB [--json] [--quiet]
//   delsm get    DB KEY [--hex] [--json]
//   delsm scan   DB [--from K] [--to K] [--prefix P] [--reverse] [--limit N]
//                   [--keys-only] [--hex] [--json]
//   delsm dump   FILE                 a WAL, manifest, meta file or SST dir
//   delsm verify DB [--json] [--quiet]  exit 1 on damage or loss
//   delsm put    DB KEY VALUE --allow-writes [--hex]
//   delsm delete DB KEY --allow-writes [--hex]
//   delsm export DB OUT [--json] [--quiet] [--batch-bytes N] [--log-bytes N]
//                writes a LevelDB 1.23 database (compat/leveldb/export.h)
//
// Every subcommand but put and delete is read-only (export writes only
// into OUT): it reads the database
// through tools/db_view.h, which takes the LOCK and writes nothing (no new
// manifest, WAL or LOG), so a database another process has open is refused.
// put and delete open the database normally (DB::Open, which recovers and
// may flush) and refuse to run without --allow-writes, and on a LevelDB
// database or an unfinished conversion (the tool never converts).
//
// --hex: KEY (and VALUE) are given in hex, and keys and values are printed
// in hex; otherwise they are taken as given and printed with non-printable
// bytes as \xNN. Exit status: 0 success, 1 a problem found (verify) or a
// key not found (get), 2 bad usage or an error.
//
// Adding a subcommand: write a function `int RunX(const Args&)` and add a row
// to kCommands below; the row states its flags, so parsing and --help
// follow from the table.
#include "delsm/delsm.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/directory_kind.h"
#include "compat/leveldb/export.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/dumpfile.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "tools/db_verify.h"
#include "tools/db_view.h"
#include "tools/disk_stats.h"
#include "tools/tool_util.h"

namespace delsm_tool {
namespace {

using leveldb::Slice;
using leveldb::Status;

int Fail(const Status& s) {
  std::fprintf(stderr, "delsm: %s\n", s.ToString().c_str());
  return 2;
}

int Usage(const char* msg) {
  std::fprintf(stderr, "delsm: %s (see delsm --help)\n", msg);
  return 2;
}

// A key or value as given on the command line (hex-decoded with --hex).
bool Input(const Args& args, const std::string& text, std::string* bytes) {
  if (!args.Has("hex")) {
    *bytes = text;
    return true;
  }
  return FromHex(text, bytes);
}

std::string Output(const Args& args, const Slice& bytes) {
  return args.Has("hex") ? Hex(bytes) : Printable(bytes);
}

Status OpenView(const Args& args, std::unique_ptr<leveldb::DbView>* view) {
  return leveldb::DbView::Open(args.positional[0], view);
}

int RunStats(const Args& args) {
  std::unique_ptr<leveldb::DbView> view;
  Status s = OpenView(args, &view);
  if (!s.ok()) return Fail(s);
  DiskStats stats;
  s = CollectDiskStats(view.get(), !args.Has("quiet"), &stats);
  if (!s.ok()) return Fail(s);
  PrintDiskStats(args.positional[0], stats, args.Has("json"));
  return 0;
}

int RunVerify(const Args& args) {
  std::unique_ptr<leveldb::DbView> view;
  Status s = OpenView(args, &view);
  if (!s.ok()) return Fail(s);
  VerifyReport report;
  s = VerifyDatabase(view.get(), !args.Has("quiet"), &report);
  if (!s.ok()) return Fail(s);
  if (view->wal_records_skipped() > 0) {
    report.problems.push_back({"wal", args.positional[0],
                               std::to_string(view->wal_records_skipped()) +
                                   " damaged WAL record(s) skipped"});
  }
  PrintVerifyReport(args.positional[0], report, args.Has("json"));
  return report.problems.empty() ? 0 : 1;
}

int RunGet(const Args& args) {
  std::string key;
  if (!Input(args, args.positional[1], &key)) return Usage("KEY is not hex");
  std::unique_ptr<leveldb::DbView> view;
  Status s = OpenView(args, &view);
  if (!s.ok()) return Fail(s);
  std::unique_ptr<leveldb::Iterator> it(view->NewIterator(true));
  it->Seek(key);
  const bool found = it->Valid() && it->key() == Slice(key);
  if (!it->status().ok()) return Fail(it->status());
  if (args.Has("json")) {
    JsonWriter w;
    w.BeginObject();
    w.Field("key", Output(args, key));
    w.Field("found", found);
    if (found) {
      w.Field("value", Output(args, it->value()));
    }
    w.EndObject();
    w.Finish();
  } else if (found) {
    std::printf("%s\n", Output(args, it->value()).c_str());
  } else {
    std::fprintf(stderr, "delsm: NotFound: %s\n", Output(args, key).c_str());
  }
  return found ? 0 : 1;
}

int RunScan(const Args& args) {
  std::string from, to, prefix;
  if (!Input(args, args.Get("from"), &from) ||
      !Input(args, args.Get("to"), &to) ||
      !Input(args, args.Get("prefix"), &prefix)) {
    return Usage("--from, --to or --prefix is not hex");
  }
  uint64_t limit = UINT64_MAX;
  if (args.Has("limit")) {
    char* end = nullptr;
    const std::string text = args.Get("limit");
    limit = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') return Usage("--limit is not a number");
  }
  std::unique_ptr<leveldb::DbView> view;
  Status s = OpenView(args, &view);
  if (!s.ok()) return Fail(s);
  std::unique_ptr<leveldb::Iterator> it(view->NewIterator(true));
  const bool reverse = args.Has("reverse");
  const bool has_from = args.Has("from"), has_to = args.Has("to");
  // Range [from, to) intersected with the keys starting with prefix.
  auto in_range = [&](const Slice& k) {
    if (has_from && k.compare(from) < 0) return false;
    if (has_to && k.compare(to) >= 0) return false;
    return k.starts_with(prefix);
  };
  if (!reverse) {
    const std::string start = from.compare(prefix) > 0 ? from : prefix;
    it->Seek(start);
  } else {
    // Start at the last key below `to`, and below the keys past the prefix.
    std::string end = has_to ? to : "";
    std::string past_prefix = prefix;
    while (!past_prefix.empty() &&
           static_cast<unsigned char>(past_prefix.back()) == 0xff) {
      past_prefix.pop_back();
    }
    if (!past_prefix.empty()) {
      past_prefix.back() = static_cast<char>(past_prefix.back() + 1);
      if (end.empty() || past_prefix.compare(end) < 0) end = past_prefix;
    }
    if (end.empty()) {
      it->SeekToLast();
    } else {
      it->Seek(end);
      if (it->Valid())
        it->Prev();
      else
        it->SeekToLast();
    }
  }
  const bool json = args.Has("json"), keys_only = args.Has("keys-only");
  JsonWriter w;
  if (json) w.BeginArray();
  uint64_t n = 0;
  for (; it->Valid() && n < limit; reverse ? it->Prev() : it->Next()) {
    const Slice k = it->key();
    if (!in_range(k)) {
      // Outside the range on the far side: done. (Seek placed the cursor on
      // the near side's first candidate.)
      break;
    }
    ++n;
    if (json) {
      w.BeginObject();
      w.Field("key", Output(args, k));
      if (!keys_only) {
        w.Field("value", Output(args, it->value()));
      }
      w.EndObject();
    } else if (keys_only) {
      std::printf("%s\n", Output(args, k).c_str());
    } else {
      std::printf("%s => %s\n", Output(args, k).c_str(),
                  Output(args, it->value()).c_str());
    }
  }
  if (json) {
    w.EndArray();
    w.Finish();
  }
  if (!it->status().ok()) return Fail(it->status());
  return 0;
}

// Writes the dump to stdout.
class StdoutFile : public leveldb::WritableFile {
 public:
  Status Append(const Slice& data) override {
    if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size()) {
      return Status::IOError("stdout", std::strerror(errno));
    }
    return Status::OK();
  }
  Status Close() override { return Flush(); }
  Status Flush() override {
    return std::fflush(stdout) == 0
               ? Status::OK()
               : Status::IOError("stdout", std::strerror(errno));
  }
  Status Sync() override { return Flush(); }
};

int RunDump(const Args& args) {
  StdoutFile out;
  Status s =
      leveldb::DumpFile(leveldb::Env::Default(), args.positional[0], &out);
  if (s.ok()) s = out.Flush();
  return s.ok() ? 0 : Fail(s);
}

// put and delete: the only subcommands that change the database.
int RunWrite(const Args& args, bool is_put) {
  if (!args.Has("allow-writes")) {
    return Usage("put and delete change the database: add --allow-writes");
  }
  std::string key, value;
  if (!Input(args, args.positional[1], &key) ||
      (is_put && !Input(args, args.positional[2], &value))) {
    return Usage("KEY or VALUE is not hex");
  }
  // No typo may make a database: DB::Open creates the directory and its
  // LOCK before it finds there is no CURRENT, so look first.
  const std::string& dbname = args.positional[0];
  leveldb::Env* env = leveldb::Env::Default();
  if (!env->FileExists(dbname + "/CURRENT")) {
    return Fail(Status::NotFound(dbname, "no database here"));
  }
  // The tool never converts: DB::Open would convert a LevelDB database in
  // place (or finish a conversion), and LevelDB could no longer open it.
  leveldb::DatabaseFormat format;
  std::string evidence;
  Status s = leveldb::DetectDatabaseFormat(env, dbname, &format, &evidence);
  if (!s.ok()) return Fail(s);
  if (format == leveldb::DatabaseFormat::kLevelDb) {
    return Fail(Status::NotSupported(
        dbname, "is a LevelDB database (" + evidence +
                    "); the delsm tool does not convert it. Write to it "
                    "with LevelDB, or open it once with DeLSM (DB::Open "
                    "converts it in place) first. Nothing was changed"));
  }
  if (env->FileExists(dbname + "/" + leveldb::kLevelDbConversionDirName)) {
    return Fail(Status::NotSupported(
        dbname,
        "holds an unfinished LevelDB conversion or repair (" +
            std::string(leveldb::kLevelDbConversionDirName) +
            "/); the delsm tool does not convert: open it once with DeLSM, "
            "which finishes a conversion, or run RepairDB if Open refuses it "
            "(a repair's take-in of LevelDB's tables), first. Nothing was "
            "changed"));
  }
  s = leveldb::CheckDatabaseFormat(env, dbname, leveldb::BytewiseComparator(),
                                   is_put ? "delsm put" : "delsm delete");
  if (!s.ok()) return Fail(s);
  leveldb::Options options;
  leveldb::DB* raw = nullptr;
  s = delsm::Open(options, delsm::Tuning(), dbname, &raw);
  if (!s.ok()) return Fail(s);
  std::unique_ptr<leveldb::DB> db(raw);
  leveldb::WriteOptions wo;
  wo.sync = true;
  s = is_put ? db->Put(wo, key, value) : db->Delete(wo, key);
  return s.ok() ? 0 : Fail(s);
}

int RunPut(const Args& args) { return RunWrite(args, true); }
int RunDelete(const Args& args) { return RunWrite(args, false); }

// A positive byte count given as --name N (with an optional K/M/G suffix).
bool ByteCount(const Args& args, const std::string& name, uint64_t* value) {
  if (!args.Has(name)) return true;
  const std::string text = args.Get(name);
  char* end = nullptr;
  uint64_t v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || end == text.c_str()) return false;
  const std::string suffix = end;
  if (suffix == "K") {
    v <<= 10;
  } else if (suffix == "M") {
    v <<= 20;
  } else if (suffix == "G") {
    v <<= 30;
  } else if (!suffix.empty()) {
    return false;
  }
  if (v == 0) return false;
  *value = v;
  return true;
}

void PrintExportSummary(const std::string& dbname, const std::string& out_dir,
                        const leveldb::ExportSummary& summary, bool json) {
  if (json) {
    JsonWriter w;
    w.BeginObject();
    w.Field("db", dbname);
    w.Field("out", out_dir);
    w.Field("format", "leveldb-1.23 (MANIFEST + WAL)");
    w.Field("entries", summary.entries);
    w.Field("key_bytes", summary.key_bytes);
    w.Field("value_bytes", summary.value_bytes);
    w.Field("batches", summary.batches);
    w.Field("log_files", summary.log_files);
    w.Field("bytes_written", summary.bytes_written);
    w.Field("last_sequence", summary.entries);
    w.EndObject();
    w.Finish();
    return;
  }
  std::printf(
      "exported %llu entries (%llu key bytes, %llu value bytes) from %s\n"
      "to the LevelDB 1.23 database %s: %llu WAL file(s), %llu batches, %llu "
      "bytes written.\nLevelDB replays the WALs into its own tables when it "
      "first opens it.\n",
      static_cast<unsigned long long>(summary.entries),
      static_cast<unsigned long long>(summary.key_bytes),
      static_cast<unsigned long long>(summary.value_bytes), dbname.c_str(),
      out_dir.c_str(), static_cast<unsigned long long>(summary.log_files),
      static_cast<unsigned long long>(summary.batches),
      static_cast<unsigned long long>(summary.bytes_written));
}

int RunExport(const Args& args) {
  leveldb::ExportOptions options;
  if (!ByteCount(args, "batch-bytes", &options.batch_bytes) ||
      !ByteCount(args, "log-bytes", &options.log_bytes)) {
    return Usage(
        "--batch-bytes and --log-bytes take a positive size (N[K|M|G])");
  }
  // The source first: a typo in DB must not leave an OUT behind.
  std::unique_ptr<leveldb::DbView> view;
  Status s = OpenView(args, &view);
  if (!s.ok()) return Fail(s);
  // Export copies everything or nothing: a WAL record Open would skip is
  // not left out silently.
  if (view->wal_records_skipped() > 0) {
    return Fail(Status::Corruption(
        view->dbname(), std::to_string(view->wal_records_skipped()) +
                            " damaged WAL record(s) would be left out of the "
                            "export (see delsm verify)"));
  }
  // A line on stderr for a long export, ended when writing entries ends.
  std::unique_ptr<Progress> progress;
  const bool show_progress = !args.Has("quiet");
  options.progress = [&progress, show_progress](uint64_t entries, bool done) {
    if (done) {
      progress.reset();
      return;
    }
    if (!progress) progress.reset(new Progress("export", 0, show_progress));
    progress->Update(entries);
  };
  leveldb::ExportSummary summary;
  std::unique_ptr<leveldb::Iterator> source(view->NewIterator(true));
  s = leveldb::ExportToLevelDb(source.get(), view->dbname(), args.positional[1],
                               options, &summary);
  if (!s.ok()) return Fail(s);
  PrintExportSummary(args.positional[0], args.positional[1], summary,
                     args.Has("json"));
  return 0;
}

struct Command {
  const char* name;
  int positionals;  // exact count required
  const char* usage;
  std::set<std::string> bool_flags;
  std::set<std::string> value_flags;
  int (*run)(const Args&);
};

const Command kCommands[] = {
    {"stats",
     1,
     "DB [--json] [--quiet]   per-level files, entries, bytes, "
     "inodes; free space",
     {"json", "quiet"},
     {},
     RunStats},
    {"get",
     2,
     "DB KEY [--hex] [--json]   one key's value (exit 1 if absent)",
     {"hex", "json"},
     {},
     RunGet},
    {"scan",
     1,
     "DB [--from K] [--to K] [--prefix P] [--reverse] [--limit N] "
     "[--keys-only] [--hex] [--json]",
     {"reverse", "keys-only", "hex", "json"},
     {"from", "to", "prefix", "limit"},
     RunScan},
    {"dump",
     1,
     "FILE   a WAL, manifest, meta file or SST directory, as text",
     {},
     {},
     RunDump},
    {"verify",
     1,
     "DB [--json] [--quiet]   checksums, lengths, leftovers (exit 1 on "
     "damage or loss)",
     {"json", "quiet"},
     {},
     RunVerify},
    {"put",
     3,
     "DB KEY VALUE --allow-writes [--hex]",
     {"allow-writes", "hex"},
     {},
     RunPut},
    {"delete",
     2,
     "DB KEY --allow-writes [--hex]",
     {"allow-writes", "hex"},
     {},
     RunDelete},
    {"export",
     2,
     "DB OUT [--json] [--quiet] [--batch-bytes N] [--log-bytes N]   a "
     "LevelDB 1.23 database with every key of DB, in the new or empty "
     "directory OUT",
     {"json", "quiet"},
     {"batch-bytes", "log-bytes"},
     RunExport},
};

void PrintHelp(FILE* f) {
  std::fprintf(f,
               "usage: delsm <command> ...\n"
               "Read-only unless a command says otherwise.\n");
  for (const Command& c : kCommands) {
    std::fprintf(f, "  delsm %-7s %s\n", c.name, c.usage);
  }
}

}  // namespace
}  // namespace delsm_tool

int main(int argc, char** argv) {
  using namespace delsm_tool;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    PrintHelp(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    Args args;
    Status s =
        ParseArgs(argc - 2, argv + 2, c.bool_flags, c.value_flags, &args);
    if (!s.ok()) return Fail(s);
    if (static_cast<int>(args.positional.size()) != c.positionals) {
      std::fprintf(stderr, "usage: delsm %s %s\n", c.name, c.usage);
      return 2;
    }
    return c.run(args);
  }
  std::fprintf(stderr, "delsm: unknown command '%s'\n", argv[1]);
  PrintHelp(stderr);
  return 2;
}
