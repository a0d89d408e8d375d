// Small text helpers for log messages, file names and property strings.
#ifndef DELSM_UTIL_LOGGING_H_
#define DELSM_UTIL_LOGGING_H_

#include <cstdint>
#include <string>

#include "leveldb/slice.h"

namespace leveldb {

// Appends the decimal form of num to *str.
void AppendNumberTo(std::string* str, uint64_t num);

// Appends value to *str with every byte outside printable ASCII written as
// \xNN, so arbitrary keys can go into logs safely.
void AppendEscapedStringTo(std::string* str, const Slice& value);

std::string NumberToString(uint64_t num);
std::string EscapeString(const Slice& value);

// Parses a leading run of decimal digits from *in into *val and removes
// them from *in. Returns false (and leaves *in unspecified) if there is no
// digit or the number does not fit in 64 bits.
bool ConsumeDecimalNumber(Slice* in, uint64_t* val);

}  // namespace leveldb

#endif  // DELSM_UTIL_LOGGING_H_
