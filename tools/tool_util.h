// Small pieces every `delsm` subcommand shares: its command line, the
// printable and hex forms of keys and values, JSON and table output, and
// progress reports for long walks.
#ifndef DELSM_TOOLS_TOOL_UTIL_H_
#define DELSM_TOOLS_TOOL_UTIL_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace delsm_tool {

// A subcommand's arguments: positionals in order, and --name or
// --name=value flags (a flag named in `value_flags` takes the next argument
// when written without '='). Parse returns InvalidArgument naming an
// unknown flag, or a value flag without its value.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;

  bool Has(const std::string& name) const { return flags.count(name) != 0; }
  std::string Get(const std::string& name, const std::string& dflt = "") const;
};
leveldb::Status ParseArgs(int argc, char** argv,
                          const std::set<std::string>& bool_flags,
                          const std::set<std::string>& value_flags, Args* args);

// Bytes as text: printable ASCII as is except '\', others as \xNN.
std::string Printable(const leveldb::Slice& bytes);
// Lowercase hex, two digits per byte.
std::string Hex(const leveldb::Slice& bytes);
// Decodes hex (either case, even length); false on anything else.
bool FromHex(const std::string& hex, std::string* bytes);

// Writes JSON to stdout with correct commas and escaping: strings are
// emitted byte for byte where valid printable ASCII, \u00XX otherwise, so
// the output is ASCII whatever the keys hold.
class JsonWriter {
 public:
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(const std::string& key);  // inside an object, before a value
  void String(const leveldb::Slice& s);
  void Number(uint64_t n);
  void Bool(bool b);
  // Key(key) then the value: one member of the object being written. The
  // const char* overload keeps a string literal from converting to bool.
  void Field(const std::string& key, const leveldb::Slice& s);
  void Field(const std::string& key, const char* s) {
    Field(key, leveldb::Slice(s));
  }
  void Field(const std::string& key, uint64_t n);
  void Field(const std::string& key, bool b);
  // Ends the document with a newline.
  void Finish();

 private:
  void BeforeValue();
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// A text table: a header row, then rows; columns are padded to their widest
// cell, numbers (cells that are all digits) right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void AddRow(std::vector<std::string> row);
  void Print() const;  // to stdout

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Reports the progress of a long walk to stderr, at most once a second and
// only after the first second (short walks stay quiet). Disabled when
// `enabled` is false (--quiet). A `total` of 0 means not known in advance:
// only the count done so far is shown.
class Progress {
 public:
  Progress(const std::string& what, uint64_t total, bool enabled);
  ~Progress();  // ends the line if anything was printed
  void Update(uint64_t done);

 private:
  const std::string what_;
  const uint64_t total_;
  const bool enabled_;
  const uint64_t start_micros_;
  uint64_t last_micros_;
  bool printed_ = false;
};

std::string Number(uint64_t n);

}  // namespace delsm_tool

#endif  // DELSM_TOOLS_TOOL_UTIL_H_
