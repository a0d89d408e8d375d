// PosixLogger: a leveldb::Logger that appends one timestamped line per
// message to a stdio stream:
//   YYYY/MM/DD-HH:MM:SS.uuuuuu <thread id> <message>
// Lines from concurrent threads are never interleaved (each line is one
// fwrite, which stdio performs under the stream's lock).
#ifndef DELSM_UTIL_POSIX_LOGGER_H_
#define DELSM_UTIL_POSIX_LOGGER_H_

#include <sys/time.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <thread>

#include "leveldb/env.h"

namespace leveldb {

class PosixLogger final : public Logger {
 public:
  // Takes ownership of `fp` and closes it on destruction.
  explicit PosixLogger(std::FILE* fp) : fp_(fp) {}
  ~PosixLogger() override { std::fclose(fp_); }

  PosixLogger(const PosixLogger&) = delete;
  PosixLogger& operator=(const PosixLogger&) = delete;

  void Logv(const char* format, std::va_list ap) override {
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm local;
    time_t seconds = now.tv_sec;
    localtime_r(&seconds, &local);

    std::ostringstream tid_stream;
    tid_stream << std::this_thread::get_id();
    std::string tid = tid_stream.str();
    if (tid.size() > 32) tid.resize(32);

    char header[96];
    int header_len = std::snprintf(
        header, sizeof(header), "%04d/%02d/%02d-%02d:%02d:%02d.%06d %s ",
        local.tm_year + 1900, local.tm_mon + 1, local.tm_mday, local.tm_hour,
        local.tm_min, local.tm_sec, static_cast<int>(now.tv_usec), tid.c_str());
    if (header_len < 0) return;
    if (static_cast<size_t>(header_len) >= sizeof(header)) {
      header_len = sizeof(header) - 1;
    }

    // Measure the message first so any length is logged in full.
    std::va_list measure;
    va_copy(measure, ap);
    int body_len = std::vsnprintf(nullptr, 0, format, measure);
    va_end(measure);
    if (body_len < 0) return;

    std::string line(header, header_len);
    const size_t body_at = line.size();
    line.resize(body_at + body_len + 1);  // +1 for vsnprintf's NUL.
    std::va_list write_args;
    va_copy(write_args, ap);
    std::vsnprintf(&line[body_at], body_len + 1, format, write_args);
    va_end(write_args);
    line.resize(body_at + body_len);
    if (line.empty() || line.back() != '\n') line.push_back('\n');

    std::fwrite(line.data(), 1, line.size(), fp_);
    std::fflush(fp_);
  }

 private:
  std::FILE* const fp_;
};

}  // namespace leveldb

#endif  // DELSM_UTIL_POSIX_LOGGER_H_
