#include "leveldb/status.h"

#include <utility>

#include "gtest/gtest.h"

namespace leveldb {

TEST(StatusTest, ToStringPrefixes) {
  EXPECT_EQ("OK", Status::OK().ToString());
  EXPECT_EQ("NotFound: a", Status::NotFound("a").ToString());
  EXPECT_EQ("Corruption: a: b", Status::Corruption("a", "b").ToString());
  EXPECT_EQ("Not implemented: x", Status::NotSupported("x").ToString());
  EXPECT_EQ("Invalid argument: y", Status::InvalidArgument("y").ToString());
  EXPECT_EQ("IO error: /p: No such file",
            Status::IOError("/p", "No such file").ToString());
  // An empty second message adds no separator.
  EXPECT_EQ("NotFound: a", Status::NotFound("a", "").ToString());
}

TEST(StatusTest, Predicates) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_TRUE(Status::NotFound("a").IsNotFound());
  EXPECT_TRUE(Status::Corruption("a").IsCorruption());
  EXPECT_TRUE(Status::NotSupported("a").IsNotSupportedError());
  EXPECT_TRUE(Status::InvalidArgument("a").IsInvalidArgument());
  EXPECT_TRUE(Status::IOError("a").IsIOError());
  EXPECT_FALSE(Status::IOError("a").ok());
}

TEST(StatusTest, CopyAndMoveKeepMessage) {
  std::string msg("bin\0ary", 7);
  Status s = Status::Corruption(msg);
  Status copy(s);
  EXPECT_EQ(s.ToString(), copy.ToString());
  EXPECT_EQ("Corruption: " + msg, copy.ToString());
  Status assigned;
  assigned = copy;
  EXPECT_EQ(s.ToString(), assigned.ToString());
  assigned = assigned;  // Self-assignment is harmless.
  EXPECT_EQ(s.ToString(), assigned.ToString());
  Status moved = std::move(copy);
  EXPECT_EQ(s.ToString(), moved.ToString());
  Status ok;
  moved = ok;
  EXPECT_TRUE(moved.ok());
}

}  // namespace leveldb
