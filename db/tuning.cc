// delsm::Tuning as text: the DELSM_OPTIONS environment variable, the C API's
// tuning functions and the LOG line all go through the one field table
// below, and so does ValidateTuning, which Open calls on the tuning in
// effect. A field added to delsm::Tuning is one line in Fields(), with the
// range its header comment documents.
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "db/dbformat.h"
#include "delsm/delsm.h"

namespace delsm {

namespace {

struct Field {
  const char* name;
  // Sets the field from `text`; false if the text is not a valid value.
  std::function<bool(const std::string& text, Tuning* t)> parse;
  std::function<std::string(const Tuning& t)> format;
  const char* values;  // what parse accepts, for error messages
  // Empty if the field's value is in its documented range, else what the
  // range is ("[1, 64]"). Fields are checked in declaration order, so a
  // bound may depend on a field declared before.
  std::function<std::string(const Tuning& t)> out_of_range;
};

// "[lo, hi]" in decimal.
std::string RangeText(long long lo, unsigned long long hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// True if v, of any integral type, lies in [lo, hi] (lo may be negative).
template <typename T>
bool InRange(T v, long long lo, unsigned long long hi) {
  if (std::is_signed<T>::value) {
    const long long x = static_cast<long long>(v);
    return x >= lo && (x < 0 || static_cast<unsigned long long>(x) <= hi);
  }
  const unsigned long long x = static_cast<unsigned long long>(v);
  return (lo <= 0 || x >= static_cast<unsigned long long>(lo)) && x <= hi;
}

// Decimal text -> an integral field, rejecting signs where the field is
// unsigned, trailing characters and values out of the field's range (a bool
// field takes 0 or 1).
// The field's range is [lo, hi], or [the value of `lo_field`, hi] when
// `lo_field` is given (l0_slowdown_dirs is at least l0_compaction_dirs).
template <typename T>
Field Integer(const char* name, T Tuning::*member, long long lo,
              unsigned long long hi, int Tuning::*lo_field = nullptr) {
  static_assert(std::is_integral<T>::value, "integral fields only");
  Field f;
  f.name = name;
  f.values = std::is_signed<T>::value ? "a decimal integer"
                                      : "a non-negative decimal integer";
  f.parse = [member](const std::string& text, Tuning* t) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    if (std::is_signed<T>::value) {
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno != 0 || *end != '\0') return false;
      if (v < static_cast<long long>(std::numeric_limits<T>::min()) ||
          v > static_cast<long long>(std::numeric_limits<T>::max())) {
        return false;
      }
      t->*member = static_cast<T>(v);
    } else {
      if (text[0] == '-' || text[0] == '+') return false;
      unsigned long long v = std::strtoull(text.c_str(), &end, 10);
      if (errno != 0 || *end != '\0') return false;
      if (v > static_cast<unsigned long long>(std::numeric_limits<T>::max())) {
        return false;
      }
      t->*member = static_cast<T>(v);
    }
    return true;
  };
  f.format = [member](const Tuning& t) { return std::to_string(t.*member); };
  f.out_of_range = [member, lo, hi, lo_field](const Tuning& t) {
    const long long low = lo_field != nullptr ? t.*lo_field : lo;
    if (InRange(t.*member, low, hi)) return std::string();
    return RangeText(low, hi);
  };
  return f;
}

struct DurabilityName {
  Durability mode;
  const char* name;
};
constexpr DurabilityName kDurabilityNames[] = {
    {Durability::kSyncfs, "syncfs"},
    {Durability::kFsync, "fsync"},
    {Durability::kDeferred, "deferred"},
};

Field DurabilityField(const char* name, Durability Tuning::*member) {
  Field f;
  f.name = name;
  f.values = "syncfs, fsync or deferred";
  f.parse = [member](const std::string& text, Tuning* t) {
    for (const DurabilityName& d : kDurabilityNames) {
      if (text == d.name) {
        t->*member = d.mode;
        return true;
      }
    }
    return false;
  };
  f.format = [member](const Tuning& t) {
    for (const DurabilityName& d : kDurabilityNames) {
      if (t.*member == d.mode) return std::string(d.name);
    }
    return "unknown (" + std::to_string(static_cast<int>(t.*member)) + ")";
  };
  f.out_of_range = [member](const Tuning& t) {
    for (const DurabilityName& d : kDurabilityNames) {
      if (t.*member == d.mode) return std::string();
    }
    return std::string("syncfs, fsync or deferred");
  };
  return f;
}

// A bool takes either value.
Field Flag(const char* name, bool Tuning::*member) {
  Field f = Integer(name, member, 0, 1);
  f.out_of_range = [](const Tuning&) { return std::string(); };
  return f;
}

// The ranges documented in include/delsm/delsm.h.
constexpr unsigned long long kMaxRetentionMicros =
    365ull * 24 * 3600 * 1000 * 1000;                  // a year
constexpr unsigned long long kMaxL0Dirs = 1000000000;  // 10^9
// 10^14 (entries or meta bytes): L6 holds 10^5 times L1, which must fit in
// 64 bits.
constexpr unsigned long long kMaxEntries = 100000000000000ull;
constexpr unsigned long long kMaxSstEntries = 1ull << 24;

// Every Tuning field, in declaration order.
const std::vector<Field>& Fields() {
  static const std::vector<Field>* fields = new std::vector<Field>{
      DurabilityField("durability", &Tuning::durability),
      Integer("deferred_wal_retention_micros",
              &Tuning::deferred_wal_retention_micros, 0, kMaxRetentionMicros),
      Integer("inline_threshold", &Tuning::inline_threshold, 0, 1 << 20),
      Integer("compress_inline_from", &Tuning::compress_inline_from, 0,
              1 << 20),
      Integer("read_ahead_files", &Tuning::read_ahead_files, 0, 1024),
      Integer("read_ahead_bytes", &Tuning::read_ahead_bytes, 0, 1ull << 30),
      Integer("read_ahead_threads", &Tuning::read_ahead_threads, 1, 64),
      Integer("l0_compaction_entries", &Tuning::l0_compaction_entries, 1,
              kMaxEntries),
      Integer("l0_compaction_dirs", &Tuning::l0_compaction_dirs, 1, kMaxL0Dirs),
      Integer("l0_slowdown_dirs", &Tuning::l0_slowdown_dirs, 1, kMaxL0Dirs,
              &Tuning::l0_compaction_dirs),
      Integer("l0_stop_dirs", &Tuning::l0_stop_dirs, 1, kMaxL0Dirs,
              &Tuning::l0_slowdown_dirs),
      Integer("sst_entries", &Tuning::sst_entries, 1, kMaxSstEntries),
      Integer("max_dir_entries", &Tuning::max_dir_entries, 1, kMaxSstEntries),
      Integer("l1_entries", &Tuning::l1_entries, 1, kMaxEntries),
      Integer("l1_meta_bytes", &Tuning::l1_meta_bytes, 1, kMaxEntries),
      Integer("kv_file_entries_per_entry", &Tuning::kv_file_entries_per_entry,
              1, 1000),
      Integer("table_cache_bytes", &Tuning::table_cache_bytes, 1, 1ull << 48),
      Integer("filter_cache_bytes", &Tuning::filter_cache_bytes, 0, 1ull << 48),
      Integer("flush_threads", &Tuning::flush_threads, 1,
              leveldb::config::kMaxImmutableMemtables),
      Flag("values_stay_put", &Tuning::values_stay_put),
      Flag("removal_thread", &Tuning::removal_thread),
  };
  return *fields;
}

const Field* FindField(const std::string& name) {
  for (const Field& f : Fields()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

std::string KnownNames() {
  std::string names;
  for (const Field& f : Fields()) {
    if (!names.empty()) names += ", ";
    names += f.name;
  }
  return names;
}

}  // namespace

leveldb::Status SetTuningField(const std::string& name,
                               const std::string& value, Tuning* tuning) {
  const Field* f = FindField(name);
  if (f == nullptr) {
    return leveldb::Status::InvalidArgument(
        "unknown tuning field '" + name + "'", "known: " + KnownNames());
  }
  if (!f->parse(value, tuning)) {
    return leveldb::Status::InvalidArgument(
        "bad value '" + value + "' for tuning field " + name,
        std::string("want ") + f->values);
  }
  return leveldb::Status::OK();
}

bool GetTuningField(const Tuning& tuning, const std::string& name,
                    std::string* value) {
  const Field* f = FindField(name);
  if (f == nullptr) return false;
  *value = f->format(tuning);
  return true;
}

leveldb::Status ValidateTuning(const Tuning& tuning) {
  for (const Field& f : Fields()) {
    const std::string range = f.out_of_range(tuning);
    if (!range.empty()) {
      return leveldb::Status::InvalidArgument(
          std::string("tuning field ") + f.name,
          f.format(tuning) + " is outside " + range);
    }
  }
  return leveldb::Status::OK();
}

leveldb::Status ParseTuning(const std::string& spec, Tuning* tuning) {
  Tuning result = *tuning;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t semi = spec.find(';', pos);
    if (semi == std::string::npos) semi = spec.size();
    const std::string item = Trim(spec.substr(pos, semi - pos));
    pos = semi + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return leveldb::Status::InvalidArgument("tuning item '" + item +
                                              "' is not name=value");
    }
    leveldb::Status s = SetTuningField(Trim(item.substr(0, eq)),
                                       Trim(item.substr(eq + 1)), &result);
    if (!s.ok()) return s;
  }
  *tuning = result;
  return leveldb::Status::OK();
}

std::string TuningToString(const Tuning& tuning) {
  std::string out;
  for (const Field& f : Fields()) {
    if (!out.empty()) out += ";";
    out += f.name;
    out += "=";
    out += f.format(tuning);
  }
  return out;
}

}  // namespace delsm
