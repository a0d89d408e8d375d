#include "testing/power_loss_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <utility>

#include "fs/posix_file_system.h"

namespace leveldb {

namespace {

// Errors the rollback tolerates: the entry or its parent is already gone
// (a durable later change removed it), or already there.
bool Benign(int err) {
  return err == ENOENT || err == ENOTDIR || err == EEXIST;
}

// Overwrites bytes [from, to) of the file at `path` with zeros.
int ZeroFill(const std::string& path, uint64_t from, uint64_t to) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const std::string zeros(64 << 10, '\0');
  int err = 0;
  for (uint64_t off = from; off < to && err == 0;) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(zeros.size(), to - off));
    const ssize_t w = pwrite(fd, zeros.data(), n, static_cast<off_t>(off));
    if (w < 0) {
      if (errno != EINTR) err = errno;
      continue;
    }
    off += static_cast<uint64_t>(w);
  }
  if (close(fd) != 0 && err == 0) err = errno;
  return err;
}

}  // namespace

std::string RebasePath(const std::string& path, const std::string& from,
                       const std::string& to) {
  if (path == from) return to;
  if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 &&
      path[from.size()] == '/') {
    return to + path.substr(from.size());
  }
  return path;
}

PowerLossState::PowerLossState(std::string shadow_dir)
    : shadow_dir_(std::move(shadow_dir)),
      counter_(std::make_shared<CallCounter>()) {
  if (mkdir(shadow_dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    model_error_ = PosixError(shadow_dir_, errno, false);
  }
}

PowerLossState::~PowerLossState() = default;

void PowerLossState::CutPower() {
  std::lock_guard<std::mutex> l(mu_);
  power_off_ = true;
}

bool PowerLossState::PowerIsOff() const {
  std::lock_guard<std::mutex> l(mu_);
  return power_off_;
}

bool PowerLossState::PowerCutBefore() {
  if (PowerIsOff()) return true;
  counter_->calls.fetch_add(1);
  uint64_t r = counter_->remaining.load();
  while (r > 0 && !counter_->remaining.compare_exchange_weak(r, r - 1)) {
  }
  if (r != 1) return false;
  CutPower();
  std::function<void()> hook;
  {
    std::lock_guard<std::mutex> l(mu_);
    hook = cut_hook_;
  }
  if (hook) hook();
  return true;
}

void PowerLossState::CutPowerAtCall(uint64_t n) {
  counter_->remaining.store(n);
}

void PowerLossState::SetPowerCutHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> l(mu_);
  cut_hook_ = std::move(hook);
}

void PowerLossState::ShareCallCounter(PowerLossState* peer) {
  peer->counter_ = counter_;
}

uint64_t PowerLossState::DiskCalls() const { return counter_->calls.load(); }

Status PowerLossState::PowerOffError(const std::string& path) const {
  return Status::IOError(path, "power is off (simulated power loss)");
}

void PowerLossState::SetSyncfsHook(std::function<void()> hook) {
  std::lock_guard<std::mutex> l(mu_);
  syncfs_hook_ = std::move(hook);
}

void PowerLossState::SetDirectorySyncHook(
    std::function<void(const std::string&)> hook) {
  std::lock_guard<std::mutex> l(mu_);
  dirsync_hook_ = std::move(hook);
}

void PowerLossState::RunSyncfsHook() {
  std::function<void()> hook;
  {
    std::lock_guard<std::mutex> l(mu_);
    hook = syncfs_hook_;
  }
  if (hook) hook();
}

void PowerLossState::RunDirectorySyncHook(const std::string& dir) {
  std::function<void(const std::string&)> hook;
  {
    std::lock_guard<std::mutex> l(mu_);
    hook = dirsync_hook_;
  }
  if (hook) hook(dir);
}

uint64_t PowerLossState::Now() const {
  std::lock_guard<std::mutex> l(mu_);
  return next_seq_;
}

void PowerLossState::NoteModelError(const Status& s) {
  std::lock_guard<std::mutex> l(mu_);
  if (model_error_.ok()) model_error_ = s;
}

std::string PowerLossState::NewShadowName(const char* prefix) {
  return shadow_dir_ + "/" + prefix + "-" + std::to_string(++shadow_counter_);
}

void PowerLossState::Record(Kind kind, std::string path, std::string target,
                            std::string shadow) {
  Change c;
  c.seq = next_seq_++;
  c.kind = kind;
  c.path = std::move(path);
  c.target = std::move(target);
  c.shadow = std::move(shadow);
  changes_.push_back(std::move(c));
}

