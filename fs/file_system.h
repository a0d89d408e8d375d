// The dentry layer's view of the file system: the only way the engine
// creates, reads, links, unlinks, renames and syncs SST directories and KV
// files. Everything above this interface reads like a classic LSM; tests
// substitute a fault-injecting implementation underneath it.
//
// Every failure is an IOError whose message names the path and the errno
// text; ENOSPC with free blocks but no free inodes says "out of inodes";
// EMFILE and ENFILE say "out of file descriptors" (IsOutOfDescriptors).
//
// Descriptors: an open Directory holds a descriptor of its own only while
// the process-wide budget allows (a fifth of RLIMIT_NOFILE, as LevelDB
// bounds its open files); beyond it a Directory works by path and opens
// what each call needs for that call only. So however many Directories
// are open, they hold a bounded number of descriptors.
// Names passed to a Directory are single path components (no '/'); callers
// guarantee that (see key_codec.h).
//
// Symbolic links are not DeLSM's and are never followed to read, list or
// change what they point at: a file that is a link does not read (IOError
// "a symbolic link, not followed"); a Directory opened at a link (the
// path's last component) only syncs (Sync, SyncFileSystem: a database
// directory may be a link its user made), every other call fails the same
// way. Unlink of a link removes the link only; CreateDir does not take a
// link for an existing directory, and WriteFile never writes through one
// (O_EXCL). So the orphan sweeps skip a link where an SST directory or a
// home should be (and log it), RepairDB sets a linked SST directory aside
// as unreadable (moving the link) and refuses a linked home or lost/,
// Open refuses a linked level directory or values/, and DestroyDB fails
// naming the link it met, before removing anything; what a link points at
// is never touched. (Links among a path's earlier components are followed
// by the kernel as for any path; the callers above refuse a link at each
// directory of their own before they make anything below it.)
#ifndef DELSM_FS_FILE_SYSTEM_H_
#define DELSM_FS_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

struct KvFileInfo {
  uint64_t size = 0;
  uint64_t inode = 0;
  uint64_t links = 0;
  uint64_t blocks_512 = 0;  // st_blocks
  bool directory = false;   // S_ISDIR (a symbolic link to one is not)
};

// What the file system holding a path says of its free space and inodes
// (statfs/statvfs for the POSIX implementation).
struct FileSystemSpace {
  uint64_t block_size = 0;    // f_frsize: the allocation unit, in bytes
  uint64_t total_inodes = 0;  // f_files (0 where the FS has no fixed count)
  uint64_t free_inodes = 0;   // f_favail: free to an unprivileged user
  uint64_t free_bytes = 0;    // f_bavail * f_frsize
  std::string type;           // "ext4" (also ext2/3), "xfs", "btrfs",
                              // "tmpfs", else f_type in hex
  // Inodes are made from free space as files are created (XFS, up to its
  // share of the space, imaxpct; btrfs, which reports no inode counts),
  // not fixed when the file system was made (ext4: mkfs -i / -N).
  bool dynamic_inodes = false;
};

// A file opened for reading, for callers that read one file many times (a
// meta file holding inline values) and would otherwise pay an open and a
// close per read. Holds a descriptor while the process has them to spare
// (the same budget as Directory's); must not outlive the Directory that
// opened it, unless mapped() is non-null: a file in memory reads nothing
// through its Directory (an SST without KV files keeps its mapped meta file
// and closes its directory). Thread-safe.
class ReadOnlyFile {
 public:
  virtual ~ReadOnlyFile() = default;
  // The file's size when it was opened (files read this way are immutable).
  virtual uint64_t size() const = 0;
  // Read up to n bytes at offset into *contents (shorter only at EOF).
  virtual Status ReadAt(uint64_t offset, size_t n,
                        std::string* contents) const = 0;
  // The file's size() bytes in memory, valid while this object lives, or
  // nullptr when the file is read through ReadAt only (see
  // Directory::OpenMappedFile).
  virtual const char* mapped() const { return nullptr; }
};

