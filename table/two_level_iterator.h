// Iteration over a two-level structure: an index iterator whose values each
// name a nested sequence (a block, an SST directory, ...) that a caller
// function opens as an iterator.
#ifndef DELSM_TABLE_TWO_LEVEL_ITERATOR_H_
#define DELSM_TABLE_TWO_LEVEL_ITERATOR_H_

#include "leveldb/iterator.h"
#include "leveldb/options.h"

namespace leveldb {

// Opens the iterator for one index entry. Must not return null (return an
// error iterator instead).
typedef Iterator* (*BlockFunction)(void* arg, const ReadOptions& options,
                                   const Slice& index_value);

// Returns an iterator over the concatenation of the nested sequences named by
// the values of `index_iter`, in index order. Keys of the nested sequences
// must be sorted across sequences as the index is. Takes ownership of
// `index_iter`; `arg` is passed to `block_function` and must outlive the
// result. A nested iterator is reopened only when the index moves to a
// different value. status() reports errors of the index, the current nested
// iterator, or any nested iterator already left behind. The index's status
// is read when the index moves (once per nested sequence, not on every
// status()), so `index_iter`'s status must change only when it moves or its
// value is read, as every iterator's here does.
Iterator* NewTwoLevelIterator(Iterator* index_iter,
                              BlockFunction block_function, void* arg,
                              const ReadOptions& options);

}  // namespace leveldb

#endif  // DELSM_TABLE_TWO_LEVEL_ITERATOR_H_
