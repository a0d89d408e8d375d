// The C binding declared by leveldb/c.h: opaque handles wrapping the C++
// objects, errors reported as malloc()ed strings through `errptr`.
//
// Every string or value handed to the caller is allocated with malloc() so
// that leveldb_free() (or plain free()) releases it.
#include "leveldb/c.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "c/c_handles.h"
#include "leveldb/cache.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "leveldb/write_batch.h"

// The handle types. Each owns what `rep` points to unless noted (leveldb_t
// and leveldb_options_t are in c/c_handles.h, shared with c/c_tuning.cc).
struct leveldb_iterator_t {
  leveldb::Iterator* rep;
};
struct leveldb_writebatch_t {
  leveldb::WriteBatch rep;
};
struct leveldb_snapshot_t {
  const leveldb::Snapshot* rep;  // owned by the DB; released through it
};
struct leveldb_readoptions_t {
  leveldb::ReadOptions rep;
};
struct leveldb_writeoptions_t {
  leveldb::WriteOptions rep;
};
struct leveldb_cache_t {
  leveldb::Cache* rep;
};
struct leveldb_seqfile_t {
  leveldb::SequentialFile* rep;
};
struct leveldb_randomfile_t {
  leveldb::RandomAccessFile* rep;
};
struct leveldb_writablefile_t {
  leveldb::WritableFile* rep;
};
struct leveldb_logger_t {
  leveldb::Logger* rep;
};
struct leveldb_filelock_t {
  leveldb::FileLock* rep;
};
struct leveldb_env_t {
  leveldb::Env* rep;
  bool is_default;  // Env::Default() must never be deleted
};

// A Comparator whose behaviour is supplied by C callbacks. It cannot shorten
// keys (c.h says so): the separator and successor hooks keep keys as given,
// which is always correct.
struct leveldb_comparator_t : public leveldb::Comparator {
  void* state;
  void (*destructor)(void*);
  int (*compare)(void*, const char* a, size_t alen, const char* b, size_t blen);
  const char* (*name)(void*);

  ~leveldb_comparator_t() override { destructor(state); }

  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    return compare(state, a.data(), a.size(), b.data(), b.size());
  }
  const char* Name() const override { return name(state); }
  void FindShortestSeparator(std::string*,
                             const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// A FilterPolicy whose behaviour is supplied by C callbacks; the filter the
// callback returns is malloc()ed and is freed here after copying.
struct leveldb_filterpolicy_t : public leveldb::FilterPolicy {
  void* state;
  void (*destructor)(void*);
  const char* (*name)(void*);
  char* (*create)(void*, const char* const* key_array,
                  const size_t* key_length_array, int num_keys,
                  size_t* filter_length);
  uint8_t (*key_match)(void*, const char* key, size_t length,
                       const char* filter, size_t filter_length);

  ~leveldb_filterpolicy_t() override { destructor(state); }

  const char* Name() const override { return name(state); }

  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override {
    std::vector<const char*> pointers(n);
    std::vector<size_t> lengths(n);
    for (int i = 0; i < n; i++) {
      pointers[i] = keys[i].data();
      lengths[i] = keys[i].size();
    }
    size_t len = 0;
    char* filter = create(state, pointers.data(), lengths.data(), n, &len);
    if (filter != nullptr) {
      dst->append(filter, len);
      std::free(filter);
    }
  }

  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    return key_match(state, key.data(), key.size(), filter.data(),
                     filter.size()) != 0;
  }
};

