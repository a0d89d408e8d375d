// A LevelDB client program for the binary drop-in test (dropin_test).
// It is compiled against the system's LevelDB headers and linked with
// Debian's libleveldb.so.1d; dropin_test runs it once as built and once
// with LD_LIBRARY_PATH pointing at DeLSM's libleveldb.so.1d, and requires
// the same output. So everything printed must be deterministic and must
// describe behaviour LevelDB promises, not its internal layout (no file
// counts per level, no exact sizes).
//
// Usage: dropin_client <empty scratch directory>
// The lines starting with "LIB " name the libleveldb the loader mapped;
// the test compares them separately.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "leveldb/c.h"
#include "leveldb/cache.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"

namespace {

void Out(const std::string& line) { std::printf("%s\n", line.c_str()); }

std::string StatusKind(const leveldb::Status& s) {
  if (s.ok()) return "OK";
  if (s.IsNotFound()) return "NotFound";
  if (s.IsCorruption()) return "Corruption";
  if (s.IsIOError()) return "IOError";
  if (s.IsNotSupportedError()) return "NotSupported";
  if (s.IsInvalidArgument()) return "InvalidArgument";
  return "Other";
}

std::string Get(leveldb::DB* db, const std::string& key,
                const leveldb::Snapshot* snap = nullptr) {
  leveldb::ReadOptions ro;
  ro.snapshot = snap;
  std::string value;
  leveldb::Status s = db->Get(ro, key, &value);
  return s.ok() ? "'" + value + "'" : StatusKind(s);
}

void PrintLoadedLibraries() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> libs;
  std::string line;
  while (std::getline(maps, line)) {
    size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.find("libleveldb") != std::string::npos) libs.insert(path);
  }
  for (const std::string& lib : libs) Out("LIB " + lib);
}

