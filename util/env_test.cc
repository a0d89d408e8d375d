#include "leveldb/env.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/options.h"
#include "tests/test_support.h"
#include "util/env_util.h"

namespace leveldb {

class EnvPosixTest : public testing::Test {
 public:
  EnvPosixTest() : env_(Env::Default()) {
    dir_ = delsm_test::MakeTestDir("delsm_env_test");
    EXPECT_FALSE(dir_.empty());
  }
  ~EnvPosixTest() override { delsm_test::RemoveTree(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // True if this process has an open descriptor on `path` and every such
  // descriptor is close-on-exec.
  static bool AllDescriptorsCloseOnExec(const std::string& path) {
    bool found = false;
    for (const std::string& name : delsm_test::ListDir("/proc/self/fd")) {
      char target[4096];
      std::string link = "/proc/self/fd/" + name;
      ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
      if (n < 0) continue;
      target[n] = '\0';
      if (path != target) continue;
      found = true;
      int flags = fcntl(std::atoi(name.c_str()), F_GETFD);
      if (flags < 0 || (flags & FD_CLOEXEC) == 0) return false;
    }
    return found;
  }

  Env* env_;
  std::string dir_;
};

TEST_F(EnvPosixTest, WriteThenReadSequentialAndRandom) {
  const std::string fname = Path("f");
  std::string data;
  for (int i = 0; i < 100000; i++) data.push_back(static_cast<char>(i * 7));
  ASSERT_TRUE(WriteStringToFile(env_, data, fname).ok());

  uint64_t size;
  ASSERT_TRUE(env_->GetFileSize(fname, &size).ok());
  EXPECT_EQ(data.size(), size);

  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_EQ(data, read);

  SequentialFile* seq;
  ASSERT_TRUE(env_->NewSequentialFile(fname, &seq).ok());
  std::unique_ptr<SequentialFile> seq_owner(seq);
  char scratch[100];
  Slice chunk;
  ASSERT_TRUE(seq->Skip(10).ok());
  ASSERT_TRUE(seq->Read(5, &chunk, scratch).ok());
  EXPECT_EQ(data.substr(10, 5), chunk.ToString());

  RandomAccessFile* ra;
  ASSERT_TRUE(env_->NewRandomAccessFile(fname, &ra).ok());
  std::unique_ptr<RandomAccessFile> ra_owner(ra);
  ASSERT_TRUE(ra->Read(50000, 100, &chunk, scratch).ok());
  EXPECT_EQ(data.substr(50000, 100), chunk.ToString());
  // Reading across the end returns what is there.
  ASSERT_TRUE(ra->Read(data.size() - 3, 100, &chunk, scratch).ok());
  EXPECT_EQ(data.substr(data.size() - 3), chunk.ToString());
  ASSERT_TRUE(ra->Read(data.size() + 10, 100, &chunk, scratch).ok());
  EXPECT_TRUE(chunk.empty());
}

// An Append larger than one write() takes (kMaxWriteChunk), and not a
// multiple of it, reaches the file whole.
TEST_F(EnvPosixTest, LargeAppendIsWrittenWhole) {
  const std::string fname = Path("big");
  std::string data;
  for (int i = 0; i < (1 << 20) + 1000; i++) {
    data.push_back(static_cast<char>(i * 13));
  }
  WritableFile* file;
  ASSERT_TRUE(env_->NewWritableFile(fname, &file).ok());
  std::unique_ptr<WritableFile> owner(file);
  ASSERT_TRUE(file->Append("x").ok());
  ASSERT_TRUE(file->Append(data).ok());
  ASSERT_TRUE(file->Close().ok());
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_TRUE(read == "x" + data);
}

TEST_F(EnvPosixTest, WritableFileBuffersAndSyncs) {
  const std::string fname = Path("MANIFEST-000001");
  WritableFile* file;
  ASSERT_TRUE(env_->NewWritableFile(fname, &file).ok());
  std::unique_ptr<WritableFile> owner(file);
  std::string expected;
  for (int i = 0; i < 1000; i++) {
    std::string piece(static_cast<size_t>(i % 300),
                      static_cast<char>('a' + i % 26));
    ASSERT_TRUE(file->Append(piece).ok());
    expected += piece;
  }
  std::string big(200000, 'Z');  // Larger than any write buffer.
  ASSERT_TRUE(file->Append(big).ok());
  expected += big;
  ASSERT_TRUE(file->Sync().ok());
  // After Sync the data is visible to readers even before Close.
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_EQ(expected, read);
  ASSERT_TRUE(file->Append("tail").ok());
  ASSERT_TRUE(file->Flush().ok());
  ASSERT_TRUE(file->Close().ok());
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_EQ(expected + "tail", read);
}

TEST_F(EnvPosixTest, NewWritableFileTruncates) {
  const std::string fname = Path("t");
  ASSERT_TRUE(WriteStringToFile(env_, "long old contents", fname).ok());
  ASSERT_TRUE(WriteStringToFile(env_, "new", fname).ok());
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_EQ("new", read);
}

TEST_F(EnvPosixTest, AppendableFileAppends) {
  const std::string fname = Path("a");
  ASSERT_TRUE(WriteStringToFile(env_, "hello ", fname).ok());
  WritableFile* file;
  ASSERT_TRUE(env_->NewAppendableFile(fname, &file).ok());
  ASSERT_TRUE(file->Append("world").ok());
  ASSERT_TRUE(file->Close().ok());
  delete file;
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, fname, &read).ok());
  EXPECT_EQ("hello world", read);

