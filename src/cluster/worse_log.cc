// WorseLog: a pair's worse runs in one open-addressed table and an arena (cluster/worse_log.h).
#include "cluster/worse_log.h"

#include <cassert>

namespace fabperf::cluster {

const WorseLog::Slot* WorseLog::find(uint64_t key) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = at(key);; i = (i + 1) & mask) {
    if (slots_[i].tag == 0) return nullptr;
    if (key_of(slots_[i].tag) == key) return &slots_[i];
  }
}

// At most three quarters full (add()): a probe ends within a few slots, most in one or two
// cache lines of four slots.
void WorseLog::grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t size = old.empty() ? 1024 : old.size() * 2;
  slots_.assign(size, Slot{});
  shift_ = 64;
  for (size_t s = size; s > 1; s >>= 1) --shift_;
  const size_t mask = size - 1;
  for (const Slot& slot : old) {
    if (slot.tag == 0) continue;
    size_t i = at(key_of(slot.tag));
    while (slots_[i].tag != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

void WorseLog::add(uint64_t key, float value) {
  assert(key < kMaxKey);
  if (4 * (used_ + 1) > 3 * slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = at(key);
  while (slots_[i].tag != 0 && key_of(slots_[i].tag) != key) i = (i + 1) & mask;
  Slot& slot = slots_[i];
  if (slot.tag == 0) {
    slot.tag = (key + 1) | (uint64_t{1} << 56);
    slot.first = value;
    ++used_;
    return;
  }
  const uint32_t count = count_of(slot.tag);
  if (count >= kMaxRuns) return;
  // Run number count + 1; runs 2.. go kPerBlock to a block.
  const uint32_t in_block = (count - 1) % kPerBlock;
  if (in_block == 0) {
    if (blocks_ % kChunkBlocks == 0) chunks_.push_back(std::make_unique<Block[]>(kChunkBlocks));
    block(blocks_) = Block{{0, 0, 0}, slot.tail};
    slot.tail = ++blocks_;
  }
  block(slot.tail - 1).runs[in_block] = value;
  slot.tag = (slot.tag & kMaxKey) | (uint64_t{count + 1} << 56);
}

uint32_t WorseLog::count(uint64_t key) const {
  const Slot* slot = find(key);
  return slot == nullptr ? 0 : count_of(slot->tag);
}

size_t WorseLog::bytes() const {
  return slots_.capacity() * sizeof(Slot) + chunks_.size() * kChunkBlocks * sizeof(Block) +
         chunks_.capacity() * sizeof(chunks_[0]);
}

}  // namespace fabperf::cluster
