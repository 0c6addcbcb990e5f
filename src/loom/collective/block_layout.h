// How a collective's buffer is cut into blocks and pieces, and how many bytes each carries.
//
// Blocks: `size` is split into block_count contiguous blocks as evenly as possible; the
// remainder r = size % count goes one byte each to the first r blocks, so block b has
// size/count + (b < r) bytes. Numbering:
//   all-reduce, all-gather, reduce-scatter, gather, scatter, barrier: b = 0..n-1 (the b-th
//     slice of the buffer; barrier blocks have 0 bytes);
//   broadcast, reduce: one block, the whole buffer;
//   all-to-all: src*n + dst is the piece member src sends member dst, with the bytes of slice
//     dst; all-to-all-v: the same ids, with pair_bytes[src*n + dst] bytes.
// Pieces: each block is split the same way into pieces = channels * chunks pieces; piece
// c*chunks + k is pipeline chunk k of channel c. Pieces and blocks of zero bytes (size small)
// still produce transfers, so the step structure (and its latency) is the same for any size.
#pragma once

#include <cstdint>

#include "loom/collective/collective.h"

namespace loom::collective {

// Number of distinct blocks of `op` on n members (see above).
std::uint64_t block_count(CollectiveOp op, std::uint32_t n);
// Bytes of slice `index` (< count) when `size` is split into `count` slices.
Bytes slice_bytes(Bytes size, std::uint64_t count, std::uint64_t index);
// Bytes of block `block` of `spec`. Requires block < block_count.
Bytes block_bytes(const CollectiveSpec& spec, std::uint32_t block);
// channels * chunks.
std::uint32_t pieces(const CollectiveSpec& spec);
// Bytes of piece `piece` of blocks [block, block + blocks): O(1) (all-to-all-v: O(blocks)).
Bytes range_bytes(const CollectiveSpec& spec, std::uint32_t block, std::uint32_t blocks, std::uint32_t piece);

}  // namespace loom::collective

namespace loom::collective {

// Sets t.bytes, t.wire_bytes and t.hop_latency from its blocks, piece, protocol and the link
// class between its members (spec.layout, spec.protocol_costs).
void price_transfer(const CollectiveSpec& spec, Transfer& t);

}  // namespace loom::collective
