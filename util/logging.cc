#include "util/logging.h"

#include <cstdio>
#include <limits>

namespace leveldb {

void AppendNumberTo(std::string* str, uint64_t num) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(num));
  str->append(buf);
}

void AppendEscapedStringTo(std::string* str, const Slice& value) {
  for (size_t i = 0; i < value.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= ' ' && c <= '~') {
      str->push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned>(c));
      str->append(buf);
    }
  }
}

std::string NumberToString(uint64_t num) {
  std::string result;
  AppendNumberTo(&result, num);
  return result;
}

std::string EscapeString(const Slice& value) {
  std::string result;
  AppendEscapedStringTo(&result, value);
  return result;
}

bool ConsumeDecimalNumber(Slice* in, uint64_t* val) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t result = 0;
  size_t digits = 0;
  while (digits < in->size()) {
    const char c = (*in)[digits];
    if (c < '0' || c > '9') break;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    // Reject before multiplying: result * 10 + d must not exceed kMax.
    if (result > (kMax - d) / 10) return false;
    result = result * 10 + d;
    digits++;
  }
  if (digits == 0) return false;
  in->remove_prefix(digits);
  *val = result;
  return true;
}

}  // namespace leveldb
