#include "tools/tool_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace delsm_tool {

namespace {

uint64_t NowMicros() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

bool IsNumber(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.';
  });
}

}  // namespace

std::string Args::Get(const std::string& name, const std::string& dflt) const {
  auto it = flags.find(name);
  return it == flags.end() ? dflt : it->second;
}

leveldb::Status ParseArgs(int argc, char** argv,
                          const std::set<std::string>& bool_flags,
                          const std::set<std::string>& value_flags,
                          Args* args) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
      args->positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const size_t eq = name.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (bool_flags.count(name) != 0) {
      if (has_value) {
        return leveldb::Status::InvalidArgument("--" + name, "takes no value");
      }
      args->flags[name] = "1";
    } else if (value_flags.count(name) != 0) {
      if (!has_value) {
        if (i + 1 >= argc) {
          return leveldb::Status::InvalidArgument("--" + name, "needs a value");
        }
        value = argv[++i];
      }
      args->flags[name] = value;
    } else {
      return leveldb::Status::InvalidArgument("unknown flag", a);
    }
  }
  return leveldb::Status::OK();
}

std::string Printable(const leveldb::Slice& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string Hex(const leveldb::Slice& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char c = bytes[i];
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

bool FromHex(const std::string& hex, std::string* bytes) {
  if (hex.size() % 2 != 0) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  bytes->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    bytes->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) std::fputc(',', stdout);
    first_.back() = false;
  }
}

void JsonWriter::BeginObject() {
  BeforeValue();
  std::fputc('{', stdout);
  first_.push_back(true);
}

void JsonWriter::EndObject() {
  first_.pop_back();
  std::fputc('}', stdout);
}

void JsonWriter::BeginArray() {
  BeforeValue();
  std::fputc('[', stdout);
  first_.push_back(true);
}

void JsonWriter::EndArray() {
  first_.pop_back();
  std::fputc(']', stdout);
}

void JsonWriter::Key(const std::string& key) {
  String(key);
  std::fputc(':', stdout);
  after_key_ = true;
}

void JsonWriter::String(const leveldb::Slice& s) {
  BeforeValue();
  std::fputc('"', stdout);
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      std::fputc('\\', stdout);
      std::fputc(c, stdout);
    } else if (c >= 0x20 && c < 0x7f) {
      std::fputc(c, stdout);
    } else {
      std::fprintf(stdout, "\\u%04x", c);
    }
  }
  std::fputc('"', stdout);
}

void JsonWriter::Number(uint64_t n) {
  BeforeValue();
  std::fprintf(stdout, "%llu", static_cast<unsigned long long>(n));
}

void JsonWriter::Bool(bool b) {
  BeforeValue();
  std::fputs(b ? "true" : "false", stdout);
}

void JsonWriter::Field(const std::string& key, const leveldb::Slice& s) {
  Key(key);
  String(s);
}

void JsonWriter::Field(const std::string& key, uint64_t n) {
  Key(key);
  Number(n);
}

void JsonWriter::Field(const std::string& key, bool b) {
  Key(key);
  Bool(b);
}

void JsonWriter::Finish() { std::fputc('\n', stdout); }

Table::Table(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void Table::AddRow(std::vector<std::string> row) {
  rows_.push_back(std::move(row));
}

void Table::Print() const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += IsNumber(row[c]) ? pad + row[c] : row[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

Progress::Progress(const std::string& what, uint64_t total, bool enabled)
    : what_(what),
      total_(total),
      enabled_(enabled),
      start_micros_(NowMicros()),
      last_micros_(start_micros_) {}

Progress::~Progress() {
  if (printed_) std::fputc('\n', stderr);
}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  const uint64_t now = NowMicros();
  if (now - start_micros_ < 1000000 || now - last_micros_ < 1000000) return;
  last_micros_ = now;
  const double elapsed = (now - start_micros_) / 1e6;
  if (total_ == 0) {  // total unknown: no "of N", no estimate
    std::fprintf(stderr, "%s%s: %llu, %.0f s elapsed",
                 isatty(STDERR_FILENO) ? "\r" : "", what_.c_str(),
                 static_cast<unsigned long long>(done), elapsed);
  } else {
    const double eta = done > 0 ? elapsed * (total_ - done) / done : 0;
    std::fprintf(stderr, "%s%s: %llu of %llu, %.0f s elapsed, ~%.0f s left",
                 isatty(STDERR_FILENO) ? "\r" : "", what_.c_str(),
                 static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total_), elapsed, eta);
  }
  if (!isatty(STDERR_FILENO)) std::fputc('\n', stderr);
  printed_ = isatty(STDERR_FILENO);
}

std::string Number(uint64_t n) { return std::to_string(n); }

}  // namespace delsm_tool
