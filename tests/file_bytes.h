// Whole files and single bytes, read, written and damaged directly (not
// through the engine): for the tests that corrupt a database's files or
// compare what a file holds.
//
// POSIX and the C++ library only.
#ifndef DELSM_TESTS_FILE_BYTES_H_
#define DELSM_TESTS_FILE_BYTES_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace delsm_test {

// The size of the file at `path` in bytes; 0 if it cannot be stat'ed.
inline uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The bytes of the file at `path` ("" if it cannot be read).
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Sets *out to the bytes of the file at `path`; false if it could not be
// read to its end.
inline bool ReadWhole(const std::string& path, std::string* out) {
  out->clear();
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out->append(buf, n);
  const bool ok = n == 0;
  return close(fd) == 0 && ok;
}

// Makes `data` the whole of the file at `path` (created if missing).
inline bool WriteWhole(const std::string& path, const std::string& data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok =
      write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  return close(fd) == 0 && ok;
}

// Inverts every bit of the byte at `offset` of `path`, in place (so every
// hard link of the file sees the change).
inline bool FlipByte(const std::string& path, uint64_t offset) {
  int fd = open(path.c_str(), O_RDWR);
  if (fd < 0) return false;
  char c;
  bool ok = pread(fd, &c, 1, offset) == 1;
  c = static_cast<char>(~c);
  ok = ok && pwrite(fd, &c, 1, offset) == 1;
  return close(fd) == 0 && ok;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_FILE_BYTES_H_
