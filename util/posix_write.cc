#include "util/posix_write.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace leveldb {

int WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, std::min(size, kMaxWriteChunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace leveldb
