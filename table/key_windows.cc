#include "table/key_windows.h"

#include <algorithm>
#include <cstring>

namespace leveldb {

namespace {

// `raw` read from memory as 8 big-endian bytes: integer order is the
// bytes' order.
uint64_t BigEndian(uint64_t raw) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return raw;
#else
  return __builtin_bswap64(raw);
#endif
}

}  // namespace

uint64_t KeyWindows::WindowOf(const Slice& user_key) const {
  const size_t start = prefix_.size();
  const size_t avail = user_key.size() > start ? user_key.size() - start : 0;
  if (avail >= 8) {
    uint64_t raw;
    std::memcpy(&raw, user_key.data() + start, 8);
    return BigEndian(raw);
  }
  uint64_t w = 0;
  for (size_t i = 0; i < 8; i++) {
    w <<= 8;
    if (i < avail) w |= static_cast<unsigned char>(user_key[start + i]);
  }
  return w;
}

void KeyWindows::Narrow(const Slice& user_key, size_t* lo, size_t* hi) const {
  if (windows_.empty()) return;
  // Order against the common prefix decides before any window does.
  const size_t p = prefix_.size();
  const size_t cmp_len = std::min(p, user_key.size());
  int c =
      cmp_len == 0 ? 0 : std::memcmp(user_key.data(), prefix_.data(), cmp_len);
  if (c == 0 && user_key.size() < p) c = -1;  // a proper prefix sorts first
  if (c < 0) {
    *hi = *lo;  // smaller than every key of the run
    return;
  }
  if (c > 0) {
    *lo = *hi;  // larger than every key of the run
    return;
  }
  const uint64_t w = WindowOf(user_key);
  auto begin = windows_.begin() + *lo, end = windows_.begin() + *hi;
  auto first = std::lower_bound(begin, end, w);
  // Equal windows are few (the versions of one key, or keys that differ
  // past the window): walk them, and search only a long run.
  auto last = first;
  for (int i = 0; i < 4 && last != end && *last == w; i++) ++last;
  if (last != end && *last == w) last = std::upper_bound(last, end, w);
  *lo = first - windows_.begin();
  *hi = last - windows_.begin();
}

}  // namespace leveldb