void PowerLossState::RecordCreate(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  Record(Kind::kCreate, path);
}

void PowerLossState::RecordMkdir(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  Record(Kind::kMkdir, path);
}

void PowerLossState::RecordRmdir(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  Record(Kind::kRmdir, path);
}

void PowerLossState::RecordRename(const std::string& from,
                                  const std::string& to,
                                  const std::string& replaced_shadow) {
  std::lock_guard<std::mutex> l(mu_);
  Record(Kind::kRename, from, to, replaced_shadow);
}

Status PowerLossState::SaveForRemoval(const std::string& path,
                                      std::string* shadow) {
  {
    std::lock_guard<std::mutex> l(mu_);
    *shadow = NewShadowName("removed");
  }
  if (link(path.c_str(), shadow->c_str()) != 0) {
    const int err = errno;
    shadow->clear();
    return PosixError(path, err, /*enoent_is_not_found=*/true);
  }
  return Status::OK();
}

void PowerLossState::RecordRemove(const std::string& path,
                                  const std::string& shadow) {
  std::lock_guard<std::mutex> l(mu_);
  Record(Kind::kRemove, path, "", shadow);
}

void PowerLossState::Unsave(const std::string& shadow) {
  if (!shadow.empty()) unlink(shadow.c_str());
}

uint64_t PowerLossState::TrackData(const std::string& path, uint64_t durable,
                                   uint64_t size) {
  std::lock_guard<std::mutex> l(mu_);
  Data d;
  d.path = path;
  d.shadow = NewShadowName("data");
  if (link(path.c_str(), d.shadow.c_str()) != 0) {
    if (model_error_.ok()) {
      model_error_ = PosixError(path + " -> " + d.shadow, errno, false);
    }
    return 0;
  }
  d.id = next_data_id_++;
  d.durable = durable;
  d.size = d.flushed = size;
  d.flushed_seq = next_seq_++;
  data_.push_back(std::move(d));
  return data_.back().id;
}

PowerLossState::Data* PowerLossState::FindData(uint64_t id) {
  for (Data& d : data_) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

void PowerLossState::DataAppended(uint64_t id, uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  Data* d = FindData(id);
  if (d != nullptr) d->size += bytes;
}

void PowerLossState::DataFlushed(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  Data* d = FindData(id);
  if (d == nullptr) return;
  d->flushed = d->size;
  d->flushed_seq = next_seq_++;
}

void PowerLossState::DataSynced(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  Data* d = FindData(id);
  if (d != nullptr) d->flushed = d->durable = d->size;
}

void PowerLossState::DataClosed(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  Data* d = FindData(id);
  if (d == nullptr) return;
  d->flushed = d->size;
  d->flushed_seq = next_seq_++;
  d->closed = true;
  DropDurableLocked();
}

std::string PowerLossState::Translate(std::string path, size_t i) const {
  for (size_t j = i + 1; j < changes_.size(); j++) {
    const Change& c = changes_[j];
    if (c.kind == Kind::kRename && !c.undone) {
      path = RebasePath(path, c.path, c.target);
    }
  }
  return path;
}

void PowerLossState::MarkDirectorySynced(const std::string& dir,
                                         uint64_t upto) {
  std::lock_guard<std::mutex> l(mu_);
  for (size_t i = 0; i < changes_.size(); i++) {
    Change& c = changes_[i];
    if (c.durable || c.seq >= upto) continue;
    if (c.kind == Kind::kRename) {
      if (ParentOfPath(Translate(c.path, i)) == dir) c.from_synced = true;
      if (ParentOfPath(Translate(c.target, i)) == dir) c.to_synced = true;
      c.durable = c.from_synced && c.to_synced;
    } else if (ParentOfPath(Translate(c.path, i)) == dir) {
      c.durable = true;
    }
  }
  DropDurableLocked();
}

void PowerLossState::MarkAllDurable(uint64_t upto) {
  std::lock_guard<std::mutex> l(mu_);
  for (Change& c : changes_) {
    if (c.seq < upto) c.durable = true;
  }
  // A syncfs writes back what the kernel held when it started.
  for (Data& d : data_) {
    if (d.flushed_seq < upto && d.flushed > d.durable) d.durable = d.flushed;
  }
  DropDurableLocked();
}

void PowerLossState::DropDurableLocked() {
  for (Change& c : changes_) {
    if (c.durable && !c.shadow.empty()) {
      unlink(c.shadow.c_str());  // the removal is final: let the inode go
      c.shadow.clear();
    }
  }
  // A durable prefix is never needed again: renames after it still are
  // (they translate older paths), and those are kept.
  size_t prefix = 0;
  while (prefix < changes_.size() && changes_[prefix].durable) prefix++;
  changes_.erase(changes_.begin(), changes_.begin() + prefix);
  std::vector<Data> still;
  for (Data& d : data_) {
    if (d.closed && d.durable >= d.size) {
      unlink(d.shadow.c_str());
    } else {
      still.push_back(std::move(d));
    }
  }
  data_.swap(still);
}

size_t PowerLossState::PendingChanges() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t n = 0;
  for (const Change& c : changes_) {
    if (!c.durable) n++;
  }
  for (const Data& d : data_) {
    if (d.size > d.durable) n++;
  }
  return n;
}