  // Appending to a missing file creates it.
  ASSERT_TRUE(env_->NewAppendableFile(Path("fresh"), &file).ok());
  ASSERT_TRUE(file->Append("x").ok());
  delete file;  // Destructor closes (and flushes).
  ASSERT_TRUE(ReadFileToString(env_, Path("fresh"), &read).ok());
  EXPECT_EQ("x", read);
}

TEST_F(EnvPosixTest, WriteStringToFileSync) {
  ASSERT_TRUE(WriteStringToFileSync(env_, "durable", Path("s")).ok());
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, Path("s"), &read).ok());
  EXPECT_EQ("durable", read);
}

TEST_F(EnvPosixTest, MissingFilesAreNotFoundWithPath) {
  const std::string fname = Path("missing");
  EXPECT_FALSE(env_->FileExists(fname));
  SequentialFile* seq;
  Status s = env_->NewSequentialFile(fname, &seq);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(nullptr, seq);
  EXPECT_NE(std::string::npos, s.ToString().find(fname));
  RandomAccessFile* ra;
  EXPECT_TRUE(env_->NewRandomAccessFile(fname, &ra).IsNotFound());
  uint64_t size;
  EXPECT_TRUE(env_->GetFileSize(fname, &size).IsNotFound());
  EXPECT_TRUE(env_->RemoveFile(fname).IsNotFound());
  EXPECT_TRUE(env_->DeleteFile(fname).IsNotFound());  // Legacy name.
  EXPECT_FALSE(env_->RenameFile(fname, Path("x")).ok());
  std::string read;
  EXPECT_TRUE(ReadFileToString(env_, fname, &read).IsNotFound());
}

TEST_F(EnvPosixTest, WritingInMissingDirectoryIsIOErrorOrNotFound) {
  WritableFile* file;
  Status s = env_->NewWritableFile(Path("nodir/f"), &file);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(nullptr, file);
  EXPECT_NE(std::string::npos, s.ToString().find("nodir/f"));
}

TEST_F(EnvPosixTest, RenameAndRemove) {
  ASSERT_TRUE(WriteStringToFile(env_, "one", Path("src")).ok());
  ASSERT_TRUE(WriteStringToFile(env_, "two", Path("dst")).ok());
  ASSERT_TRUE(env_->RenameFile(Path("src"), Path("dst")).ok());
  EXPECT_FALSE(env_->FileExists(Path("src")));
  std::string read;
  ASSERT_TRUE(ReadFileToString(env_, Path("dst"), &read).ok());
  EXPECT_EQ("one", read);
  ASSERT_TRUE(env_->RemoveFile(Path("dst")).ok());
  EXPECT_FALSE(env_->FileExists(Path("dst")));
}

TEST_F(EnvPosixTest, Directories) {
  const std::string sub = Path("sub");
  ASSERT_TRUE(env_->CreateDir(sub).ok());
  EXPECT_TRUE(env_->FileExists(sub));
  EXPECT_FALSE(env_->CreateDir(sub).ok());  // Already exists.
  ASSERT_TRUE(WriteStringToFile(env_, "x", sub + "/a").ok());
  ASSERT_TRUE(WriteStringToFile(env_, "y", sub + "/b").ok());
  ASSERT_TRUE(env_->CreateDir(sub + "/c").ok());

  std::vector<std::string> children;
  ASSERT_TRUE(env_->GetChildren(sub, &children).ok());
  std::sort(children.begin(), children.end());
  // As in LevelDB, "." and ".." are reported too.
  EXPECT_EQ((std::vector<std::string>{".", "..", "a", "b", "c"}), children);

  EXPECT_FALSE(env_->RemoveDir(sub).ok());  // Not empty.
  ASSERT_TRUE(env_->RemoveFile(sub + "/a").ok());
  ASSERT_TRUE(env_->RemoveFile(sub + "/b").ok());
  ASSERT_TRUE(env_->DeleteDir(sub + "/c").ok());  // Legacy name.
  ASSERT_TRUE(env_->RemoveDir(sub).ok());
  EXPECT_FALSE(env_->FileExists(sub));
  EXPECT_TRUE(env_->GetChildren(sub, &children).IsNotFound());
}

