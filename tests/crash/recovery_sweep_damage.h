// The recovery sweep's damage catalogue (tests/crash/recovery_sweep_*):
// the kinds of file Open and RepairDB read, the four damages done to them
// in place, and the file helpers that do it.
#ifndef DELSM_TESTS_CRASH_RECOVERY_SWEEP_DAMAGE_H_
#define DELSM_TESTS_CRASH_RECOVERY_SWEEP_DAMAGE_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace leveldb {
namespace recovery_sweep {

using delsm_test::ListDir;

// ---------------------------------------------------------------- files

enum class Damage { kFlip, kTruncate, kZero, kRemove };
inline const char* DamageName(Damage d) {
  switch (d) {
    case Damage::kFlip:
      return "flip";
    case Damage::kTruncate:
      return "truncate";
    case Damage::kZero:
      return "zero";
    case Damage::kRemove:
      return "remove";
  }
  return "?";
}
inline const Damage kDamages[] = {Damage::kFlip, Damage::kTruncate,
                                  Damage::kZero, Damage::kRemove};

// The kind of file at `rel` (relative to the DB directory), or "" for files
// neither Open nor RepairDB reads (LOCK, LOG, what repair put in lost/).
inline std::string FileKind(const std::string& rel) {
  if (rel == "CURRENT") return "current";
  if (rel.rfind("MANIFEST-", 0) == 0) return "manifest";
  if (rel.find('/') == std::string::npos) {
    if (rel.size() > 4 && rel.substr(rel.size() - 4) == ".log") return "wal";
    return "";  // LOCK, LOG, LOG.old
  }
  if (rel.rfind("lost/", 0) == 0) return "";
  if (rel.rfind("leveldb-conversion/", 0) == 0) return "staging";
  if (rel.rfind("values/", 0) == 0) return "home_value";
  if (rel.size() > 3 && rel[0] == 'L' && rel[2] == '/') {
    const std::string base = rel.substr(rel.rfind('/') + 1);
    const std::string level = rel[1] == '0' ? "l0_" : "deep_";
    if (base.rfind("LONGKEYS", 0) == 0) return level + "longkeys";
    if (base == "META") return level + "meta";
    if (base.rfind("META-", 0) == 0) return level + "meta_n";
    return level + "kv";
  }
  return "other";
}

inline void Walk(const std::string& root, const std::string& rel,
                 std::vector<std::string>* files) {
  for (const std::string& name : ListDir(root + "/" + rel)) {
    const std::string r = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    if (lstat((root + "/" + r).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      Walk(root, r, files);
    } else if (S_ISREG(st.st_mode)) {
      files->push_back(r);
    }
  }
}

inline bool ReadWhole(const std::string& path, std::string* out) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  out->clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return n == 0;
    }
    out->append(buf, n);
  }
}

// Writes `data` into the file at `path` in place (same inode: every hard
// link sees it), creating it if missing.
inline bool WriteInPlace(const std::string& path, const std::string& data) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok =
      write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  return close(fd) == 0 && ok;
}

// Damages `path` in place; "" or what failed.
inline std::string ApplyDamage(const std::string& path, Damage d,
                               uint32_t where) {
  std::string data;
  if (!ReadWhole(path, &data)) return "read " + path;
  switch (d) {
    case Damage::kFlip:
      if (data.empty()) return "empty";
      data[where % data.size()] ^= 0x5a;
      break;
    case Damage::kTruncate:
      if (data.empty()) return "empty";
      data.resize(data.size() / 2);
      break;
    case Damage::kZero:
      if (data.empty()) return "empty";
      data.assign(data.size(), '\0');
      break;
    case Damage::kRemove:
      return unlink(path.c_str()) == 0 ? "" : "unlink " + path;
  }
  return WriteInPlace(path, data) ? "" : "write " + path;
}

// Every path under `root` whose inode is `ino`.
inline void FindInode(const std::string& root, ino_t ino,
                      std::vector<std::string>* found) {
  std::vector<std::string> files;
  Walk(root, "", &files);
  for (const std::string& f : files) {
    struct stat st;
    if (lstat((root + "/" + f).c_str(), &st) == 0 && st.st_ino == ino) {
      found->push_back(root + "/" + f);
    }
  }
}

}  // namespace recovery_sweep
}  // namespace leveldb

#endif  // DELSM_TESTS_CRASH_RECOVERY_SWEEP_DAMAGE_H_
