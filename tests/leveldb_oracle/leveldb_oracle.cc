// leveldb_oracle: makes and reads databases with real LevelDB (Debian's
// libleveldb.so.1d, linked by full path; see tests/extra.cmake), so tests
// can check DeLSM against LevelDB's own files and behaviour. It must run in
// its own process: DeLSM and LevelDB define the same symbols and cannot
// share one. Tests get its path from the LEVELDB_ORACLE compile definition.
// Never run it with LD_LIBRARY_PATH pointing at DeLSM's drop-in library.
//
// Usage:
//   leveldb_oracle create <db> [options]   read commands from stdin, apply
//                                          them to <db> (created if missing)
//   leveldb_oracle dump <db> [options]     print every live entry
//   leveldb_oracle repair <db> [options]   leveldb::RepairDB(<db>), as a
//                                          user would run it on a database
//                                          LevelDB refuses to open
//   leveldb_oracle destroy <db> [options]  leveldb::DestroyDB(<db>)
//
// Options (both modes):
//   --compression=snappy|none   Options::compression (default snappy)
//   --write_buffer_size=N       Options::write_buffer_size (default LevelDB's)
//   --max_file_size=N           Options::max_file_size (default LevelDB's)
//   --block_size=N              Options::block_size (default LevelDB's)
//   --paranoid_checks           Options::paranoid_checks = true
//   --bloom_bits=N              Options::filter_policy = a Bloom filter of
//                               N bits per key (default none)
//   --reverse_comparator        Options::comparator orders keys by reversed
//                               bytewise order; its name is
//                               "delsm_test.ReverseBytewise"
//   --case_insensitive_comparator
//                               Options::comparator orders keys bytewise
//                               after mapping ASCII 'A'-'Z' to 'a'-'z', so
//                               "a" and "A" are one key; its name is
//                               "delsm_test.CaseInsensitive"
//   --verify_checksums          ReadOptions::verify_checksums (dump)
//   --no_close                  create: leave by _exit(0) without closing
//                               the DB, so the last writes stay in the WAL
//                               only (LevelDB writes the WAL before it
//                               acknowledges, so nothing acknowledged is lost)
//
// Commands for create, one per line (blank lines and lines starting with
// '#' are ignored); keys and values are lowercase or uppercase hex, "-" is
// the empty string:
//   put <key hex> <value hex>
//   delete <key hex>
//   fill <first> <count> <value bytes>
//          puts keys "key%010u" for first..first+count-1; the value of key i
//          is the bytes of "v<i>:" followed by 'a'+(i+j)%26 for position j,
//          cut to <value bytes> (so it compresses)
//   sync                 the next put/delete/fill writes with sync=true
//   flush                CompactRange(nullptr, nullptr) over the whole DB:
//                        moves the memtable into tables
//   reopen               close and open the DB again
//
// dump prints one line per entry in LevelDB's order,
//   <key hex> <value hex>
// then "count <n>". Any failure prints "error: <status>" on stderr and
// exits 1; create, repair and destroy print "ok" when done.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"

