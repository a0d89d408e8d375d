// Something that belongs to one memory Env (NewMemEnv) and lives exactly
// as long as it: how a database whose Env is a memory Env gets a memory
// FileSystem of its own for its SST directories (fs/mem_file_system.h),
// shared by every database and tool using that Env instance and by no
// other. util/ cannot know FileSystem (it is a layer above), hence this
// type-erased slot.
#ifndef DELSM_UTIL_MEMENV_ATTACHMENT_H_
#define DELSM_UTIL_MEMENV_ATTACHMENT_H_

namespace leveldb {

class Env;

class MemEnvAttachment {
 public:
  virtual ~MemEnvAttachment() = default;
};

// If `env` is a memory Env, or an EnvWrapper whose target is one (through
// any number of wrappers), returns the attachment of that memory Env,
// calling `make` to create it on the first call (`make`'s result is owned
// by the Env from then on and deleted with it). Returns null for any other
// Env. Thread-safe; every call for one memory Env returns the same object,
// so all callers must pass the same `make`.
MemEnvAttachment* MemEnvAttachmentOf(Env* env, MemEnvAttachment* (*make)());

}  // namespace leveldb

#endif  // DELSM_UTIL_MEMENV_ATTACHMENT_H_
