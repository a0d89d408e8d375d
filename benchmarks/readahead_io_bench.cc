// readahead_io_bench: two ways to read KV files ahead of a scan (a thread
// pool and io_uring), measured on the same files.
//
// A scan consumes the KV files of SST directories in order; with read-ahead
// at most --window files past the cursor are being read. Each file is read
// as DeLSM reads it: openat(dir, O_RDONLY|O_NOATIME), one pread of its
// known size plus one byte, close. Modes:
//   sync   no read-ahead: the scan reads each file itself;
//   pool   --threads threads take the next file within the window (what
//          table/value_prefetcher does on its thread pool);
//   uring  one io_uring; per file a chain openat(direct descriptor) ->
//          read -> close, hard-linked (the read is short by the one byte),
//          --window chains in flight, each slot reused once its close came.
// Prints one line: mode, files, bytes, total µs and µs per file, and a sum
// of the bytes read so that every mode is seen to read the same data.
//
// Usage: readahead_io_bench --mode=sync|pool|uring [--window=16]
//          [--threads=4] [--reverse] DIR...
// Every file of each DIR whose name contains '@' (a KV file) is read, DIRs
// in the order given, files in name order (--reverse: all of it backwards,
// as a reverse scan reads them). The caller decides whether the
// caches are cold (benchmarks/readahead_io_ab.sh remounts the file system).
#include <dirent.h>
#include <fcntl.h>
#include <liburing.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct File {
  int dir_fd;
  std::string name;
  size_t size;
};

[[noreturn]] void Die(const std::string& what, int err) {
  std::fprintf(stderr, "readahead_io_bench: %s: %s\n", what.c_str(),
               std::strerror(err));
  std::exit(1);
}

// The KV files of `path`, in name order, with their sizes (not timed).
void ListKvFiles(const std::string& path, std::vector<File>* out) {
  const int dir_fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) Die("open " + path, errno);
  DIR* d = fdopendir(dup(dir_fd));
  if (d == nullptr) Die("fdopendir " + path, errno);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* e = readdir(d)) {
    if (std::strchr(e->d_name, '@') != nullptr) names.push_back(e->d_name);
  }
  if (errno != 0) Die("readdir " + path, errno);
  if (closedir(d) != 0) Die("closedir " + path, errno);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    struct stat st;
    if (fstatat(dir_fd, n.c_str(), &st, 0) != 0) Die("stat " + n, errno);
    out->push_back(File{dir_fd, n, static_cast<size_t>(st.st_size)});
  }
}

// What a scan does with a value: here, adds up its bytes.
uint64_t Consume(const std::string& value) {
  uint64_t sum = 0;
  for (unsigned char c : value) sum += c;
  return sum;
}

// DeLSM's read of a KV file of known size: openat, one pread, close.
void ReadOne(const File& f, std::string* value) {
  const int fd =
      openat(f.dir_fd, f.name.c_str(), O_RDONLY | O_NOATIME | O_CLOEXEC);
  if (fd < 0) Die("openat " + f.name, errno);
  value->resize(f.size + 1);
  const ssize_t r = pread(fd, &(*value)[0], f.size + 1, 0);
  if (r < 0) Die("pread " + f.name, errno);
  if (static_cast<size_t>(r) != f.size) Die("size of " + f.name, EIO);
  value->resize(f.size);
  if (close(fd) != 0) Die("close " + f.name, errno);
}

uint64_t RunSync(const std::vector<File>& files) {
  uint64_t sum = 0;
  std::string value;
  for (const File& f : files) {
    ReadOne(f, &value);
    sum += Consume(value);
  }
  return sum;
}

uint64_t RunPool(const std::vector<File>& files, size_t window, int threads) {
  const size_t n = files.size();
  std::vector<std::string> values(n);
  std::vector<char> done(n, 0);
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0;    // the next file a worker takes; under mu
  size_t cursor = 0;  // the file the scan waits for; under mu
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; t++) {
    workers.emplace_back([&] {
      std::unique_lock<std::mutex> l(mu);
      for (;;) {
        cv.wait(l, [&] { return next >= n || next < cursor + window; });
        if (next >= n) return;
        const size_t i = next++;
        l.unlock();
        std::string v;
        ReadOne(files[i], &v);
        l.lock();
        values[i] = std::move(v);
        done[i] = 1;
        cv.notify_all();
      }
    });
  }
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    std::string v;
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return done[i] != 0; });
      v = std::move(values[i]);
      cursor = i + 1;
      cv.notify_all();
    }
    sum += Consume(v);
  }
  for (std::thread& w : workers) w.join();
  return sum;
}

