#include "db/db_iter.h"

#include <cassert>
#include <string>

#include "leveldb/comparator.h"

namespace leveldb {

namespace {

// Moving forward, the internal iterator sits on the entry that supplies
// key() and value(). Moving backward, it sits before every entry of the
// current user key (on an older user key, or invalid), so key() and value()
// come from copies in saved_key_ and saved_value_.
class DBIter : public Iterator {
 public:
  DBIter(const Comparator* user_comparator, Iterator* iter,
         SequenceNumber sequence)
      : user_comparator_(user_comparator),
        iter_(iter),
        sequence_(sequence),
        direction_(kForward),
        valid_(false) {}
  DBIter(const DBIter&) = delete;
  DBIter& operator=(const DBIter&) = delete;
  ~DBIter() override { delete iter_; }

  bool Valid() const override { return valid_; }
  Slice key() const override {
    assert(valid_);
    return (direction_ == kForward) ? ExtractUserKey(iter_->key())
                                    : Slice(saved_key_);
  }
  Slice value() const override {
    assert(valid_);
    return (direction_ == kForward) ? iter_->value() : Slice(saved_value_);
  }
  Status status() const override {
    if (!status_.ok()) return status_;
    return iter_->status();
  }

  void Next() override;
  void Prev() override;
  void Seek(const Slice& target) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  enum Direction { kForward, kReverse };

  // Parses iter_->key(); on failure records Corruption and returns false.
  bool ParseKey(ParsedInternalKey* ikey);
  // From the current position of iter_, moves forward to the first entry
  // that is visible and not deleted. With `skipping`, entries whose user key
  // is <= *skip are hidden (an older version of a key already passed).
  void FindNextUserEntry(bool skipping, std::string* skip);
  // From the current position of iter_, moves backward over one user key's
  // entries and saves its newest visible value; skips keys whose newest
  // visible entry is a deletion.
  void FindPrevUserEntry();

  // *dst = s, by clear() and append(): std::string::assign's general
  // replace (which allows s to overlap *dst) costs some 40 more
  // instructions, once an entry of every scan. s never points into *dst.
  static void Copy(const Slice& s, std::string* dst) {
    dst->clear();
    dst->append(s.data(), s.size());
  }

  void ClearSavedValue() {
    // Don't keep a huge buffer alive after a huge value.
    if (saved_value_.capacity() > (1u << 20)) {
      std::string empty;
      saved_value_.swap(empty);
    } else {
      saved_value_.clear();
    }
  }

  const Comparator* const user_comparator_;
  Iterator* const iter_;  // Owned.
  const SequenceNumber sequence_;

