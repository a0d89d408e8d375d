// A merged view of several sorted iterators.
#ifndef DELSM_TABLE_MERGING_ITERATOR_H_
#define DELSM_TABLE_MERGING_ITERATOR_H_

namespace leveldb {

class Comparator;
class Iterator;

// Returns an iterator yielding the union of the entries of children[0..n-1]
// in `comparator` order; keys present in several children are yielded once
// per child (no de-duplication). Takes ownership of the children, not of the
// array. Entries with equal keys in different children come in child index
// order going forward and in the reverse order going backward (each child is
// assumed to hold distinct keys). status() is the first error of any child.
Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n);

}  // namespace leveldb

#endif  // DELSM_TABLE_MERGING_ITERATOR_H_
