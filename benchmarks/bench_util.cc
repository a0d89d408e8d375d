#include "benchmarks/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

namespace bench {

uint64_t Mix64(uint64_t x) {
  // splitmix64's finaliser: an invertible avalanche of all 64 bits.
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

Random::Random(uint64_t seed) {
  // Expand the seed so that small seeds (0, 1, 2...) give unrelated streams
  // and the state is never all zero.
  for (int i = 0; i < 4; i++) {
    seed = Mix64(seed + i);
    s_[i] = seed;
  }
}

static inline uint64_t Rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

uint64_t Random::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Random::Uniform(uint64_t n) {
  // Multiply-high maps 64 random bits onto [0, n) with negligible bias.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                               64);
}

double Random::NextDouble() { return (Next() >> 11) * 0x1.0p-53; }

Permutation::Permutation(uint64_t n, uint64_t seed) : n_(n) {
  int bits = 2;
  while (bits < 64 && (uint64_t{1} << bits) < n) bits += 2;
  half_bits_ = bits / 2;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  Random rnd(seed);
  for (uint64_t& k : round_keys_) k = rnd.Next();
}

uint64_t Permutation::Encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_;
  uint64_t right = x & half_mask_;
  for (uint64_t key : round_keys_) {
    uint64_t next = left ^ (Mix64(right ^ key) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t Permutation::At(uint64_t i) const {
  // Encrypt is a bijection of [0, 4^half_bits); repeating it from a value
  // below n eventually returns below n (cycle walking), and because the
  // domain is under 4n, that takes few steps on average.
  uint64_t x = Encrypt(i);
  while (x >= n_) x = Encrypt(x);
  return x;
}

ValueGenerator::ValueGenerator(double ratio, size_t max_len, uint64_t seed)
    : pos_(0) {
  Random rnd(seed);
  size_t size = std::max<size_t>(1 << 20, 2 * max_len);
  ratio = std::min(std::max(ratio, 0.0), 1.0);
  size_t run = std::max<size_t>(1, static_cast<size_t>(100 * ratio));
  data_.reserve(size + 100);
  std::string piece;
  while (data_.size() < size) {
    piece.clear();
    for (size_t i = 0; i < run; i++) {
      piece.push_back(static_cast<char>(' ' + rnd.Uniform(95)));
    }
    for (size_t i = 0; i < 100; i++) data_.push_back(piece[i % run]);
  }
}

leveldb::Slice ValueGenerator::Generate(size_t len) {
  if (pos_ + len > data_.size()) pos_ = 0;
  leveldb::Slice s(data_.data() + pos_, len);
  pos_ += len;
  return s;
}

int DecimalDigits(uint64_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    d++;
  }
  return d;
}

bool FormatKey(uint64_t index, int width, char* out) {
  for (int i = width - 1; i >= 0; i--) {
    out[i] = static_cast<char>('0' + index % 10);
    index /= 10;
  }
  return index == 0;
}

bool ProcessWriteBytes(uint64_t* write_bytes, uint64_t* cancelled) {
  std::FILE* f = std::fopen("/proc/self/io", "r");
  if (f == nullptr) return false;
  char line[128];
  bool found = false;
  *cancelled = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned long long v;
    if (std::sscanf(line, "write_bytes: %llu", &v) == 1) {
      *write_bytes = v;
      found = true;
    } else if (std::sscanf(line, "cancelled_write_bytes: %llu", &v) == 1) {
      *cancelled = v;
    }
  }
  std::fclose(f);
  return found;
}

bool PeakRssKb(uint64_t* kb) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return false;
  char line[128];
  bool found = false;
  while (!found && std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned long long v;
    if (std::sscanf(line, "VmHWM: %llu kB", &v) == 1) {
      *kb = v;
      found = true;
    }
  }
  std::fclose(f);
  return found;
}

uint64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace bench

namespace bench {

uint64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void PrintCpuInfo() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return;
  char line[512];
  int cpus = 0;
  std::string model, cache;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    const char* colon = std::strchr(line, ':');
    if (colon == nullptr) continue;
    std::string key(line, colon - line);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) {
      key.pop_back();
    }
    std::string val(colon + 1);
    while (!val.empty() && (val[0] == ' ')) val.erase(0, 1);
    while (!val.empty() && val.back() == '\n') val.pop_back();
    if (key == "model name") {
      cpus++;
      model = val;
    } else if (key == "cache size") {
      cache = val;
    }
  }
  std::fclose(f);
  std::fprintf(stdout, "CPU:        %d * %s\n", cpus, model.c_str());
  std::fprintf(stdout, "CPUCache:   %s\n", cache.c_str());
}

}  // namespace bench
