// KV file names: the reversible mapping between a (user key, sequence)
// entry and the name of the KV file holding its value.
//
// A name is  <escaped key> '@' <sequence in 14 lowercase hex digits>.
// Escaping keeps printable ASCII except '%', '/', '@' as is (so printable
// keys stay readable in a directory listing) and writes every other byte as
// '%' and two uppercase hex digits. The '@' suffix means a name is never
// empty, ".", "..", and never holds '/' or NUL. A key whose escaped form
// would make the name longer than 255 bytes is named
// '#' <hex of a 128-bit hash of the key> ... '@' <sequence>; its full bytes
// live in the meta file and in the directory's LONGKEYS file. Names are
// hashed from 240 escaped bytes on (not 241): KvStoredFileName may add a
// 'z', and the stored name must stay within kMaxKvFileNameLength too.
#ifndef DELSM_TABLE_KEY_CODEC_H_
#define DELSM_TABLE_KEY_CODEC_H_

#include <cstdint>
#include <string>

#include "leveldb/slice.h"

namespace leveldb {

constexpr size_t kMaxKvFileNameLength = 255;

// The KV file name of the entry (user_key, sequence).
std::string KvFileName(const Slice& user_key, uint64_t sequence);

// True if KvFileName(user_key, ...) is hash-based (the key is too long).
bool KvFileNameIsHashed(const Slice& user_key);

// Parse a name made by KvFileName. For a readable (non-hashed) name sets
// *user_key and *hashed=false; for a hashed one sets *hashed=true and leaves
// *user_key empty. Returns false for names KvFileName never makes (e.g.
// "META", "LONGKEYS", temporary files).
bool ParseKvFileName(const Slice& name, std::string* user_key,
                     uint64_t* sequence, bool* hashed);

// The name of the KV file of an entry as stored: KvFileName, plus a 'z' when
// the file holds snappy-compressed bytes; never longer than
// kMaxKvFileNameLength. KvFileName itself is at most one byte shorter
// (so that the directory listing alone tells how to read a file; RepairDB
// relies on it).
std::string KvStoredFileName(const Slice& user_key, uint64_t sequence,
                             bool compressed);

// Parse a name made by KvStoredFileName (see ParseKvFileName).
bool ParseKvStoredFileName(const Slice& name, std::string* user_key,
                           uint64_t* sequence, bool* hashed, bool* compressed);

}  // namespace leveldb

#endif  // DELSM_TABLE_KEY_CODEC_H_
