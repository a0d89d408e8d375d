// The user-facing iterator of DB::NewIterator(), layered over an iterator of
// internal keys.
#ifndef DELSM_DB_DB_ITER_H_
#define DELSM_DB_DB_ITER_H_

#include "db/dbformat.h"
#include "leveldb/iterator.h"

namespace leveldb {

// Returns an iterator over the user keys of `internal_iter` (whose keys are
// internal keys in InternalKeyComparator(user_comparator) order) as of
// `sequence`: for each user key it yields the newest entry with a sequence
// <= `sequence`, and omits the key when that entry is a deletion. Entries
// newer than `sequence` are invisible. Takes ownership of `internal_iter`.
// An entry whose internal key cannot be parsed is skipped and reported as
// Corruption by status(). The iterator reads an entry's value when it
// lands on the entry; if the value cannot be read (or any internal
// iterator has failed) it becomes invalid with that error in status(), so
// value() never stands in an empty value for an unreadable one.
Iterator* NewDBIterator(const Comparator* user_comparator,
                        Iterator* internal_iter, SequenceNumber sequence);

}  // namespace leveldb

#endif  // DELSM_DB_DB_ITER_H_
