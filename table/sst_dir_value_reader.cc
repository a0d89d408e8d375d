// SstDir::ValueReader (table/sst_dir_value_reader.h).
#include "table/sst_dir_value_reader.h"

namespace leveldb {

Status SstDir::ValueReader::Load(size_t number, const MetaIndexEntry& e) {
  value_slice_ = Slice();
  if (e.storage == ValueStorage::kNone) return Status::OK();
  if (dir_->InlineInMemory(e.storage)) {
    Slice stored;
    Status s = dir_->ReadEntryInlineStored(number, e, 0, 0, &inline_buffer_,
                                           &inline_buffer_offset_, &stored);
    if (!s.ok()) return s;
    if (!StoredCompressed(e.storage) && stored.size() == e.value_size) {
      value_slice_ = stored;
      return Status::OK();
    }
    s = dir_->DecodeEntryInlineValue(number, e, stored, &value_);
    if (s.ok()) value_slice_ = value_;
    return s;
  }
  Status s = LoadFromFile(number, e);
  if (s.ok()) value_slice_ = value_;
  return s;
}

Status SstDir::ValueReader::LoadFromFile(size_t number,
                                         const MetaIndexEntry& e) {
  const int direction =
      last_loaded_ == entries_ ? 0 : (number > last_loaded_ ? 1 : -1);
  if (direction != 0 && (direction_ == 0 || direction == direction_)) {
    run_++;
  } else {
    run_ = 1;
  }
  direction_ = direction;
  last_loaded_ = number;
  const bool scan = run_ >= 2;

  if (!scan && dir_->LookupCachedEntry(e.internal_key, &value_)) {
    return Status::OK();
  }
  Status s;
  if (StoredInline(e.storage)) {
    const size_t ahead = scan ? dir_->options().read_ahead_bytes : 0;
    Slice stored;
    s = dir_->ReadEntryInlineStored(number, e, direction_, ahead,
                                    &inline_buffer_, &inline_buffer_offset_,
                                    &stored);
    if (s.ok()) s = dir_->DecodeEntryInlineValue(number, e, stored, &value_);
  } else if (scan && whole_index_ &&
             dir_->options().read_ahead_pool != nullptr &&
             dir_->options().read_ahead_files > 0) {
    if (prefetcher_ == nullptr) {
      prefetcher_.reset(new ValuePrefetcher(dir_, options_));
    }
    s = prefetcher_->Read(number, direction_, &value_);
  } else {
    s = dir_->ReadEntryValueUncached(options_, number, e, &value_, nullptr);
  }
  if (s.ok() && options_.fill_cache && !scan) {
    dir_->CacheEntry(e.internal_key, value_);
  }
  return s;
}

}  // namespace leveldb
