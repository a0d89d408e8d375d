#include "util/coding.h"

namespace leveldb {

void PutFixed32(std::string* dst, uint32_t value) {
  char buf[sizeof(value)];
  EncodeFixed32(buf, value);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t value) {
  char buf[sizeof(value)];
  EncodeFixed64(buf, value);
  dst->append(buf, sizeof(buf));
}

char* EncodeVarint32(char* dst, uint32_t value) {
  return EncodeVarint64(dst, value);
}

char* EncodeVarint64(char* dst, uint64_t value) {
  uint8_t* out = reinterpret_cast<uint8_t*>(dst);
  // Seven payload bits per byte, low group first; the high bit marks that
  // another byte follows.
  while (value >= 0x80) {
    *out++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<uint8_t>(value);
  return reinterpret_cast<char*>(out);
}

void PutVarint32(std::string* dst, uint32_t value) {
  char buf[5];
  char* end = EncodeVarint32(buf, value);
  dst->append(buf, end - buf);
}

void PutVarint64(std::string* dst, uint64_t value) {
  char buf[10];
  char* end = EncodeVarint64(buf, value);
  dst->append(buf, end - buf);
}

void PutLengthPrefixedSlice(std::string* dst, const Slice& value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 0x80) {
    v >>= 7;
    len++;
  }
  return len;
}

const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    uint64_t byte = static_cast<uint8_t>(*p++);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

const char* GetVarint32PtrFallback(const char* p, const char* limit,
                                   uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    uint32_t byte = static_cast<uint8_t>(*p++);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

bool GetFixed32(Slice* input, uint32_t* value) {
  if (input->size() < sizeof(uint32_t)) return false;
  *value = DecodeFixed32(input->data());
  input->remove_prefix(sizeof(uint32_t));
  return true;
}

bool GetFixed64(Slice* input, uint64_t* value) {
  if (input->size() < sizeof(uint64_t)) return false;
  *value = DecodeFixed64(input->data());
  input->remove_prefix(sizeof(uint64_t));
  return true;
}

bool GetVarint32(Slice* input, uint32_t* value) {
  const char* begin = input->data();
  const char* end = begin + input->size();
  const char* next = GetVarint32Ptr(begin, end, value);
  if (next == nullptr) return false;
  *input = Slice(next, end - next);
  return true;
}

bool GetVarint64(Slice* input, uint64_t* value) {
  const char* begin = input->data();
  const char* end = begin + input->size();
  const char* next = GetVarint64Ptr(begin, end, value);
  if (next == nullptr) return false;
  *input = Slice(next, end - next);
  return true;
}

bool GetLengthPrefixedSlice(Slice* input, Slice* result) {
  uint32_t len;
  if (!GetVarint32(input, &len) || input->size() < len) return false;
  *result = Slice(input->data(), len);
  input->remove_prefix(len);
  return true;
}

}  // namespace leveldb
