#include "port/port.h"

#include <pthread.h>
#include <sched.h>
#include <snappy.h>

#include <chrono>
#include <cstring>
#include <string>

namespace leveldb {
namespace port {

bool CondVar::WaitFor(uint64_t micros) {
  std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
  std::cv_status st = cv_.wait_for(lock, std::chrono::microseconds(micros));
  lock.release();
  return st == std::cv_status::timeout;
}

void SetCurrentThreadName(const char* name) {
#if defined(__linux__)
  // The kernel keeps 15 bytes and refuses a longer name outright.
  const std::string kept(name, strnlen(name, 15));
  pthread_setname_np(pthread_self(), kept.c_str());
#else
  (void)name;
#endif
}

void MarkCurrentThreadBackground() {
#if defined(__linux__)
  // sched_setscheduler(0, ...) acts on the calling thread alone on Linux.
  // A thread under a real-time or idle policy keeps it.
  if (sched_getscheduler(0) != SCHED_OTHER) return;
  sched_param param{};
  param.sched_priority = 0;
  sched_setscheduler(0, SCHED_BATCH, &param);  // best effort, as above
#endif
}

bool SnappyCompress(const char* input, size_t length, std::string* output) {
  output->resize(snappy::MaxCompressedLength(length));
  size_t out_len = 0;
  snappy::RawCompress(input, length, &(*output)[0], &out_len);
  output->resize(out_len);
  return true;
}

bool SnappyGetUncompressedLength(const char* input, size_t length,
                                 size_t* result) {
  return snappy::GetUncompressedLength(input, length, result);
}

bool SnappyUncompress(const char* input, size_t length, char* output) {
  return snappy::RawUncompress(input, length, output);
}

}  // namespace port
}  // namespace leveldb
