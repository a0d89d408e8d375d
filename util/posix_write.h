// Writing a whole buffer to a file descriptor, shared by the two POSIX
// implementations (the Env in util/env_posix.cc and the FileSystem in
// fs/posix_directory.cc).
#ifndef DELSM_UTIL_POSIX_WRITE_H_
#define DELSM_UTIL_POSIX_WRITE_H_

#include <cstddef>

namespace leveldb {

// Writes all of [data, data + size) to `fd` at its offset, retrying after
// EINTR and short writes. Returns 0, or the errno of the write() that
// failed (how much was written before it is unknown to the caller).
//
// At most kMaxWriteChunk bytes go in one write(): on Linux 6.x ext4 one
// write() of a 2.4 MB meta file into new page-cache pages took 2-5 ms,
// the same bytes in 64 KiB-1 MiB write()s 0.4-0.6 ms (255 files, loop ext4).
int WriteAll(int fd, const char* data, size_t size);

constexpr size_t kMaxWriteChunk = 256 << 10;

}  // namespace leveldb

#endif  // DELSM_UTIL_POSIX_WRITE_H_
