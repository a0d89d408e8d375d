// The model of acknowledged writes the durability tests check a recovered
// database against: every write issued to each key (puts and deletes, with
// batches), which of them the database has promised to keep, and a check
// of a recovered key -> value map against it.
//
// The rules Check() applies:
//  * a promised write is there, or a later write of the same key is (a key
//    whose promised write or anything after it is a delete may be absent);
//  * no key shows a value older than its last promised write (a deleted key
//    does not come back, a stale version does not show);
//  * every value shown was written to that key; a key never written is
//    absent;
//  * a batch is all or nothing.
// Unpromised writes (unsynced, failed, or beyond what the durability mode
// promises) may or may not be there.
#ifndef DELSM_TESTS_WRITE_MODEL_H_
#define DELSM_TESTS_WRITE_MODEL_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace delsm_test {

// The durability tests' keys: "key" and `k` zero-padded to `digits`
// digits.
inline std::string NumberedKey(uint32_t k, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%0*u", digits, k);
  return buf;
}

// NumberedKey(k, digits) for every k in [0, count).
inline std::vector<std::string> NumberedKeys(int count, int digits) {
  std::vector<std::string> keys;
  for (int k = 0; k < count; k++) keys.push_back(NumberedKey(k, digits));
  return keys;
}

// One write to one key as the model knows it. `index` orders writes
// globally (a batch's writes share one index).
struct Write {
  uint64_t index;
  bool is_delete;
  std::string value;
  bool promised;  // must survive (or be superseded)
  bool failed;    // the write returned an error: never promised
};

// Every write issued, per key, oldest first, plus the batches.
class Model {
 public:
  uint64_t NextIndex() { return next_index_++; }

  // `failed`: the write returned an error; it may show, but PromiseAll
  // does not promise it.
  void Add(const std::string& key, uint64_t index, bool is_delete,
           const std::string& value, bool promised, bool failed = false) {
    history_[key].push_back({index, is_delete, value, promised, failed});
  }

  // Every write issued before now is promised from here on.
  void PromiseAll() {
    for (auto& kv : history_) {
      for (Write& w : kv.second) w.promised |= !w.failed;
    }
  }

  void AddBatch(uint64_t index, std::vector<std::string> keys) {
    batches_.push_back({index, std::move(keys)});
  }

  // Adds the writes of batch `index` (key and value, "" for a delete; one
  // per key), each as Add does with `promised` and `failed`, and the batch.
  void AddBatch(uint64_t index,
                const std::vector<std::pair<std::string, std::string>>& writes,
                bool promised, bool failed) {
    std::vector<std::string> keys;
    for (const auto& w : writes) {
      Add(w.first, index, w.second.empty(), w.second, promised, failed);
      keys.push_back(w.first);
    }
    AddBatch(index, std::move(keys));
  }

  // The state recovered becomes the new starting point: one promised write
  // per key (the test has checked it; the disk is not lost again).
  void Rebase(const std::map<std::string, std::string>& contents) {
    history_.clear();
    batches_.clear();
    for (const auto& kv : contents) {
      history_[kv.first].push_back(
          {NextIndex(), false, kv.second, true, false});
    }
  }

  // Checks `found` (key -> value of everything the DB holds) against the
  // model; returns a description of the first violations, or "".
  std::string Check(const std::map<std::string, std::string>& found) const {
    std::string errors;
    int n = 0;
    auto fail = [&](const std::string& e) {
      if (n++ < 8) errors += e + "\n";
    };
    // Which write's value each key shows (-1: none found).
    std::map<std::string, int64_t> shown;
    for (const auto& kv : found) {
      auto it = history_.find(kv.first);
      if (it == history_.end()) {
        fail("key " + kv.first + " was never written");
        continue;
      }
      int64_t idx = -1;
      for (const Write& w : it->second) {
        if (!w.is_delete && w.value == kv.second) idx = w.index;
      }
      if (idx < 0) fail("key " + kv.first + " holds a value never written");
      shown[kv.first] = idx;
    }
    for (const auto& kv : history_) {
      const std::vector<Write>& h = kv.second;
      int64_t promised = -1;  // position in h of the last promised write
      for (size_t i = 0; i < h.size(); i++) {
        if (h[i].promised) promised = static_cast<int64_t>(i);
      }
      if (promised < 0) continue;
      auto f = shown.find(kv.first);
      if (f == shown.end()) {
        // Absent: fine only if a delete at or after the promise explains it.
        bool deleted = false;
        for (size_t i = promised; i < h.size(); i++) deleted |= h[i].is_delete;
        if (!deleted) {
          fail("lost: " + kv.first + " (promised write #" +
               std::to_string(h[promised].index) + ")");
        }
      } else if (f->second >= 0 &&
                 static_cast<uint64_t>(f->second) < h[promised].index) {
        fail(std::string(h[promised].is_delete ? "deleted key reappeared: "
                                               : "older value shown: ") +
             kv.first + " shows write #" + std::to_string(f->second) +
             ", promised write #" + std::to_string(h[promised].index));
      }
    }
    // All or nothing: if one key shows a batch's own value, every key of
    // the batch shows the batch or something newer.
    for (const auto& b : batches_) {
      bool applied = false;
      for (const std::string& k : b.second) {
        auto f = shown.find(k);
        applied |=
            f != shown.end() && f->second == static_cast<int64_t>(b.first);
      }
      if (!applied) continue;
      for (const std::string& k : b.second) {
        const std::vector<Write>& h = history_.at(k);
        bool batch_deletes = false, later_delete = false;
        for (const Write& w : h) {
          if (w.index == b.first) batch_deletes = w.is_delete;
          if (w.index > b.first && w.is_delete) later_delete = true;
        }
        auto f = shown.find(k);
        const bool ok = f == shown.end()
                            ? (batch_deletes || later_delete)
                            : f->second >= static_cast<int64_t>(b.first) &&
                                  !(batch_deletes &&
                                    f->second == static_cast<int64_t>(b.first));
        if (!ok) {
          fail("batch #" + std::to_string(b.first) + " half applied at " + k);
        }
      }
    }
    if (n > 8) errors += std::to_string(n - 8) + " more\n";
    return errors;
  }

 private:
  uint64_t next_index_ = 0;
  std::map<std::string, std::vector<Write>> history_;
  std::vector<std::pair<uint64_t, std::vector<std::string>>> batches_;
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_WRITE_MODEL_H_
