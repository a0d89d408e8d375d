// KV file name encoding. See key_codec.h for the format.
//
// Two details beyond the header's summary:
//  - Escaping is canonical: a byte is written as %XX exactly when it is not
//    kept literally, and parsing rejects any other spelling, so every name
//    maps to at most one key and KvFileName(ParseKvFileName(n)) == n.
//  - A hashed name is '#' <32 lowercase hex> "%L" '@' <sequence>. The "%L"
//    is never produced by escaping ('L' is not a hex digit), so a short key
//    that happens to be spelled like a hash (e.g. "#0123...") can never be
//    confused with a hashed name.
#include "table/key_codec.h"

#include <cstring>

namespace leveldb {

namespace {

constexpr size_t kSequenceDigits = 14;
// '@' plus the sequence digits.
constexpr size_t kSuffixLength = 1 + kSequenceDigits;
// The stored name of a compressed value adds one 'z' (KvStoredFileName), and
// whether a value is compressed is known only once it is written: the
// escaped key must leave room for it, or a flush fails with ENAMETOOLONG on
// a value that happens to compress, and every reopen replays the same entry.
constexpr size_t kCompressedMarkLength = 1;
constexpr size_t kMaxEscapedKeyLength =
    kMaxKvFileNameLength - kSuffixLength - kCompressedMarkLength;
constexpr size_t kHashHexDigits = 32;
constexpr char kHashMarker[] = "%L";

bool KeptLiterally(unsigned char c) {
  return c >= 0x20 && c <= 0x7e && c != '%' && c != '/' && c != '@';
}

size_t EscapedLength(const Slice& key) {
  size_t n = 0;
  for (size_t i = 0; i < key.size(); i++) {
    n += KeptLiterally(static_cast<unsigned char>(key[i])) ? 1 : 3;
  }
  return n;
}

int HexValue(char c, bool upper) {
  if (c >= '0' && c <= '9') return c - '0';
  if (upper && c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (!upper && c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

void AppendHex(std::string* out, uint64_t v, int digits) {
  static const char kDigits[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; i--) {
    out->push_back(kDigits[(v >> (4 * i)) & 0xf]);
  }
}

// Final avalanche so that every input bit affects every output bit.
uint64_t Avalanche(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return x;
}

// A 64-bit hash of `key` parameterised by `seed` and `mult`; two calls with
// different parameters give the two halves of the 128-bit name hash.
uint64_t Hash64(const Slice& key, uint64_t seed, uint64_t mult) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(key.data());
  size_t n = key.size();
  uint64_t h = seed ^ (n * mult);
  while (n >= 8) {
    uint64_t w = 0;
    for (int i = 0; i < 8; i++) w |= static_cast<uint64_t>(p[i]) << (8 * i);
    h ^= Avalanche(w + mult);
    h = (h << 27) | (h >> 37);
    h = h * mult + 0x52dce729u;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; i++) tail |= static_cast<uint64_t>(p[i]) << (8 * i);
  h ^= Avalanche(tail ^ (static_cast<uint64_t>(n) << 59) ^ seed);
  return Avalanche(h);
}

bool ParseSequence(const Slice& digits, uint64_t* sequence) {
  if (digits.size() != kSequenceDigits) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < digits.size(); i++) {
    int d = HexValue(digits[i], /*upper=*/false);
    if (d < 0) return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *sequence = v;
  return true;
}

}  // namespace

bool KvFileNameIsHashed(const Slice& user_key) {
  // Cheap bound first: at most 3 bytes per key byte.
  if (user_key.size() * 3 <= kMaxEscapedKeyLength) return false;
  if (user_key.size() > kMaxEscapedKeyLength) return true;
  return EscapedLength(user_key) > kMaxEscapedKeyLength;
}

std::string KvFileName(const Slice& user_key, uint64_t sequence) {
  std::string name;
  if (KvFileNameIsHashed(user_key)) {
    name.reserve(1 + kHashHexDigits + 2 + kSuffixLength);
    name.push_back('#');
    AppendHex(&name,
              Hash64(user_key, 0x243f6a8885a308d3ull, 0x9e3779b97f4a7c15ull),
              16);
    AppendHex(&name,
              Hash64(user_key, 0x13198a2e03707344ull, 0xc2b2ae3d27d4eb4full),
              16);
    name.append(kHashMarker);
  } else {
    static const char kUpper[] = "0123456789ABCDEF";
    name.reserve(EscapedLength(user_key) + kSuffixLength);
    for (size_t i = 0; i < user_key.size(); i++) {
      unsigned char c = static_cast<unsigned char>(user_key[i]);
      if (KeptLiterally(c)) {
        name.push_back(static_cast<char>(c));
      } else {
        name.push_back('%');
        name.push_back(kUpper[c >> 4]);
        name.push_back(kUpper[c & 0xf]);
      }
    }
  }
  name.push_back('@');
  // Sequences are at most 56 bits, which 14 hex digits hold exactly.
  AppendHex(&name, sequence, static_cast<int>(kSequenceDigits));
  return name;
}

bool ParseKvFileName(const Slice& name, std::string* user_key,
                     uint64_t* sequence, bool* hashed) {
  if (name.size() < kSuffixLength || name.size() > kMaxKvFileNameLength) {
    return false;
  }
  const size_t body_len = name.size() - kSuffixLength;
  if (name[body_len] != '@') return false;
  uint64_t seq;
  if (!ParseSequence(Slice(name.data() + body_len + 1, kSequenceDigits),
                     &seq)) {
    return false;
  }
  const Slice body(name.data(), body_len);

  // Hashed form.
  const size_t marker_len = sizeof(kHashMarker) - 1;
  if (body.size() == 1 + kHashHexDigits + marker_len && body[0] == '#' &&
      memcmp(body.data() + 1 + kHashHexDigits, kHashMarker, marker_len) == 0) {
    for (size_t i = 1; i <= kHashHexDigits; i++) {
      if (HexValue(body[i], /*upper=*/false) < 0) return false;
    }
    user_key->clear();
    *sequence = seq;
    *hashed = true;
    return true;
  }

  // Escaped form; only the canonical spelling is accepted.
  std::string key;
  key.reserve(body.size());
  for (size_t i = 0; i < body.size(); i++) {
    unsigned char c = static_cast<unsigned char>(body[i]);
    if (c == '%') {
      if (i + 2 >= body.size()) return false;
      int hi = HexValue(body[i + 1], /*upper=*/true);
      int lo = HexValue(body[i + 2], /*upper=*/true);
      if (hi < 0 || lo < 0) return false;
      unsigned char b = static_cast<unsigned char>(hi * 16 + lo);
      if (KeptLiterally(b)) return false;
      key.push_back(static_cast<char>(b));
      i += 2;
    } else if (KeptLiterally(c)) {
      key.push_back(static_cast<char>(c));
    } else {
      return false;
    }
  }
  user_key->swap(key);
  *sequence = seq;
  *hashed = false;
  return true;
}

std::string KvStoredFileName(const Slice& user_key, uint64_t sequence,
                             bool compressed) {
  std::string name = KvFileName(user_key, sequence);
  if (compressed) name.push_back('z');
  return name;
}

bool ParseKvStoredFileName(const Slice& name, std::string* user_key,
                           uint64_t* sequence, bool* hashed, bool* compressed) {
  Slice base = name;
  *compressed = !base.empty() && base[base.size() - 1] == 'z';
  if (*compressed) base = Slice(base.data(), base.size() - 1);
  return ParseKvFileName(base, user_key, sequence, hashed);
}

}  // namespace leveldb
