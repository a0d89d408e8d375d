// log::Reader reports two different things through Reporter::Corruption:
// damage (a Corruption status: a bad checksum or length, a broken fragment
// sequence), which it skipped before reading on, and a failed read (any
// other status: EIO, ...), after which it stops. A failed read is not
// damage: the file may be whole, and nothing is known of the records past
// it, so a reader that skips damage must still fail on it rather than
// answer from the records before it.
//
// ReadErrorReporter tells the two apart once, for every such reader: damage
// goes to Damaged() (which by default does nothing: the reader reads on
// past it), and the first failed read is kept in read_error(), which the
// caller checks once ReadRecord returns false (or after each record, to
// stop at once).
#ifndef DELSM_DB_LOG_READ_ERROR_H_
#define DELSM_DB_LOG_READ_ERROR_H_

#include <cstddef>

#include "db/log_reader.h"
#include "leveldb/status.h"

namespace leveldb {
namespace log {

class ReadErrorReporter : public Reader::Reporter {
 public:
  void Corruption(size_t bytes, const Status& status) final {
    if (status.IsCorruption()) {
      Damaged(bytes, status);
      return;
    }
    ReadFailed(status);
    if (read_error_.ok()) read_error_ = status;
  }

  // The first failed read reported, or OK if every read succeeded.
  const Status& read_error() const { return read_error_; }

 protected:
  // `bytes` bytes of the log were skipped because of damage (`status` is a
  // Corruption).
  virtual void Damaged(size_t bytes, const Status& status) {}
  // A read failed with `status` (called for each; the first is kept).
  virtual void ReadFailed(const Status& status) {}

 private:
  Status read_error_;
};

}  // namespace log
}  // namespace leveldb

#endif  // DELSM_DB_LOG_READ_ERROR_H_