namespace {

// A copy of `s` in malloc()ed memory, NUL-terminated.
char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

// Stores `s` in *errptr (freeing what was there) and returns true if `s`
// is an error; leaves *errptr alone and returns false otherwise.
bool SaveError(char** errptr, const leveldb::Status& s) {
  if (s.ok()) return false;
  std::free(*errptr);
  *errptr = CopyString(s.ToString());
  return true;
}

// Adapts a C++ FilterPolicy (the built-in Bloom filter) to the callback
// shape of leveldb_filterpolicy_t; it is the `state` of the wrapper.
void DeleteWrappedPolicy(void* state) {
  delete static_cast<const leveldb::FilterPolicy*>(state);
}
const char* WrappedPolicyName(void* state) {
  return static_cast<const leveldb::FilterPolicy*>(state)->Name();
}
char* WrappedPolicyCreate(void* state, const char* const* key_array,
                          const size_t* key_length_array, int num_keys,
                          size_t* filter_length) {
  std::vector<leveldb::Slice> keys;
  keys.reserve(num_keys);
  for (int i = 0; i < num_keys; i++) {
    keys.emplace_back(key_array[i], key_length_array[i]);
  }
  std::string filter;
  static_cast<const leveldb::FilterPolicy*>(state)->CreateFilter(
      keys.data(), num_keys, &filter);
  *filter_length = filter.size();
  char* out = static_cast<char*>(std::malloc(filter.size() + 1));
  if (out != nullptr) std::memcpy(out, filter.data(), filter.size());
  return out;
}
uint8_t WrappedPolicyMatch(void* state, const char* key, size_t length,
                           const char* filter, size_t filter_length) {
  return static_cast<const leveldb::FilterPolicy*>(state)->KeyMayMatch(
      leveldb::Slice(key, length), leveldb::Slice(filter, filter_length));
}

// Forwards the records of a WriteBatch to C callbacks.
class CallbackHandler : public leveldb::WriteBatch::Handler {
 public:
  CallbackHandler(void* state,
                  void (*put)(void*, const char* k, size_t klen, const char* v,
                              size_t vlen),
                  void (*deleted)(void*, const char* k, size_t klen))
      : state_(state), put_(put), deleted_(deleted) {}

  void Put(const leveldb::Slice& key, const leveldb::Slice& value) override {
    put_(state_, key.data(), key.size(), value.data(), value.size());
  }
  void Delete(const leveldb::Slice& key) override {
    deleted_(state_, key.data(), key.size());
  }

 private:
  void* const state_;
  void (*const put_)(void*, const char*, size_t, const char*, size_t);
  void (*const deleted_)(void*, const char*, size_t);
};

}  // namespace