TEST_F(EnvPosixTest, LockIsRefusedTwiceInProcessUntilUnlocked) {
  const std::string fname = Path("LOCK");
  FileLock* lock1;
  ASSERT_TRUE(env_->LockFile(fname, &lock1).ok());
  EXPECT_TRUE(env_->FileExists(fname));

  FileLock* lock2;
  Status s = env_->LockFile(fname, &lock2);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(nullptr, lock2);
  EXPECT_EQ("IO error: lock " + fname + ": already held by process",
            s.ToString());

  ASSERT_TRUE(env_->UnlockFile(lock1).ok());
  ASSERT_TRUE(env_->LockFile(fname, &lock2).ok());
  ASSERT_TRUE(env_->UnlockFile(lock2).ok());
}

// Nothing the Env creates or writes is a symbolic link's target: a link at
// the name is refused, naming it, and what it points at is neither made
// nor changed.
TEST_F(EnvPosixTest, WritersAndLockRefuseALink) {
  const std::string outside = Path("outside");
  const std::string link = Path("link");
  ASSERT_EQ(0, symlink(outside.c_str(), link.c_str()));
  const std::string refused =
      "IO error: " + link + ": a symbolic link, not followed";
  FileLock* lock = nullptr;
  EXPECT_EQ(refused, env_->LockFile(link, &lock).ToString());
  EXPECT_EQ(nullptr, lock);
  WritableFile* file = nullptr;
  EXPECT_EQ(refused, env_->NewWritableFile(link, &file).ToString());
  EXPECT_EQ(refused, env_->NewAppendableFile(link, &file).ToString());
  EXPECT_EQ(nullptr, file);
  Logger* logger = nullptr;
  EXPECT_EQ(refused, env_->NewLogger(link, &logger).ToString());
  EXPECT_EQ(nullptr, logger);
  EXPECT_FALSE(env_->FileExists(outside));

  // A link to a file that exists: the file keeps its bytes.
  ASSERT_TRUE(WriteStringToFile(env_, "mine", outside).ok());
  EXPECT_EQ(refused, env_->NewWritableFile(link, &file).ToString());
  EXPECT_EQ(refused, WriteStringToFileSync(env_, "x", link).ToString());
  std::string data;
  ASSERT_TRUE(ReadFileToString(env_, outside, &data).ok());
  EXPECT_EQ("mine", data);
}

