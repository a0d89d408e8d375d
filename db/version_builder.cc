#include "db/version_builder.h"

#include <algorithm>
#include <cassert>

#include "db/version.h"
#include "db/version_set.h"
#include "util/logging.h"

namespace leveldb {

bool VersionSetBuilder::BySmallestKey::operator()(const FileMetaData* a,
                                                  const FileMetaData* b) const {
  int r = icmp->Compare(a->smallest, b->smallest);
  if (r != 0) return r < 0;
  return a->number < b->number;
}

VersionSetBuilder::VersionSetBuilder(VersionSet* vset, Version* base)
    : vset_(vset), base_(base) {
  base_->Ref();
  BySmallestKey order;
  order.icmp = vset_->icmp_;
  for (LevelChanges& changes : levels_) changes.added = new DirSet(order);
}

VersionSetBuilder::~VersionSetBuilder() {
  for (LevelChanges& changes : levels_) {
    // Collect first: deleting while the set still orders by these entries
    // would have the set compare freed memory.
    std::vector<FileMetaData*> owned(changes.added->begin(),
                                     changes.added->end());
    delete changes.added;
    for (FileMetaData* f : owned) {
      if (--f->refs <= 0) delete f;
    }
  }
  base_->Unref();
}

void VersionSetBuilder::Apply(const VersionEdit* edit) {
  for (const auto& cp : edit->compact_pointers()) {
    vset_->compact_pointer_[cp.first] = cp.second.Encode().ToString();
  }
  for (const auto& removed : edit->deleted_files()) {
    levels_[removed.first].removed.insert(removed.second);
  }
  for (const auto& added : edit->new_files()) {
    const int level = added.first;
    FileMetaData* f = new FileMetaData(added.second);
    f->refs = 1;
    // A fruitless probe of a directory costs a Bloom-filter check and
    // perhaps a binary search of its meta entries; compacting it costs about
    // one link() per entry. Allow roughly one wasted probe per entry before
    // the directory is worth compacting, and never fewer than 100.
    f->allowed_seeks = static_cast<int>(
        std::min<uint64_t>(std::max<uint64_t>(f->entries, 100), 1u << 30));
    levels_[level].removed.erase(f->number);
    if (!levels_[level].added->insert(f).second) {
      delete f;  // the same directory added twice: keep the first record
    }
  }
}

Status VersionSetBuilder::SaveTo(Version* v) {
  const InternalKeyComparator& icmp = *vset_->icmp_;
  BySmallestKey order;
  order.icmp = &icmp;
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::vector<FileMetaData*>& base = base_->files_[level];
    const DirSet& added = *levels_[level].added;
    std::vector<FileMetaData*> merged;
    merged.reserve(base.size() + added.size());
    std::merge(base.begin(), base.end(), added.begin(), added.end(),
               std::back_inserter(merged), order);

    std::vector<FileMetaData*>* out = &v->files_[level];
    for (FileMetaData* f : merged) {
      if (levels_[level].removed.count(f->number) != 0) continue;
      if (level > 0 && !out->empty() &&
          icmp.Compare(out->back()->largest, f->smallest) >= 0) {
        std::string msg = "SST directories ";
        AppendNumberTo(&msg, out->back()->number);
        msg.append(" and ");
        AppendNumberTo(&msg, f->number);
        msg.append(" overlap at level ");
        AppendNumberTo(&msg, level);
        return Status::Corruption(msg);
      }
      f->refs++;
      out->push_back(f);
    }
  }
  return Status::OK();
}

}  // namespace leveldb
