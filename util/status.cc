#include "leveldb/status.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace leveldb {

// state_ layout (fixed by the header): 4-byte host-order message length,
// 1 code byte, then the message bytes (not NUL-terminated).
const char* Status::CopyState(const char* state) {
  uint32_t len;
  std::memcpy(&len, state, sizeof(len));
  size_t total = static_cast<size_t>(len) + 5;
  char* copy = new char[total];
  std::memcpy(copy, state, total);
  return copy;
}

Status::Status(Code code, const Slice& msg, const Slice& msg2) {
  const size_t len1 = msg.size();
  const size_t len2 = msg2.size();
  const size_t len = len1 + (len2 > 0 ? 2 + len2 : 0);
  char* buf = new char[len + 5];
  uint32_t len32 = static_cast<uint32_t>(len);
  std::memcpy(buf, &len32, sizeof(len32));
  buf[4] = static_cast<char>(code);
  std::memcpy(buf + 5, msg.data(), len1);
  if (len2 > 0) {
    buf[5 + len1] = ':';
    buf[6 + len1] = ' ';
    std::memcpy(buf + 7 + len1, msg2.data(), len2);
  }
  state_ = buf;
}

std::string Status::ToString() const {
  if (state_ == nullptr) return "OK";
  std::string result;
  switch (code()) {
    case kOk:
      result = "OK";
      break;
    case kNotFound:
      result = "NotFound: ";
      break;
    case kCorruption:
      result = "Corruption: ";
      break;
    case kNotSupported:
      result = "Not implemented: ";
      break;
    case kInvalidArgument:
      result = "Invalid argument: ";
      break;
    case kIOError:
      result = "IO error: ";
      break;
    default: {
      char buf[40];
      std::snprintf(buf, sizeof(buf),
                    "Unknown code(%d): ", static_cast<int>(code()));
      result = buf;
      break;
    }
  }
  uint32_t len;
  std::memcpy(&len, state_, sizeof(len));
  result.append(state_ + 5, len);
  return result;
}

}  // namespace leveldb