uint64_t RunUring(const std::vector<File>& files, size_t window) {
  const size_t n = files.size();
  struct io_uring ring;
  int r = io_uring_queue_init(static_cast<unsigned>(4 * window), &ring, 0);
  if (r < 0) Die("io_uring_queue_init", -r);
  r = io_uring_register_files_sparse(&ring, static_cast<unsigned>(window));
  if (r < 0) Die("io_uring_register_files_sparse", -r);
  std::vector<std::string> values(n);
  // Per file: completions still to come (open, read, close), read's result.
  std::vector<int> pending(n, 0);
  std::vector<int> read_result(n, 0);
  auto submit_chain = [&](size_t i) {
    const File& f = files[i];
    const unsigned slot = static_cast<unsigned>(i % window);
    values[i].resize(f.size + 1);
    struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    // A direct descriptor is no process descriptor: O_CLOEXEC is refused.
    io_uring_prep_openat_direct(sqe, f.dir_fd, f.name.c_str(),
                                O_RDONLY | O_NOATIME, 0, slot);
    sqe->flags |= IOSQE_IO_HARDLINK;
    io_uring_sqe_set_data64(sqe, i * 4 + 0);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, static_cast<int>(slot), &values[i][0],
                       static_cast<unsigned>(f.size + 1), 0);
    sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
    io_uring_sqe_set_data64(sqe, i * 4 + 1);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_close_direct(sqe, slot);
    io_uring_sqe_set_data64(sqe, i * 4 + 2);
    pending[i] = 3;
  };
  size_t submitted = 0;
  for (; submitted < std::min(n, window); submitted++) submit_chain(submitted);
  r = io_uring_submit(&ring);
  if (r < 0) Die("io_uring_submit", -r);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    while (pending[i] > 0) {
      struct io_uring_cqe* cqe;
      r = io_uring_wait_cqe(&ring, &cqe);
      if (r < 0) Die("io_uring_wait_cqe", -r);
      const uint64_t data = io_uring_cqe_get_data64(cqe);
      const size_t j = data / 4;
      const int op = static_cast<int>(data % 4);
      if (cqe->res < 0) {
        Die(std::string(op == 0   ? "openat "
                        : op == 1 ? "read "
                                  : "close ") +
                files[j].name,
            -cqe->res);
      }
      if (op == 1) read_result[j] = cqe->res;
      pending[j]--;
      io_uring_cqe_seen(&ring, cqe);
    }
    if (static_cast<size_t>(read_result[i]) != files[i].size) {
      Die("size of " + files[i].name, EIO);
    }
    values[i].resize(files[i].size);
    // Slot i % window is free again (its close completed): the next chain.
    if (submitted < n) {
      submit_chain(submitted++);
      r = io_uring_submit(&ring);
      if (r < 0) Die("io_uring_submit", -r);
    }
    sum += Consume(values[i]);
    std::string().swap(values[i]);
  }
  io_uring_queue_exit(&ring);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode;
  size_t window = 16;
  int threads = 4;
  bool reverse = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a.rfind("--mode=", 0) == 0) {
      mode = a.substr(7);
    } else if (a.rfind("--window=", 0) == 0) {
      window = std::strtoul(a.c_str() + 9, nullptr, 10);
    } else if (a.rfind("--threads=", 0) == 0) {
      threads = std::atoi(a.c_str() + 10);
    } else if (a == "--reverse") {
      reverse = true;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "readahead_io_bench: unknown flag %s\n", a.c_str());
      return 2;
    } else {
      dirs.push_back(a);
    }
  }
  if ((mode != "sync" && mode != "pool" && mode != "uring") || dirs.empty() ||
      window == 0 || threads < 1) {
    std::fprintf(stderr,
                 "usage: readahead_io_bench --mode=sync|pool|uring "
                 "[--window=N>0] [--threads=N>0] [--reverse] DIR...\n");
    return 2;
  }
  std::vector<File> files;
  for (const std::string& d : dirs) ListKvFiles(d, &files);
  if (reverse) std::reverse(files.begin(), files.end());
  uint64_t bytes = 0;
  for (const File& f : files) bytes += f.size;

  const auto start = std::chrono::steady_clock::now();
  uint64_t sum;
  if (mode == "sync") {
    sum = RunSync(files);
  } else if (mode == "pool") {
    sum = RunPool(files, window, threads);
  } else {
    sum = RunUring(files, window);
  }
  const double us = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  std::printf(
      "mode=%s window=%zu threads=%d files=%zu bytes=%llu us=%.0f "
      "us_per_file=%.3f sum=%llu\n",
      mode.c_str(), window, mode == "pool" ? threads : 0, files.size(),
      static_cast<unsigned long long>(bytes), us,
      files.empty() ? 0.0 : us / files.size(),
      static_cast<unsigned long long>(sum));
  return 0;
}
