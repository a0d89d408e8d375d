// The one rule that lets a flush or a compaction drop a version without
// asking any snapshot: a version is shadowed when a newer version of the
// same user key is already visible to every live snapshot (its sequence is
// at or below the smallest snapshot), so no reader can ever see the older
// one. Flush (WriteLevel0) and dentry compaction both apply it through
// this class; compaction adds its tombstone rule on top.
#ifndef DELSM_DB_SHADOWED_VERSIONS_H_
#define DELSM_DB_SHADOWED_VERSIONS_H_

#include <string>

#include "db/dbformat.h"
#include "leveldb/comparator.h"

namespace leveldb {

class ShadowedVersions {
 public:
  // `user_comparator` is not owned. `smallest_snapshot` is the oldest
  // sequence a live reader may use (the last sequence if none is held).
  ShadowedVersions(const Comparator* user_comparator,
                   SequenceNumber smallest_snapshot)
      : ucmp_(user_comparator), smallest_snapshot_(smallest_snapshot) {}

  // Feed every key of the merge in internal-key order (user key ascending,
  // then sequence descending), dropped ones included. True if `key` is
  // shadowed and needs no place in the output.
  bool Shadowed(const ParsedInternalKey& key) {
    first_of_user_key_ =
        !has_user_key_ || ucmp_->Compare(key.user_key, Slice(user_key_)) != 0;
    if (first_of_user_key_) {
      user_key_.assign(key.user_key.data(), key.user_key.size());
      has_user_key_ = true;
      newer_sequence_ = kMaxSequenceNumber;
    }
    const bool shadowed = newer_sequence_ <= smallest_snapshot_;
    newer_sequence_ = key.sequence;
    return shadowed;
  }

  // True if the key last given to Shadowed() was the first (newest) of its
  // user key.
  bool first_of_user_key() const { return first_of_user_key_; }

  SequenceNumber smallest_snapshot() const { return smallest_snapshot_; }

 private:
  const Comparator* const ucmp_;
  const SequenceNumber smallest_snapshot_;
  std::string user_key_;  // the user key being merged
  bool has_user_key_ = false;
  bool first_of_user_key_ = false;
  // Sequence of the previous (newer) version of user_key_, or
  // kMaxSequenceNumber at its first version.
  SequenceNumber newer_sequence_ = kMaxSequenceNumber;
};

}  // namespace leveldb

#endif  // DELSM_DB_SHADOWED_VERSIONS_H_