Status PowerLossState::SimulatePowerLoss(const PowerLossOutcome& outcome) {
  std::lock_guard<std::mutex> l(mu_);
  Status result = model_error_;
  auto note = [&result](const std::string& what, int err) {
    if (result.ok()) result = PosixError(what, err, false);
  };
  std::mt19937 rng(outcome.seed);
  const bool random = outcome.mode == PowerLossOutcome::kRandom;
  // Data first, through the shadow links: they reach each inode wherever
  // its entries are.
  for (const Data& d : data_) {
    struct stat st;
    if (stat(d.shadow.c_str(), &st) != 0) {
      note(d.shadow, errno);
      continue;
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size <= d.durable) continue;
    int fate = random ? static_cast<int>(rng() % 4) : 0;
    if (random) {
      PowerLossOutcome::DataFate forced = outcome.data_fate;
      for (const auto& f : outcome.fate_by_path) {
        if (d.path.find(f.first) != std::string::npos) {
          forced = f.second;
          break;
        }
      }
      if (forced != PowerLossOutcome::kDrawn) fate = forced;
    }
    int err = 0;
    if (fate == 0) {  // lost
      if (truncate(d.shadow.c_str(), static_cast<off_t>(d.durable)) != 0) {
        err = errno;
      }
    } else if (fate == 1) {  // zero-filled
      err = ZeroFill(d.shadow, d.durable, size);
    } else if (fate == 2) {  // half written
      const uint64_t half = d.durable + (size - d.durable) / 2;
      if (truncate(d.shadow.c_str(), static_cast<off_t>(half)) != 0) {
        err = errno;
      }
    }  // fate 3: complete
    if (err != 0) note(d.shadow, err);
  }
  for (size_t k = changes_.size(); k-- > 0;) {
    Change& c = changes_[k];
    if (c.durable) continue;
    if (random && (rng() % 2 == 0 || outcome.keep_entries)) {
      continue;  // this change survived
    }
    const std::string p = Translate(c.path, k);
    switch (c.kind) {
      case Kind::kCreate:
        if (unlink(p.c_str()) != 0 && !Benign(errno)) note(p, errno);
        break;
      case Kind::kRemove:
        if (link(c.shadow.c_str(), p.c_str()) != 0 && !Benign(errno)) {
          note(c.shadow + " -> " + p, errno);
        }
        break;
      case Kind::kMkdir: {
        const int err = RemoveTreeAt(p);
        if (err != 0) note(p, err);
        break;
      }
      case Kind::kRmdir:
        if (mkdir(p.c_str(), 0755) != 0 && !Benign(errno)) note(p, errno);
        break;
      case Kind::kRename: {
        const std::string to = Translate(c.target, k);
        if (rename(to.c_str(), p.c_str()) != 0 && !Benign(errno)) {
          note(to + " -> " + p, errno);
        }
        if (!c.shadow.empty() && link(c.shadow.c_str(), to.c_str()) != 0 &&
            !Benign(errno)) {
          note(c.shadow + " -> " + to, errno);
        }
        break;
      }
    }
    c.undone = true;
  }
  changes_.clear();
  data_.clear();
  Status emptied = UnlinkDirectoryEntries(shadow_dir_);
  if (result.ok()) result = emptied;
  model_error_ = Status::OK();
  power_off_ = false;
  return result;
}

}  // namespace leveldb