extern "C" {

// ---- Database ----

leveldb_t* leveldb_open(const leveldb_options_t* options, const char* name,
                        char** errptr) {
  leveldb::DB* db = nullptr;
  if (SaveError(errptr, leveldb::DB::Open(options->rep, name, &db))) {
    return nullptr;
  }
  leveldb_t* result = new leveldb_t;
  result->rep = db;
  return result;
}

void leveldb_close(leveldb_t* db) {
  delete db->rep;
  delete db;
}

void leveldb_put(leveldb_t* db, const leveldb_writeoptions_t* options,
                 const char* key, size_t keylen, const char* val, size_t vallen,
                 char** errptr) {
  SaveError(errptr, db->rep->Put(options->rep, leveldb::Slice(key, keylen),
                                 leveldb::Slice(val, vallen)));
}

void leveldb_delete(leveldb_t* db, const leveldb_writeoptions_t* options,
                    const char* key, size_t keylen, char** errptr) {
  SaveError(errptr, db->rep->Delete(options->rep, leveldb::Slice(key, keylen)));
}

void leveldb_write(leveldb_t* db, const leveldb_writeoptions_t* options,
                   leveldb_writebatch_t* batch, char** errptr) {
  SaveError(errptr, db->rep->Write(options->rep, &batch->rep));
}

char* leveldb_get(leveldb_t* db, const leveldb_readoptions_t* options,
                  const char* key, size_t keylen, size_t* vallen,
                  char** errptr) {
  std::string value;
  leveldb::Status s =
      db->rep->Get(options->rep, leveldb::Slice(key, keylen), &value);
  *vallen = 0;
  if (s.IsNotFound()) return nullptr;  // absent is not an error
  if (SaveError(errptr, s)) return nullptr;
  char* out = static_cast<char*>(std::malloc(value.size() + 1));
  if (out == nullptr) {
    SaveError(errptr, leveldb::Status::IOError("leveldb_get",
                                               "out of memory for the value"));
    return nullptr;
  }
  std::memcpy(out, value.data(), value.size());
  *vallen = value.size();
  return out;
}

leveldb_iterator_t* leveldb_create_iterator(
    leveldb_t* db, const leveldb_readoptions_t* options) {
  leveldb_iterator_t* result = new leveldb_iterator_t;
  result->rep = db->rep->NewIterator(options->rep);
  return result;
}

const leveldb_snapshot_t* leveldb_create_snapshot(leveldb_t* db) {
  leveldb_snapshot_t* result = new leveldb_snapshot_t;
  result->rep = db->rep->GetSnapshot();
  return result;
}

void leveldb_release_snapshot(leveldb_t* db,
                              const leveldb_snapshot_t* snapshot) {
  db->rep->ReleaseSnapshot(snapshot->rep);
  delete snapshot;
}

char* leveldb_property_value(leveldb_t* db, const char* propname) {
  std::string value;
  if (!db->rep->GetProperty(leveldb::Slice(propname), &value)) return nullptr;
  return CopyString(value);
}

void leveldb_approximate_sizes(leveldb_t* db, int num_ranges,
                               const char* const* range_start_key,
                               const size_t* range_start_key_len,
                               const char* const* range_limit_key,
                               const size_t* range_limit_key_len,
                               uint64_t* sizes) {
  if (num_ranges <= 0) return;
  std::vector<leveldb::Range> ranges(num_ranges);
  for (int i = 0; i < num_ranges; i++) {
    ranges[i].start =
        leveldb::Slice(range_start_key[i], range_start_key_len[i]);
    ranges[i].limit =
        leveldb::Slice(range_limit_key[i], range_limit_key_len[i]);
  }
  db->rep->GetApproximateSizes(ranges.data(), num_ranges, sizes);
}

void leveldb_compact_range(leveldb_t* db, const char* start_key,
                           size_t start_key_len, const char* limit_key,
                           size_t limit_key_len) {
  // A NULL key stands for "unbounded" on that side.
  leveldb::Slice start(start_key, start_key_len);
  leveldb::Slice limit(limit_key, limit_key_len);
  db->rep->CompactRange(start_key != nullptr ? &start : nullptr,
                        limit_key != nullptr ? &limit : nullptr);
}

void leveldb_destroy_db(const leveldb_options_t* options, const char* name,
                        char** errptr) {
  SaveError(errptr, leveldb::DestroyDB(name, options->rep));
}

void leveldb_repair_db(const leveldb_options_t* options, const char* name,
                       char** errptr) {
  SaveError(errptr, leveldb::RepairDB(name, options->rep));
}

// ---- Iterator ----

void leveldb_iter_destroy(leveldb_iterator_t* iter) {
  delete iter->rep;
  delete iter;
}

uint8_t leveldb_iter_valid(const leveldb_iterator_t* iter) {
  return iter->rep->Valid() ? 1 : 0;
}

void leveldb_iter_seek_to_first(leveldb_iterator_t* iter) {
  iter->rep->SeekToFirst();
}

void leveldb_iter_seek_to_last(leveldb_iterator_t* iter) {
  iter->rep->SeekToLast();
}

void leveldb_iter_seek(leveldb_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->Seek(leveldb::Slice(k, klen));
}

void leveldb_iter_next(leveldb_iterator_t* iter) { iter->rep->Next(); }

void leveldb_iter_prev(leveldb_iterator_t* iter) { iter->rep->Prev(); }

const char* leveldb_iter_key(const leveldb_iterator_t* iter, size_t* klen) {
  leveldb::Slice key = iter->rep->key();
  *klen = key.size();
  return key.data();
}

const char* leveldb_iter_value(const leveldb_iterator_t* iter, size_t* vlen) {
  leveldb::Slice value = iter->rep->value();
  *vlen = value.size();
  return value.data();
}

void leveldb_iter_get_error(const leveldb_iterator_t* iter, char** errptr) {
  SaveError(errptr, iter->rep->status());
}

// ---- Write batch ----

leveldb_writebatch_t* leveldb_writebatch_create(void) {
  return new leveldb_writebatch_t;
}

void leveldb_writebatch_destroy(leveldb_writebatch_t* b) { delete b; }

void leveldb_writebatch_clear(leveldb_writebatch_t* b) { b->rep.Clear(); }

void leveldb_writebatch_put(leveldb_writebatch_t* b, const char* key,
                            size_t klen, const char* val, size_t vlen) {
  b->rep.Put(leveldb::Slice(key, klen), leveldb::Slice(val, vlen));
}

void leveldb_writebatch_delete(leveldb_writebatch_t* b, const char* key,
                               size_t klen) {
  b->rep.Delete(leveldb::Slice(key, klen));
}

void leveldb_writebatch_iterate(const leveldb_writebatch_t* b, void* state,
                                void (*put)(void*, const char* k, size_t klen,
                                            const char* v, size_t vlen),
                                void (*deleted)(void*, const char* k,
                                                size_t klen)) {
  CallbackHandler handler(state, put, deleted);
  // The C signature has no error channel; a malformed batch (impossible for
  // one built through this API) simply stops the iteration.
  b->rep.Iterate(&handler);
}

void leveldb_writebatch_append(leveldb_writebatch_t* destination,
                               const leveldb_writebatch_t* source) {
  destination->rep.Append(source->rep);
}

// ---- Options ----

leveldb_options_t* leveldb_options_create(void) {
  return new leveldb_options_t;
}

void leveldb_options_destroy(leveldb_options_t* options) { delete options; }

void leveldb_options_set_comparator(leveldb_options_t* opt,
                                    leveldb_comparator_t* cmp) {
  opt->rep.comparator = cmp;
}

void leveldb_options_set_filter_policy(leveldb_options_t* opt,
                                       leveldb_filterpolicy_t* policy) {
  opt->rep.filter_policy = policy;
}

void leveldb_options_set_create_if_missing(leveldb_options_t* opt, uint8_t v) {
  opt->rep.create_if_missing = v != 0;
}

void leveldb_options_set_error_if_exists(leveldb_options_t* opt, uint8_t v) {
  opt->rep.error_if_exists = v != 0;
}

void leveldb_options_set_paranoid_checks(leveldb_options_t* opt, uint8_t v) {
  opt->rep.paranoid_checks = v != 0;
}

void leveldb_options_set_env(leveldb_options_t* opt, leveldb_env_t* env) {
  opt->rep.env = env != nullptr ? env->rep : nullptr;
}

void leveldb_options_set_info_log(leveldb_options_t* opt, leveldb_logger_t* l) {
  opt->rep.info_log = l != nullptr ? l->rep : nullptr;
}

void leveldb_options_set_write_buffer_size(leveldb_options_t* opt, size_t s) {
  opt->rep.write_buffer_size = s;
}

void leveldb_options_set_max_open_files(leveldb_options_t* opt, int n) {
  opt->rep.max_open_files = n;
}

void leveldb_options_set_cache(leveldb_options_t* opt, leveldb_cache_t* c) {
  opt->rep.block_cache = c != nullptr ? c->rep : nullptr;
}

void leveldb_options_set_block_size(leveldb_options_t* opt, size_t s) {
  opt->rep.block_size = s;
}

void leveldb_options_set_block_restart_interval(leveldb_options_t* opt, int n) {
  opt->rep.block_restart_interval = n;
}

void leveldb_options_set_max_file_size(leveldb_options_t* opt, size_t s) {
  opt->rep.max_file_size = s;
}

void leveldb_options_set_compression(leveldb_options_t* opt, int t) {
  opt->rep.compression = static_cast<leveldb::CompressionType>(t);
}

// ---- Comparator and filter policy ----

leveldb_comparator_t* leveldb_comparator_create(
    void* state, void (*destructor)(void*),
    int (*compare)(void*, const char* a, size_t alen, const char* b,
                   size_t blen),
    const char* (*name)(void*)) {
  leveldb_comparator_t* result = new leveldb_comparator_t;
  result->state = state;
  result->destructor = destructor;
  result->compare = compare;
  result->name = name;
  return result;
}

void leveldb_comparator_destroy(leveldb_comparator_t* cmp) { delete cmp; }

leveldb_filterpolicy_t* leveldb_filterpolicy_create(
    void* state, void (*destructor)(void*),
    char* (*create_filter)(void*, const char* const* key_array,
                           const size_t* key_length_array, int num_keys,
                           size_t* filter_length),
    uint8_t (*key_may_match)(void*, const char* key, size_t length,
                             const char* filter, size_t filter_length),
    const char* (*name)(void*)) {
  leveldb_filterpolicy_t* result = new leveldb_filterpolicy_t;
  result->state = state;
  result->destructor = destructor;
  result->create = create_filter;
  result->key_match = key_may_match;
  result->name = name;
  return result;
}

void leveldb_filterpolicy_destroy(leveldb_filterpolicy_t* filter) {
  delete filter;
}

leveldb_filterpolicy_t* leveldb_filterpolicy_create_bloom(int bits_per_key) {
  const leveldb::FilterPolicy* bloom =
      leveldb::NewBloomFilterPolicy(bits_per_key);
  return leveldb_filterpolicy_create(const_cast<leveldb::FilterPolicy*>(bloom),
                                     DeleteWrappedPolicy, WrappedPolicyCreate,
                                     WrappedPolicyMatch, WrappedPolicyName);
}

// ---- Read and write options ----

leveldb_readoptions_t* leveldb_readoptions_create(void) {
  return new leveldb_readoptions_t;
}

void leveldb_readoptions_destroy(leveldb_readoptions_t* opt) { delete opt; }

void leveldb_readoptions_set_verify_checksums(leveldb_readoptions_t* opt,
                                              uint8_t v) {
  opt->rep.verify_checksums = v != 0;
}

void leveldb_readoptions_set_fill_cache(leveldb_readoptions_t* opt, uint8_t v) {
  opt->rep.fill_cache = v != 0;
}

void leveldb_readoptions_set_snapshot(leveldb_readoptions_t* opt,
                                      const leveldb_snapshot_t* snap) {
  opt->rep.snapshot = snap != nullptr ? snap->rep : nullptr;
}

leveldb_writeoptions_t* leveldb_writeoptions_create(void) {
  return new leveldb_writeoptions_t;
}

void leveldb_writeoptions_destroy(leveldb_writeoptions_t* opt) { delete opt; }

void leveldb_writeoptions_set_sync(leveldb_writeoptions_t* opt, uint8_t v) {
  opt->rep.sync = v != 0;
}

// ---- Cache and environment ----

leveldb_cache_t* leveldb_cache_create_lru(size_t capacity) {
  leveldb_cache_t* result = new leveldb_cache_t;
  result->rep = leveldb::NewLRUCache(capacity);
  return result;
}

void leveldb_cache_destroy(leveldb_cache_t* cache) {
  delete cache->rep;
  delete cache;
}

leveldb_env_t* leveldb_create_default_env(void) {
  leveldb_env_t* result = new leveldb_env_t;
  result->rep = leveldb::Env::Default();
  result->is_default = true;
  return result;
}

void leveldb_env_destroy(leveldb_env_t* env) {
  if (!env->is_default) delete env->rep;
  delete env;
}

char* leveldb_env_get_test_directory(leveldb_env_t* env) {
  std::string dir;
  if (!env->rep->GetTestDirectory(&dir).ok()) return nullptr;
  return CopyString(dir);
}

// ---- Misc ----

void leveldb_free(void* ptr) { std::free(ptr); }

int leveldb_major_version(void) { return leveldb::kMajorVersion; }

int leveldb_minor_version(void) { return leveldb::kMinorVersion; }

}  // extern "C"