namespace {

// A comparator DeLSM does not know, to show a database written with one is
// refused rather than misread.
class ReverseBytewise : public leveldb::Comparator {
 public:
  const char* Name() const override { return "delsm_test.ReverseBytewise"; }
  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    return -a.compare(b);
  }
  void FindShortestSeparator(std::string*,
                             const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// Different bytes that compare equal ("a" and "A"): the key bytes a
// DeLSM KV file is named by are then not a function of the user key.
class CaseInsensitive : public leveldb::Comparator {
 public:
  const char* Name() const override { return "delsm_test.CaseInsensitive"; }
  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; i++) {
      const int ca = Lower(a[i]), cb = Lower(b[i]);
      if (ca != cb) return ca < cb ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  void FindShortestSeparator(std::string*,
                             const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  static int Lower(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u;
  }
};

struct Flags {
  leveldb::Options options;
  bool verify_checksums = false;
  bool no_close = false;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

void Check(const leveldb::Status& s, const std::string& what) {
  if (!s.ok()) Fail(what + ": " + s.ToString());
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string FromHex(const std::string& hex) {
  if (hex == "-") return std::string();
  if (hex.size() % 2 != 0) Fail("odd-length hex: " + hex);
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]);
    int lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) Fail("bad hex: " + hex);
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::string ToHex(const leveldb::Slice& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out.empty() ? "-" : out;
}

size_t ParseSize(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0')
    Fail("bad " + what + ": " + text);
  return static_cast<size_t>(v);
}

Flags ParseFlags(int argc, char** argv, int first) {
  Flags f;
  for (int i = first; i < argc; i++) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (name == "--compression") {
      if (value == "snappy") {
        f.options.compression = leveldb::kSnappyCompression;
      } else if (value == "none") {
        f.options.compression = leveldb::kNoCompression;
      } else {
        Fail("bad --compression: " + value);
      }
    } else if (name == "--write_buffer_size") {
      f.options.write_buffer_size = ParseSize(value, name);
    } else if (name == "--max_file_size") {
      f.options.max_file_size = ParseSize(value, name);
    } else if (name == "--block_size") {
      f.options.block_size = ParseSize(value, name);
    } else if (name == "--bloom_bits") {
      // Leaked on purpose: the process ends when the DB is done.
      f.options.filter_policy = leveldb::NewBloomFilterPolicy(
          static_cast<int>(ParseSize(value, name)));
    } else if (arg == "--reverse_comparator") {
      static ReverseBytewise reverse;
      f.options.comparator = &reverse;
    } else if (arg == "--case_insensitive_comparator") {
      static CaseInsensitive case_insensitive;
      f.options.comparator = &case_insensitive;
    } else if (arg == "--paranoid_checks") {
      f.options.paranoid_checks = true;
    } else if (arg == "--verify_checksums") {
      f.verify_checksums = true;
    } else if (arg == "--no_close") {
      f.no_close = true;
    } else {
      Fail("unknown option: " + arg);
    }
  }
  return f;
}

std::string FillValue(unsigned i, size_t size) {
  std::string v = "v" + std::to_string(i) + ":";
  for (size_t j = 0; v.size() < size; j++) {
    v.push_back(static_cast<char>('a' + (i + j) % 26));
  }
  v.resize(size);
  return v;
}

leveldb::DB* OpenDb(const Flags& flags, const std::string& path) {
  leveldb::DB* db = nullptr;
  Check(leveldb::DB::Open(flags.options, path, &db), "open " + path);
  return db;
}

int Create(const Flags& flags, const std::string& path) {
  Flags create_flags = flags;
  create_flags.options.create_if_missing = true;
  leveldb::DB* db = OpenDb(create_flags, path);
  leveldb::WriteOptions wo;
  std::string line;
  int line_number = 0;
  while (std::getline(std::cin, line)) {
    line_number++;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string cmd, a, b, c;
    in >> cmd >> a >> b >> c;
    const std::string where = "line " + std::to_string(line_number);
    if (cmd == "put") {
      Check(db->Put(wo, FromHex(a), FromHex(b)), where);
      wo.sync = false;
    } else if (cmd == "delete") {
      Check(db->Delete(wo, FromHex(a)), where);
      wo.sync = false;
    } else if (cmd == "fill") {
      const size_t first = ParseSize(a, "fill first");
      const size_t count = ParseSize(b, "fill count");
      const size_t size = ParseSize(c, "fill value bytes");
      char key[32];
      for (size_t i = first; i < first + count; i++) {
        std::snprintf(key, sizeof(key), "key%010u", static_cast<unsigned>(i));
        Check(db->Put(wo, key, FillValue(static_cast<unsigned>(i), size)),
              where);
      }
      wo.sync = false;
    } else if (cmd == "sync") {
      wo.sync = true;
    } else if (cmd == "flush") {
      db->CompactRange(nullptr, nullptr);
    } else if (cmd == "reopen") {
      delete db;
      db = OpenDb(flags, path);
    } else {
      Fail(where + ": unknown command: " + cmd);
    }
  }
  std::printf("ok\n");
  std::fflush(stdout);
  if (flags.no_close) _exit(0);
  delete db;
  return 0;
}

int Dump(const Flags& flags, const std::string& path) {
  leveldb::DB* db = OpenDb(flags, path);
  leveldb::ReadOptions ro;
  ro.verify_checksums = flags.verify_checksums;
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ro));
  size_t count = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::printf("%s %s\n", ToHex(it->key()).c_str(),
                ToHex(it->value()).c_str());
    count++;
  }
  Check(it->status(), "iterate " + path);
  it.reset();
  delete db;
  std::printf("count %zu\n", count);
  return 0;
}

int Repair(const Flags& flags, const std::string& path) {
  Check(leveldb::RepairDB(path, flags.options), "repair " + path);
  std::printf("ok\n");
  return 0;
}

int Destroy(const Flags& flags, const std::string& path) {
  Check(leveldb::DestroyDB(path, flags.options), "destroy " + path);
  std::printf("ok\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: leveldb_oracle create|dump|repair|destroy <db> [options]\n"
        "(see the comment at the top of leveldb_oracle.cc)\n");
    return 2;
  }
  const std::string mode = argv[1];
  const std::string path = argv[2];
  const Flags flags = ParseFlags(argc, argv, 3);
  if (mode == "create") return Create(flags, path);
  if (mode == "dump") return Dump(flags, path);
  if (mode == "repair") return Repair(flags, path);
  if (mode == "destroy") return Destroy(flags, path);
  Fail("unknown mode: " + mode);
}