// An open directory. Operations on names inside it use the held descriptor
// (the *at() system calls), so they stay valid if the directory is renamed.
// Thread-safe: any number of threads may use one Directory at once.
class Directory {
 public:
  virtual ~Directory() = default;

  // The path the directory was opened by (it may since have been renamed).
  virtual const std::string& path() const = 0;

  // Create `name` (it must not exist), write `data` with one write, close.
  // With `sync`, fsync the file before closing.
  virtual Status WriteFile(const std::string& name, const Slice& data,
                           bool sync) = 0;

  // Read the whole of `name` into *contents.
  virtual Status ReadFile(const std::string& name, std::string* contents) = 0;

  // Read up to n bytes of `name` at offset into *contents (shorter at EOF):
  // one open (O_NOATIME where permitted), one read, one close. A reader
  // that knows a file's length asks for one byte more to learn, in the same
  // read, that the file is not longer than it should be; so a read that
  // returns at least n - 1 bytes is final (no second read to confirm EOF).
  virtual Status ReadFileAt(const std::string& name, uint64_t offset, size_t n,
                            std::string* contents) = 0;

  // ReadFileAt, also saying in *from_cache whether the data came from
  // memory without waiting for the device (a scan uses it to read ahead
  // only when its reads wait). An implementation that cannot tell reads as
  // ReadFileAt does and sets *from_cache false.
  virtual Status ReadFileAtNoting(const std::string& name, uint64_t offset,
                                  size_t n, std::string* contents,
                                  bool* from_cache) {
    *from_cache = false;
    return ReadFileAt(name, offset, n, contents);
  }

  // Open `name` for repeated reads. NotFound if it does not exist.
  virtual Status OpenFile(const std::string& name,
                          std::unique_ptr<ReadOnlyFile>* result) = 0;

  // OpenFile for a file read often and at random (an SST's meta file): the
  // result's mapped() holds its bytes in memory where the implementation
  // can map them (POSIX: a read-only shared mapping, holding no descriptor
  // once made), so a read is a memory access rather than a system call.
  // Only for files never modified while open: a mapped file truncated
  // under its reader faults the process (SIGBUS), as LevelDB's mapped
  // tables do. The default is OpenFile, so a wrapping FileSystem (fault
  // injection, power loss, counting) sees every read.
  virtual Status OpenMappedFile(const std::string& name,
                                std::unique_ptr<ReadOnlyFile>* result) {
    return OpenFile(name, result);
  }

  // Hard-link `name` from `source` into this directory as `new_name` (a
  // second name of the same file: nothing is copied). EEXIST is reported as
  // an IOError; callers decide whether that is benign.
  virtual Status LinkFromAs(Directory* source, const std::string& name,
                            const std::string& new_name) = 0;
  // LinkFromAs under the same name.
  Status LinkFrom(Directory* source, const std::string& name) {
    return LinkFromAs(source, name, name);
  }

  // Remove the directory entry `name`. NotFound if it does not exist.
  virtual Status Unlink(const std::string& name) = 0;

  // NotFound if `name` does not exist.
  virtual Status Stat(const std::string& name, KvFileInfo* info) = 0;

  // Names of every entry except "." and "..", in no particular order.
  virtual Status List(std::vector<std::string>* names) = 0;

  // The names among List's that are directories themselves (a symbolic
  // link to one is not), for a caller about to unlink every entry, which
  // cannot unlink a directory. The default is List and a Stat of each
  // entry; the POSIX directory reads each entry's kind from the listing
  // where the file system gives it there (ext4, XFS, btrfs, tmpfs do), so
  // that it costs no call per entry. An entry gone between the listing and
  // its Stat is not one.
  virtual Status ListDirectories(std::vector<std::string>* names);

