// What the whole-engine suites open their databases with: the options and
// the tunings (delsm::Tuning, include/delsm/delsm.h) they start from; each
// suite sets what else it needs on top.
#ifndef DELSM_TESTS_DB_OPTIONS_H_
#define DELSM_TESTS_DB_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/options.h"
#include "leveldb/status.h"

namespace delsm_test {

// Options that create the database if missing, with memtables of
// `write_buffer_size` bytes; everything else LevelDB's defaults.
inline leveldb::Options NewDbOptions(size_t write_buffer_size) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = write_buffer_size;
  return options;
}

// Levels small enough that a test's few hundred or few thousand keys take
// several flushes and compactions into L1 and deeper: L0 is compacted at
// `l0_compaction_entries` entries or two SST directories, an SST holds at
// most `sst_entries` entries and L1 `l1_entries`.
inline delsm::Tuning SmallLevels(uint64_t l0_compaction_entries,
                                 uint64_t sst_entries, uint64_t l1_entries) {
  delsm::Tuning t;
  t.l0_compaction_entries = l0_compaction_entries;
  t.l0_compaction_dirs = 2;
  t.sst_entries = sst_entries;
  t.l1_entries = l1_entries;
  return t;
}

// No compaction but those the test asks for (CompactRange,
// TEST_CompactRange): L0 never reaches a compaction threshold, and writes
// never slow down or stop for L0.
inline delsm::Tuning ManualCompactionOnly() {
  delsm::Tuning t;
  t.l0_compaction_entries = 1 << 30;
  t.l0_compaction_dirs = 1 << 20;
  t.l0_slowdown_dirs = 1 << 20;
  t.l0_stop_dirs = 1 << 20;
  return t;
}

// ManualCompactionOnly() with every value in a KV file (none inline), at
// most 32 entries an SST, and values that stay put if `stay_put`: for the
// tests that count what flushes and compactions leave in SST directories
// and homes.
inline delsm::Tuning ManualCompactionKvFiles(bool stay_put = true) {
  delsm::Tuning t = ManualCompactionOnly();
  t.values_stay_put = stay_put;
  t.inline_threshold = 0;
  t.sst_entries = 32;
  return t;
}

// Sets each (name, value) of `fields` in *tuning with delsm::SetTuningField,
// as DELSM_OPTIONS would. Returns "" or "<name>: <error>" for the first
// field it refuses.
inline std::string SetTuningFields(
    const std::vector<std::pair<std::string, std::string>>& fields,
    delsm::Tuning* tuning) {
  for (const auto& field : fields) {
    const leveldb::Status s =
        delsm::SetTuningField(field.first, field.second, tuning);
    if (!s.ok()) return field.first + ": " + s.ToString();
  }
  return "";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_DB_OPTIONS_H_
