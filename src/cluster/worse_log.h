// WorseLog: each pair's runs that came out worse than its best (FigureMatrix::record's log of a
// link slow in some of its runs), compactly. A job of 10,000 ranks logs runs for millions of
// pairs, most of them one or a few each: a hash node and a vector per pair (about 90 bytes)
// made all-pairs at 10,000 ranks with 10 passes peak at 1,100 MiB. Here one open-addressed
// table of 16-byte slots holds each pair with its first run, and a pair's later runs go three
// at a time into 16-byte blocks of one arena, chained from the newest: no allocation per pair.
// The table is at most three quarters full (the log's 2 million pairs a test fit 4 million
// slots, 64 MiB, where half full took 8 million and 128 MiB, and its growth held both), and
// the arena grows by chunks of kChunkBlocks, never copied (a vector's doubling held the old
// blocks and the new together, and up to twice the blocks in use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace fabperf::cluster {

class WorseLog {
 public:
  // Pairs with at least one run.
  size_t pairs() const { return used_; }
  bool contains(uint64_t key) const { return find(key) != nullptr; }
  // Adds a run to the key's (at most kMaxRuns a key: later ones are dropped); a new key is
  // added. Keys are below kMaxKey.
  void add(uint64_t key, float value);
  // How many runs the key has (0: none).
  uint32_t count(uint64_t key) const;
  // Each of the key's runs as fn(value), in no particular order.
  template <typename Fn>
  void for_each(uint64_t key, Fn fn) const;
  // Bytes held (the table and the arena).
  size_t bytes() const;

  static constexpr uint32_t kMaxRuns = 255;
  static constexpr uint64_t kMaxKey = (uint64_t{1} << 56) - 1;

 private:
  // tag: 0 when empty, else key + 1 in the low 56 bits and the run count in the high 8.
  struct Slot {
    uint64_t tag = 0;
    float first = 0;
    uint32_t tail = 0;  // 0: no block; else 1 + the index of the key's newest block
  };
  static constexpr uint32_t kPerBlock = 3;
  struct Block {
    float runs[kPerBlock];
    uint32_t prev;  // as Slot::tail: the block before this one
  };
  static constexpr uint32_t kChunkBlocks = 4096;  // 64 KiB
  Block& block(uint32_t index) { return chunks_[index / kChunkBlocks][index % kChunkBlocks]; }
  const Block& block(uint32_t index) const {
    return chunks_[index / kChunkBlocks][index % kChunkBlocks];
  }
  static uint64_t key_of(uint64_t tag) { return (tag & kMaxKey) - 1; }
  static uint32_t count_of(uint64_t tag) { return static_cast<uint32_t>(tag >> 56); }
  const Slot* find(uint64_t key) const;
  void grow();
  size_t at(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<Slot> slots_;
  int shift_ = 64;
  size_t used_ = 0;
  std::vector<std::unique_ptr<Block[]>> chunks_;
  uint32_t blocks_ = 0;  // blocks in use
};

template <typename Fn>
void WorseLog::for_each(uint64_t key, Fn fn) const {
  const Slot* slot = find(key);
  if (slot == nullptr) return;
  const uint32_t count = count_of(slot->tag);
  fn(slot->first);
  // Runs 2..count fill blocks of kPerBlock from the oldest; the newest may be part full.
  uint32_t in_block = count > 1 ? (count - 2) % kPerBlock + 1 : 0;
  for (uint32_t b = slot->tail; b != 0; b = block(b - 1).prev, in_block = kPerBlock) {
    const Block& runs = block(b - 1);
    for (uint32_t i = 0; i < in_block; ++i) fn(runs.runs[i]);
  }
}

}  // namespace fabperf::cluster