class Reverse : public leveldb::Comparator {
 public:
  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    return b.compare(a);
  }
  const char* Name() const override { return "dropin.Reverse"; }
  void FindShortestSeparator(std::string*,
                             const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

int CppApi(const std::string& dir) {
  Out("== C++ API");
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;
  const leveldb::FilterPolicy* bloom = leveldb::NewBloomFilterPolicy(10);
  options.filter_policy = bloom;
  leveldb::Cache* cache = leveldb::NewLRUCache(1 << 20);
  options.block_cache = cache;
  std::string name = dir + "/cpp";
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, name, &raw);
  Out("open: " + StatusKind(s));
  if (!s.ok()) return 1;
  std::unique_ptr<leveldb::DB> db(raw);

  leveldb::WriteOptions wo;
  Out("put: " + StatusKind(db->Put(wo, "apple", "red")));
  Out("put: " + StatusKind(db->Put(wo, "banana", "yellow")));
  Out("put: " + StatusKind(db->Put(wo, "cherry", "dark red")));
  Out("get apple: " + Get(db.get(), "apple"));
  Out("get durian: " + Get(db.get(), "durian"));
  Out("delete banana: " + StatusKind(db->Delete(wo, "banana")));
  Out("get banana: " + Get(db.get(), "banana"));

  const leveldb::Snapshot* snap = db->GetSnapshot();
  leveldb::WriteBatch batch;
  batch.Put("apple", "green");
  batch.Delete("cherry");
  batch.Put("elder", "black");
  Out("write batch: " + StatusKind(db->Write(wo, &batch)));
  Out("get apple now/snapshot: " + Get(db.get(), "apple") + " " +
      Get(db.get(), "apple", snap));
  Out("get cherry now/snapshot: " + Get(db.get(), "cherry") + " " +
      Get(db.get(), "cherry", snap));

  struct Printer : leveldb::WriteBatch::Handler {
    void Put(const leveldb::Slice& k, const leveldb::Slice& v) override {
      Out("  batch put " + k.ToString() + "=" + v.ToString());
    }
    void Delete(const leveldb::Slice& k) override {
      Out("  batch delete " + k.ToString());
    }
  } printer;
  Out("batch iterate: " + StatusKind(batch.Iterate(&printer)));

  // Enough data for flushes: 64 KiB memtables.
  for (int i = 0; i < 3000; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "n%05d", i);
    db->Put(wo, key, std::string(100 + i % 50, char('a' + i % 26)));
  }
  db->CompactRange(nullptr, nullptr);

  std::unique_ptr<leveldb::Iterator> it(
      db->NewIterator(leveldb::ReadOptions()));
  std::string line = "forward:";
  for (it->SeekToFirst(); it->Valid() && it->key().ToString() < "n";
       it->Next()) {
    line += " " + it->key().ToString() + "=" + it->value().ToString();
  }
  Out(line);
  line = "backward from n00002:";
  for (it->Seek("n00002"); it->Valid() && line.size() < 100; it->Prev()) {
    line += " " + it->key().ToString();
  }
  Out(line);
  it->SeekToLast();
  Out("last: " + (it->Valid() ? it->key().ToString() : "none"));
  Out("iterator status: " + StatusKind(it->status()));
  it.reset();

  leveldb::ReadOptions snap_ro;
  snap_ro.snapshot = snap;
  it.reset(db->NewIterator(snap_ro));
  line = "snapshot scan:";
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    line += " " + it->key().ToString() + "=" + it->value().ToString();
  }
  Out(line);
  it.reset();
  db->ReleaseSnapshot(snap);

  for (const char* prop :
       {"leveldb.num-files-at-level0", "leveldb.stats", "leveldb.sstables",
        "leveldb.approximate-memory-usage", "leveldb.no-such-thing"}) {
    std::string value;
    Out(std::string("property ") + prop + ": " +
        (db->GetProperty(prop, &value) ? "yes" : "no"));
  }
  leveldb::Range range("n00000", "n99999");
  uint64_t size = 0;
  db->GetApproximateSizes(&range, 1, &size);
  Out(std::string("approximate size positive: ") + (size > 0 ? "yes" : "no"));

  leveldb::DB* second = nullptr;
  Out("second open: " + StatusKind(leveldb::DB::Open(options, name, &second)));
  delete second;
  db.reset();
  options.error_if_exists = true;
  s = leveldb::DB::Open(options, name, &raw);
  Out("open with error_if_exists: " + StatusKind(s));
  options.error_if_exists = false;
  s = leveldb::DB::Open(options, name, &raw);
  Out("reopen: " + StatusKind(s));
  if (s.ok()) {
    db.reset(raw);
    Out("get n02999 after reopen: " + Get(db.get(), "n02999"));
    Out("get banana after reopen: " + Get(db.get(), "banana"));
    db.reset();
  }
  Reverse reverse;
  options.comparator = &reverse;
  s = leveldb::DB::Open(options, name, &raw);
  Out("open with another comparator: " + StatusKind(s));
  if (s.ok()) delete raw;
  options.comparator = leveldb::BytewiseComparator();
  Out("destroy: " + StatusKind(leveldb::DestroyDB(name, options)));
  options.create_if_missing = false;
  s = leveldb::DB::Open(options, name, &raw);
  Out("open destroyed: " + StatusKind(s));
  if (s.ok()) delete raw;

  delete cache;
  delete bloom;

  // Library helpers a client may call directly.
  std::unique_ptr<const leveldb::FilterPolicy> named_bloom(
      leveldb::NewBloomFilterPolicy(10));
  Out(std::string("bloom name: ") + named_bloom->Name());
  Out(std::string("comparator name: ") + leveldb::BytewiseComparator()->Name());
  Out("compare: " +
      std::to_string(leveldb::BytewiseComparator()->Compare("a", "b")) + " " +
      std::to_string(leveldb::BytewiseComparator()->Compare("b", "b")));
  Out("status: " +
      leveldb::Status::Corruption("bad block", "file 7").ToString() + " / " +
      leveldb::Status::NotFound("gone").ToString() + " / " +
      leveldb::Status::IOError("disk").ToString() + " / " +
      leveldb::Status::OK().ToString());

  leveldb::Env* env = leveldb::Env::Default();
  std::string f = dir + "/envfile";
  Out("write file: " +
      StatusKind(leveldb::WriteStringToFile(env, "hello env", f)));
  std::string contents;
  Out("read file: " + StatusKind(leveldb::ReadFileToString(env, f, &contents)) +
      " '" + contents + "'");
  uint64_t fsize = 0;
  env->GetFileSize(f, &fsize);
  Out("file size: " + std::to_string(fsize));
  Out("file exists: " + std::string(env->FileExists(f) ? "yes" : "no"));
  Out("remove: " + StatusKind(env->RemoveFile(f)));
  Out("file exists: " + std::string(env->FileExists(f) ? "yes" : "no"));
  Out("clock positive: " + std::string(env->NowMicros() > 0 ? "yes" : "no"));
  return 0;
}

int c_compare(void*, const char* a, size_t alen, const char* b, size_t blen) {
  // Reverse bytewise.
  int r = std::memcmp(a, b, alen < blen ? alen : blen);
  if (r == 0) r = alen < blen ? -1 : (alen > blen ? 1 : 0);
  return -r;
}
const char* c_cmp_name(void*) { return "dropin.CReverse"; }
void c_destroy(void*) {}