  Status status_;            // First corruption seen.
  std::string saved_key_;    // Reverse: current user key; forward: scratch.
  std::string saved_value_;  // Reverse: current value.
  Direction direction_;
  bool valid_;
};

bool DBIter::ParseKey(ParsedInternalKey* ikey) {
  if (ParseInternalKey(iter_->key(), ikey)) return true;
  if (status_.ok()) {
    status_ = Status::Corruption("corrupted internal key in DB iterator");
  }
  return false;
}

void DBIter::FindNextUserEntry(bool skipping, std::string* skip) {
  assert(direction_ == kForward);
  for (; iter_->Valid(); iter_->Next()) {
    ParsedInternalKey ikey;
    if (!ParseKey(&ikey) || ikey.sequence > sequence_) continue;
    if (skipping &&
        user_comparator_->Compare(ikey.user_key, Slice(*skip)) <= 0) {
      continue;  // An older version of a key already yielded or deleted.
    }
    if (ikey.type == kTypeDeletion) {
      // Hide every older version of this key.
      Copy(ikey.user_key, skip);
      skipping = true;
      continue;
    }
    saved_key_.clear();
    // Read the value now: a value that cannot be read (a damaged meta file
    // or KV file) must end the iteration with that error before the caller
    // sees the entry, never show up as an empty value (LevelDB's value()
    // cannot fail either). Scans read every value anyway; this only moves
    // the read before value().
    iter_->value();
    valid_ = iter_->status().ok();
    return;
  }
  saved_key_.clear();
  valid_ = false;
}

void DBIter::FindPrevUserEntry() {
  assert(direction_ == kReverse);
  // Type of the newest visible entry seen so far for saved_key_; a deletion
  // also stands for "nothing found yet".
  ValueType value_type = kTypeDeletion;
  for (; iter_->Valid(); iter_->Prev()) {
    ParsedInternalKey ikey;
    if (!ParseKey(&ikey) || ikey.sequence > sequence_) continue;
    if (value_type != kTypeDeletion &&
        user_comparator_->Compare(ikey.user_key, Slice(saved_key_)) < 0) {
      break;  // Reached an older user key; saved_key_ is the answer.
    }
    value_type = ikey.type;
    if (value_type == kTypeDeletion) {
      saved_key_.clear();
      ClearSavedValue();
    } else {
      const Slice v = iter_->value();
      if (!iter_->status().ok()) {
        // As in FindNextUserEntry: an unreadable value ends the iteration.
        valid_ = false;
        saved_key_.clear();
        ClearSavedValue();
        direction_ = kForward;
        return;
      }
      if (saved_value_.capacity() > v.size() + (1u << 20)) ClearSavedValue();
      Copy(ikey.user_key, &saved_key_);
      Copy(v, &saved_value_);
    }
  }
  // The move that ended the loop (onto an older user key, or off the
  // front) may have met damage: a child iterator that cannot read a group
  // becomes invalid, or goes on past it, with the error in its status. The
  // entries it could not read may hold a newer version of saved_key_ (its
  // deletion, or a newer value, is met after the older ones going
  // backward), so the saved value is not the answer: the iteration ends
  // with the error, as FindNextUserEntry ends it.
  if (value_type == kTypeDeletion || !iter_->status().ok()) {
    // Ran off the front, or could not go on.
    valid_ = false;
    saved_key_.clear();
    ClearSavedValue();
    direction_ = kForward;
  } else {
    valid_ = true;
  }
}

void DBIter::Next() {
  assert(valid_);
  if (direction_ == kReverse) {
    direction_ = kForward;
    // iter_ is before the entries of saved_key_; step onto them, then skip
    // them all as below.
    if (iter_->Valid()) {
      iter_->Next();
    } else {
      iter_->SeekToFirst();
    }
    if (!iter_->Valid()) {
      valid_ = false;
      saved_key_.clear();
      return;
    }
  } else {
    const Slice current = ExtractUserKey(iter_->key());
    Copy(current, &saved_key_);
    iter_->Next();
  }
  FindNextUserEntry(true, &saved_key_);
}

void DBIter::Prev() {
  assert(valid_);
  if (direction_ == kForward) {
    // iter_ is on the current entry; back up past every entry of the
    // current user key.
    const Slice current = ExtractUserKey(iter_->key());
    Copy(current, &saved_key_);
    while (true) {
      iter_->Prev();
      if (!iter_->Valid()) {
        valid_ = false;
        saved_key_.clear();
        ClearSavedValue();
        return;
      }
      // Malformed keys are skipped (and reported by ParseKey).
      ParsedInternalKey ikey;
      if (ParseKey(&ikey) &&
          user_comparator_->Compare(ikey.user_key, Slice(saved_key_)) < 0) {
        break;
      }
    }
    direction_ = kReverse;
  }
  FindPrevUserEntry();
}

void DBIter::Seek(const Slice& target) {
  direction_ = kForward;
  ClearSavedValue();
  saved_key_.clear();
  AppendInternalKey(&saved_key_,
                    ParsedInternalKey(target, sequence_, kValueTypeForSeek));
  iter_->Seek(saved_key_);
  FindNextUserEntry(false, &saved_key_);
}

void DBIter::SeekToFirst() {
  direction_ = kForward;
  ClearSavedValue();
  iter_->SeekToFirst();
  FindNextUserEntry(false, &saved_key_);
}

void DBIter::SeekToLast() {
  direction_ = kReverse;
  ClearSavedValue();
  iter_->SeekToLast();
  FindPrevUserEntry();
}

}  // namespace

Iterator* NewDBIterator(const Comparator* user_comparator,
                        Iterator* internal_iter, SequenceNumber sequence) {
  return new DBIter(user_comparator, internal_iter, sequence);
}

}  // namespace leveldb