  // fsync the directory itself (its entries, not the files' data).
  virtual Status Sync() = 0;

  // syncfs: make everything on the directory's file system durable.
  virtual Status SyncFileSystem() = 0;
};

// Operations on whole paths. Thread-safe.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // The POSIX implementation; never deleted.
  static FileSystem* Default();

  virtual Status OpenDirectory(const std::string& path,
                               std::unique_ptr<Directory>* result) = 0;
  // Like OpenDirectory, for a directory that may later be renamed to one
  // of `moved_to`: a Directory that works by path (no descriptor of its
  // own) looks there when its path is gone. The default ignores `moved_to`.
  virtual Status OpenMovableDirectory(const std::string& path,
                                      const std::vector<std::string>& moved_to,
                                      std::unique_ptr<Directory>* result) {
    return OpenDirectory(path, result);
  }
  // mkdir; an existing directory is not an error when `ok_if_exists`. A
  // symbolic link at `path` is never taken for the directory, even when it
  // points at one (IOError "a symbolic link, not followed"): what would be
  // made in it would be outside the database.
  virtual Status CreateDir(const std::string& path, bool ok_if_exists) = 0;
  // rmdir; the directory must be empty.
  virtual Status RemoveDir(const std::string& path) = 0;
  // rename(2); used to move a whole SST directory to another level.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Sets *exists to whether `path` exists (any kind of file; a symbolic
  // link at its last component is not followed). OK with *exists false
  // only where the lookup finds nothing there (ENOENT, or ENOTDIR: a
  // component before the last is not a directory); any other failure
  // (EIO, ENOMEM, EACCES, ELOOP) is returned as an IOError naming `path`,
  // *exists false: whether anything is there is unknown. Code that would
  // forget, skip or remove something on absence, or take something for
  // moved or removed, asks this, not Exists.
  virtual Status Probe(const std::string& path, bool* exists) = 0;
  // True if Probe finds `path`. False also when that cannot be told (Probe
  // failed): false is no proof of absence. For decisions that are safe
  // either way (whether to make a directory that CreateDir would refuse
  // anyway, what to report).
  bool Exists(const std::string& path) {
    bool exists = false;
    return Probe(path, &exists).ok() && exists;
  }
  // The free space and inodes of the file system holding `path`. The
  // default asks the kernel (GetFileSystemSpace, posix_file_system.h); a
  // FileSystem that keeps its files elsewhere says what it has, or
  // NotSupported.
  virtual Status GetSpace(const std::string& path, FileSystemSpace* space);

  // Names of every entry of the directory at `path` except "." and "..",
  // in no particular order: OpenDirectory and Directory::List, so a
  // wrapping implementation sees (and may fail) both. NotFound if `path`
  // does not exist.
  Status ListDirectory(const std::string& path,
                       std::vector<std::string>* names) {
    names->clear();
    std::unique_ptr<Directory> dir;
    Status s = OpenDirectory(path, &dir);
    if (s.ok()) s = dir->List(names);
    return s;
  }
};

// True if `s` reports that the process or the system ran out of file
// descriptors (EMFILE, ENFILE): a transient condition, unlike most I/O
// errors.
bool IsOutOfDescriptors(const Status& s);

// True if `s` is a FileSystem's (or the Env's) refusal to follow a
// symbolic link (IOError "<path>: a symbolic link, not followed"): what the
// path names is outside the directory it was asked under.
bool IsLinkNotFollowed(const Status& s);

// OK if nothing is at `dir`, or a directory is; else CreateDir's error
// naming it (a symbolic link there: "a symbolic link, not followed"), or
// Probe's (whether anything is there cannot be told). Creates nothing. For a
// directory a caller will move files into only if it exists by then, checked
// before the caller changes anything.
Status CheckNotALink(FileSystem* fs, const std::string& dir);

}  // namespace leveldb

#endif  // DELSM_FS_FILE_SYSTEM_H_