TEST_F(EnvPosixTest, LockIsRefusedToAnotherProcess) {
  const std::string fname = Path("LOCK");
  FileLock* lock;
  ASSERT_TRUE(env_->LockFile(fname, &lock).ok());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: fcntl locks of the parent are not inherited, so this is a
    // genuine second process contending. Exit 0 only if refused.
    int fd = open(fname.c_str(), O_RDWR);
    struct flock info = {};
    info.l_type = F_WRLCK;
    info.l_whence = SEEK_SET;
    bool refused_by_fcntl = fd >= 0 && fcntl(fd, F_SETLK, &info) < 0;
    _exit(refused_by_fcntl ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(0, WEXITSTATUS(status));
  ASSERT_TRUE(env_->UnlockFile(lock).ok());
}

TEST_F(EnvPosixTest, DescriptorsAreCloseOnExec) {
  const std::string fname = Path("cloexec");
  ASSERT_TRUE(WriteStringToFile(env_, "data", fname).ok());
  {
    RandomAccessFile* ra;
    ASSERT_TRUE(env_->NewRandomAccessFile(fname, &ra).ok());
    std::unique_ptr<RandomAccessFile> owner(ra);
    EXPECT_TRUE(AllDescriptorsCloseOnExec(fname));
  }
  {
    SequentialFile* seq;
    ASSERT_TRUE(env_->NewSequentialFile(fname, &seq).ok());
    std::unique_ptr<SequentialFile> owner(seq);
    EXPECT_TRUE(AllDescriptorsCloseOnExec(fname));
  }
  {
    WritableFile* w;
    ASSERT_TRUE(env_->NewAppendableFile(fname, &w).ok());
    std::unique_ptr<WritableFile> owner(w);
    EXPECT_TRUE(AllDescriptorsCloseOnExec(fname));
  }
  {
    FileLock* lock;
    ASSERT_TRUE(env_->LockFile(Path("LOCK"), &lock).ok());
    EXPECT_TRUE(AllDescriptorsCloseOnExec(Path("LOCK")));
    ASSERT_TRUE(env_->UnlockFile(lock).ok());
  }
}

namespace {
struct ScheduleState {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> order;
  int expected = 0;
};
struct Task {
  ScheduleState* state;
  int id;
};
void RunTask(void* arg) {
  Task* task = static_cast<Task*>(arg);
  std::lock_guard<std::mutex> guard(task->state->mu);
  task->state->order.push_back(task->id);
  task->state->cv.notify_all();
}
}  // namespace

TEST_F(EnvPosixTest, ScheduleRunsTasksInOrder) {
  ScheduleState state;
  const int kTasks = 200;
  std::vector<Task> tasks;
  for (int i = 0; i < kTasks; i++) tasks.push_back(Task{&state, i});
  for (Task& t : tasks) env_->Schedule(&RunTask, &t);
  std::unique_lock<std::mutex> lock(state.mu);
  state.cv.wait(lock, [&] { return state.order.size() == kTasks; });
  for (int i = 0; i < kTasks; i++) ASSERT_EQ(i, state.order[i]);
}

TEST_F(EnvPosixTest, StartThreadRuns) {
  ScheduleState state;
  std::vector<Task> tasks;
  for (int i = 0; i < 3; i++) tasks.push_back(Task{&state, i});
  for (Task& t : tasks) env_->StartThread(&RunTask, &t);
  std::unique_lock<std::mutex> lock(state.mu);
  state.cv.wait(lock, [&] { return state.order.size() == 3; });
  std::sort(state.order.begin(), state.order.end());
  EXPECT_EQ((std::vector<int>{0, 1, 2}), state.order);
}

TEST_F(EnvPosixTest, LoggerWritesTimestampedLines) {
  const std::string fname = Path("LOG");
  Logger* logger;
  ASSERT_TRUE(env_->NewLogger(fname, &logger).ok());
  Log(logger, "hello %d", 42);
  Log(logger, "second line\n");
  std::string long_message(5000, 'm');
  Log(logger, "%s", long_message.c_str());
  Log(nullptr, "ignored");  // A null logger is allowed.
  delete logger;

  std::string text;
  ASSERT_TRUE(ReadFileToString(env_, fname, &text).ok());
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos;
       start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  ASSERT_EQ(3u, lines.size());
  EXPECT_EQ(start, text.size());  // Every line terminated exactly once.
  // "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread> <message>"
  for (const std::string& line : lines) {
    ASSERT_GT(line.size(), 27u);
    EXPECT_EQ('/', line[4]);
    EXPECT_EQ('/', line[7]);
    EXPECT_EQ('-', line[10]);
    EXPECT_EQ(':', line[13]);
    EXPECT_EQ(':', line[16]);
    EXPECT_EQ('.', line[19]);
    EXPECT_EQ(' ', line[26]);
  }
  EXPECT_EQ("hello 42", lines[0].substr(lines[0].size() - 8));
  EXPECT_EQ("second line", lines[1].substr(lines[1].size() - 11));
  EXPECT_EQ(long_message, lines[2].substr(lines[2].size() - 5000));
}

TEST_F(EnvPosixTest, TestDirectoryHonoursTestTmpdir) {
  const char* old = getenv("TEST_TMPDIR");
  std::string saved = old ? old : "";
  setenv("TEST_TMPDIR", dir_.c_str(), 1);
  std::string path;
  ASSERT_TRUE(env_->GetTestDirectory(&path).ok());
  EXPECT_EQ(dir_, path);
  if (old) {
    setenv("TEST_TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TEST_TMPDIR");
  }
}

TEST_F(EnvPosixTest, OptionsDefaultToBytewiseAndDefaultEnv) {
  Options options;
  EXPECT_EQ(Env::Default(), options.env);
  ASSERT_NE(nullptr, options.comparator);
  EXPECT_STREQ("leveldb.BytewiseComparator", options.comparator->Name());
}

}  // namespace leveldb