void c_put(void* state, const char* k, size_t klen, const char* v,
           size_t vlen) {
  static_cast<std::string*>(state)->append(" put " + std::string(k, klen) +
                                           "=" + std::string(v, vlen));
}
void c_deleted(void* state, const char* k, size_t klen) {
  static_cast<std::string*>(state)->append(" del " + std::string(k, klen));
}

std::string Err(char** err) {
  if (*err == nullptr) return "ok";
  std::string e = "error";
  leveldb_free(*err);
  *err = nullptr;
  return e;
}

int CApi(const std::string& dir) {
  Out("== C API");
  Out("version: " + std::to_string(leveldb_major_version()) + "." +
      std::to_string(leveldb_minor_version()));
  char* err = nullptr;
  leveldb_env_t* env = leveldb_create_default_env();
  leveldb_cache_t* cache = leveldb_cache_create_lru(100000);
  leveldb_filterpolicy_t* bloom = leveldb_filterpolicy_create_bloom(10);
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_options_set_env(options, env);
  leveldb_options_set_cache(options, cache);
  leveldb_options_set_filter_policy(options, bloom);
  leveldb_options_set_write_buffer_size(options, 100000);
  leveldb_options_set_compression(options, leveldb_snappy_compression);
  std::string name = dir + "/c";
  leveldb_t* db = leveldb_open(options, name.c_str(), &err);
  Out("open: " + Err(&err));
  if (db == nullptr) return 1;
  leveldb_writeoptions_t* wo = leveldb_writeoptions_create();
  leveldb_writeoptions_set_sync(wo, 1);
  leveldb_readoptions_t* ro = leveldb_readoptions_create();
  leveldb_readoptions_set_verify_checksums(ro, 1);

  leveldb_put(db, wo, "foo", 3, "hello", 5, &err);
  Out("put: " + Err(&err));
  size_t vlen = 0;
  char* v = leveldb_get(db, ro, "foo", 3, &vlen, &err);
  Out("get foo: " + Err(&err) + " " + (v ? std::string(v, vlen) : "(null)"));
  leveldb_free(v);
  v = leveldb_get(db, ro, "bar", 3, &vlen, &err);
  Out("get bar: " + Err(&err) + " " + (v ? std::string(v, vlen) : "(null)"));
  leveldb_free(v);

  const leveldb_snapshot_t* snap = leveldb_create_snapshot(db);
  leveldb_writebatch_t* wb = leveldb_writebatch_create();
  leveldb_writebatch_put(wb, "foo", 3, "a", 1);
  leveldb_writebatch_clear(wb);
  leveldb_writebatch_put(wb, "bar", 3, "b", 1);
  leveldb_writebatch_put(wb, "box", 3, "c", 1);
  leveldb_writebatch_t* wb2 = leveldb_writebatch_create();
  leveldb_writebatch_delete(wb2, "bar", 3);
  leveldb_writebatch_put(wb2, "baz", 3, "d", 1);
  leveldb_writebatch_append(wb, wb2);
  leveldb_write(db, wo, wb, &err);
  Out("write batch: " + Err(&err));
  std::string ops;
  leveldb_writebatch_iterate(wb, &ops, c_put, c_deleted);
  Out("batch iterate:" + ops);
  leveldb_writebatch_destroy(wb);
  leveldb_writebatch_destroy(wb2);

  leveldb_iterator_t* it = leveldb_create_iterator(db, ro);
  std::string line = "scan:";
  for (leveldb_iter_seek_to_first(it); leveldb_iter_valid(it);
       leveldb_iter_next(it)) {
    size_t klen;
    const char* k = leveldb_iter_key(it, &klen);
    const char* val = leveldb_iter_value(it, &vlen);
    line += " " + std::string(k, klen) + "=" + std::string(val, vlen);
  }
  Out(line);
  leveldb_iter_seek(it, "bb", 2);
  line = "seek bb then prev:";
  for (; leveldb_iter_valid(it); leveldb_iter_prev(it)) {
    size_t klen;
    const char* k = leveldb_iter_key(it, &klen);
    line += " " + std::string(k, klen);
  }
  Out(line);
  leveldb_iter_seek_to_last(it);
  size_t klen = 0;
  const char* last = leveldb_iter_key(it, &klen);
  Out("last: " + std::string(last, klen));
  leveldb_iter_get_error(it, &err);
  Out("iter error: " + Err(&err));
  leveldb_iter_destroy(it);

  leveldb_readoptions_set_snapshot(ro, snap);
  v = leveldb_get(db, ro, "box", 3, &vlen, &err);
  Out("get box at snapshot: " + Err(&err) + " " +
      (v ? std::string(v, vlen) : "(null)"));
  leveldb_free(v);
  leveldb_readoptions_set_snapshot(ro, nullptr);
  leveldb_release_snapshot(db, snap);

  leveldb_delete(db, wo, "foo", 3, &err);
  Out("delete: " + Err(&err));
  char* prop = leveldb_property_value(db, "leveldb.num-files-at-level0");
  Out(std::string("property level0: ") + (prop ? "yes" : "no"));
  leveldb_free(prop);
  prop = leveldb_property_value(db, "leveldb.nope");
  Out(std::string("property nope: ") + (prop ? "yes" : "no"));
  leveldb_free(prop);
  const char* starts[1] = {"a"};
  const char* limits[1] = {"z"};
  size_t start_lens[1] = {1}, limit_lens[1] = {1};
  uint64_t sizes[1] = {12345};
  leveldb_approximate_sizes(db, 1, starts, start_lens, limits, limit_lens,
                            sizes);
  Out("approximate sizes ran: yes");
  leveldb_compact_range(db, nullptr, 0, nullptr, 0);
  leveldb_close(db);

  db = leveldb_open(options, name.c_str(), &err);
  Out("reopen: " + Err(&err));
  v = leveldb_get(db, ro, "baz", 3, &vlen, &err);
  Out("get baz: " + Err(&err) + " " + (v ? std::string(v, vlen) : "(null)"));
  leveldb_free(v);
  leveldb_t* second = leveldb_open(options, name.c_str(), &err);
  Out("second open: " + Err(&err) + (second ? " handle" : " null"));
  if (second) leveldb_close(second);
  leveldb_close(db);

  leveldb_options_set_error_if_exists(options, 1);
  db = leveldb_open(options, name.c_str(), &err);
  Out("open with error_if_exists: " + Err(&err));
  if (db) leveldb_close(db);
  leveldb_options_set_error_if_exists(options, 0);

  leveldb_comparator_t* cmp =
      leveldb_comparator_create(nullptr, c_destroy, c_compare, c_cmp_name);
  leveldb_options_t* rev_options = leveldb_options_create();
  leveldb_options_set_create_if_missing(rev_options, 1);
  leveldb_options_set_comparator(rev_options, cmp);
  db = leveldb_open(rev_options, name.c_str(), &err);
  Out("open with another comparator: " + Err(&err));
  if (db) leveldb_close(db);
  std::string rev_name = dir + "/c_reverse";
  db = leveldb_open(rev_options, rev_name.c_str(), &err);
  Out("open reverse db: " + Err(&err));
  if (db) {
    for (const char* k : {"x", "y", "z", "w"}) {
      leveldb_put(db, wo, k, 1, k, 1, &err);
    }
    it = leveldb_create_iterator(db, ro);
    line = "reverse scan:";
    for (leveldb_iter_seek_to_first(it); leveldb_iter_valid(it);
         leveldb_iter_next(it)) {
      const char* k = leveldb_iter_key(it, &klen);
      line += " " + std::string(k, klen);
    }
    Out(line);
    leveldb_iter_destroy(it);
    leveldb_close(db);
  }
  leveldb_destroy_db(rev_options, rev_name.c_str(), &err);
  Out("destroy reverse: " + Err(&err));
  leveldb_options_destroy(rev_options);
  leveldb_comparator_destroy(cmp);

  leveldb_destroy_db(options, name.c_str(), &err);
  Out("destroy: " + Err(&err));
  leveldb_options_set_create_if_missing(options, 0);
  db = leveldb_open(options, name.c_str(), &err);
  Out("open destroyed: " + Err(&err));
  if (db) leveldb_close(db);

  char* testdir = leveldb_env_get_test_directory(env);
  Out(std::string("test directory: ") + (testdir ? "yes" : "no"));
  leveldb_free(testdir);

  leveldb_readoptions_destroy(ro);
  leveldb_writeoptions_destroy(wo);
  leveldb_options_destroy(options);
  leveldb_filterpolicy_destroy(bloom);
  leveldb_cache_destroy(cache);
  leveldb_env_destroy(env);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
    return 2;
  }
  int rc = CppApi(argv[1]);
  if (rc == 0) rc = CApi(argv[1]);
  PrintLoadedLibraries();
  Out("== end");
  return rc;
}
