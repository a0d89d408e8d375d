// What a directory tree holds, for tests that show a command changed
// nothing: a snapshot of every path's identity and bytes (and, from
// file_bytes.h, a whole file).
#ifndef DELSM_TESTS_TREE_SNAPSHOT_H_
#define DELSM_TESTS_TREE_SNAPSHOT_H_

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace delsm_test {

// Every path under `root` (relative, "" for root itself) with what
// identifies its state: type, size, inode, link count, mtime and, for
// files, their bytes. Two equal snapshots mean nothing there changed, which
// is how the tool tests show that a read-only command wrote nothing.
inline std::map<std::string, std::string> TreeSnapshot(
    const std::string& root) {
  std::map<std::string, std::string> snap;
  std::vector<std::string> todo = {""};
  while (!todo.empty()) {
    const std::string rel = todo.back();
    todo.pop_back();
    const std::string path = root + rel;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
      snap[rel] = "missing";
      continue;
    }
    std::ostringstream id;
    id << st.st_mode << ' ' << st.st_size << ' ' << st.st_ino << ' '
       << st.st_nlink << ' ' << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode)) id << ' ' << ReadWholeFile(path);
    snap[rel] = id.str();
    if (S_ISDIR(st.st_mode)) {
      for (const std::string& n : ListDir(path)) todo.push_back(rel + "/" + n);
    }
  }
  return snap;
}

// The paths whose state differs between snapshots `before` and `after`,
// each as "<path> removed", "<path> changed" or "<path> added": empty when
// nothing changed, and otherwise what a failing test prints.
inline std::vector<std::string> SnapshotChanges(
    const std::map<std::string, std::string>& before,
    const std::map<std::string, std::string>& after) {
  std::vector<std::string> changes;
  for (const auto& e : before) {
    auto it = after.find(e.first);
    if (it == after.end()) {
      changes.push_back(e.first + " removed");
    } else if (it->second != e.second) {
      changes.push_back(e.first + " changed");
    }
  }
  for (const auto& e : after) {
    if (before.count(e.first) == 0) changes.push_back(e.first + " added");
  }
  return changes;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_TREE_SNAPSHOT_H_
