// LevelDB 1.23 manifest encoding (see the header for the field list).
#include "compat/leveldb/manifest.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "db/log_reader.h"
#include "leveldb/env.h"
#include "util/coding.h"

namespace leveldb {

namespace {

// LevelDB's tags; part of its on-disk format.
enum LevelDbTag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 9,
};

constexpr uint32_t kLevelDbLevels = 7;

bool GetLevel(Slice* input, int* level) {
  uint32_t v;
  if (!GetVarint32(input, &v) || v >= kLevelDbLevels) return false;
  *level = static_cast<int>(v);
  return true;
}

bool GetInternalKey(Slice* input, std::string* key) {
  Slice s;
  if (!GetLengthPrefixedSlice(input, &s) || s.size() < 8) return false;
  key->assign(s.data(), s.size());
  return true;
}

// What a record sets, before it is applied.
struct ParsedEdit {
  bool has_comparator = false, has_log = false, has_prev_log = false,
       has_next_file = false, has_last_sequence = false;
  std::string comparator;
  uint64_t log = 0, prev_log = 0, next_file = 0, last_sequence = 0;
  std::vector<std::pair<int, uint64_t>> deleted;
  std::vector<LevelDbTableInfo> added;
};

bool Parse(const Slice& record, ParsedEdit* e) {
  Slice in = record;
  while (!in.empty()) {
    uint32_t tag;
    if (!GetVarint32(&in, &tag)) return false;
    switch (tag) {
      case kComparator: {
        Slice name;
        if (!GetLengthPrefixedSlice(&in, &name)) return false;
        e->comparator = name.ToString();
        e->has_comparator = true;
        break;
      }
      case kLogNumber:
        if (!GetVarint64(&in, &e->log)) return false;
        e->has_log = true;
        break;
      case kPrevLogNumber:
        if (!GetVarint64(&in, &e->prev_log)) return false;
        e->has_prev_log = true;
        break;
      case kNextFileNumber:
        if (!GetVarint64(&in, &e->next_file)) return false;
        e->has_next_file = true;
        break;
      case kLastSequence:
        if (!GetVarint64(&in, &e->last_sequence)) return false;
        e->has_last_sequence = true;
        break;
      case kCompactPointer: {
        int level;
        std::string key;
        if (!GetLevel(&in, &level) || !GetInternalKey(&in, &key)) return false;
        break;  // only a compaction hint; conversion has no use for it
      }
      case kDeletedFile: {
        int level;
        uint64_t number;
        if (!GetLevel(&in, &level) || !GetVarint64(&in, &number)) return false;
        e->deleted.emplace_back(level, number);
        break;
      }
      case kNewFile: {
        LevelDbTableInfo t;
        if (!GetLevel(&in, &t.level) || !GetVarint64(&in, &t.number) ||
            !GetVarint64(&in, &t.file_size) ||
            !GetInternalKey(&in, &t.smallest) ||
            !GetInternalKey(&in, &t.largest)) {
          return false;
        }
        e->added.push_back(std::move(t));
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// Collects log damage; a manifest must be intact to be converted.
struct FirstError : public log::Reader::Reporter {
  Status status;
  void Corruption(size_t bytes, const Status& s) override {
    if (status.ok()) status = s;
  }
};

}  // namespace

std::string EncodeLevelDbVersionEdit(const std::string& comparator_name,
                                     uint64_t log_number,
                                     uint64_t next_file_number,
                                     uint64_t last_sequence) {
  std::string edit;
  PutVarint32(&edit, kComparator);
  PutLengthPrefixedSlice(&edit, comparator_name);
  PutVarint32(&edit, kLogNumber);
  PutVarint64(&edit, log_number);
  PutVarint32(&edit, kNextFileNumber);
  PutVarint64(&edit, next_file_number);
  PutVarint32(&edit, kLastSequence);
  PutVarint64(&edit, last_sequence);
  return edit;
}

bool DecodeLevelDbEdit(const Slice& record, LevelDbState* state) {
  ParsedEdit e;
  if (!Parse(record, &e)) return false;
  if (state == nullptr) return true;
  if (e.has_comparator) state->comparator = e.comparator;
  if (e.has_log) state->log_number = e.log;
  if (e.has_prev_log) state->prev_log_number = e.prev_log;
  if (e.has_next_file) state->next_file = e.next_file;
  if (e.has_last_sequence) state->last_sequence = e.last_sequence;
  // As LevelDB applies an edit: deletions first, then additions.
  auto& tables = state->tables;
  for (const auto& d : e.deleted) {
    tables.erase(std::remove_if(tables.begin(), tables.end(),
                                [&d](const LevelDbTableInfo& t) {
                                  return t.level == d.first &&
                                         t.number == d.second;
                                }),
                 tables.end());
  }
  for (LevelDbTableInfo& t : e.added) tables.push_back(std::move(t));
  return true;
}

bool IsLevelDbEdit(const Slice& record, bool* names_comparator) {
  *names_comparator = false;
  ParsedEdit e;
  if (record.empty() || !Parse(record, &e)) return false;
  *names_comparator = e.has_comparator;
  return true;
}

Status ReadLevelDbManifest(Env* env, const std::string& path,
                           LevelDbState* state) {
  *state = LevelDbState();
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  FirstError reporter;
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  bool has_log = false, has_next = false, has_last = false;
  while (reader.ReadRecord(&record, &scratch) && reporter.status.ok()) {
    ParsedEdit probe;
    if (!Parse(record, &probe)) {
      return Status::Corruption(path, "not a LevelDB manifest record");
    }
    has_log |= probe.has_log;
    has_next |= probe.has_next_file;
    has_last |= probe.has_last_sequence;
    DecodeLevelDbEdit(record, state);
  }
  if (!reporter.status.ok()) {
    // A failed read (EIO, ...) is not damage: the manifest may be whole.
    if (!reporter.status.IsCorruption()) return reporter.status;
    return Status::Corruption(path, reporter.status.ToString());
  }
  if (!has_log || !has_next || !has_last) {
    return Status::Corruption(
        path, "LevelDB manifest lacks a log number, next file or sequence");
  }
  // A table listed twice at one level would be a damaged manifest too.
  std::sort(state->tables.begin(), state->tables.end(),
            [](const LevelDbTableInfo& a, const LevelDbTableInfo& b) {
              return a.level != b.level ? a.level < b.level
                                        : a.number < b.number;
            });
  std::set<uint64_t> numbers;
  for (const LevelDbTableInfo& t : state->tables) {
    if (!numbers.insert(t.number).second) {
      return Status::Corruption(path, "a table is listed twice");
    }
    if (t.number >= state->next_file) {
      return Status::Corruption(path, "a table number is not below next file");
    }
  }
  return Status::OK();
}

}  // namespace leveldb
