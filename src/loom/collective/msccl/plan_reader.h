// Readers for custom-collective files into one Plan (plan.h).
//
//   MSCCL++ JSON execution plan, current schema (snake_case: input_chunks, src_buff, ...,
//     channels by channel_type/connected_to, remote buffers by buffer_id) and legacy schema
//     (<= v0.7: camelCase inputChunks, srcbuff/srcoff, srcs/dsts, i_cids/o_cids with
//     i_buff/o_buff, ctype sm/proxy, cnt, the "colletive" spelling). The schema is recognised
//     by its keys (a gpu with "inputChunks" is legacy).
//   MSCCL XML algorithm: <algo name proto nchannels nchunksperloop ngpus coll inplace>,
//     <gpu id i_chunks o_chunks s_chunks>, <tb id send recv chan>, <step s type srcbuf srcoff
//     dstbuf dstoff cnt depid deps hasdep>.
//
// Channel and remote-buffer indices in ops are indices into the thread block's own lists
// (threadblocks[].channels / remote_buffer_refs, legacy channels[].cids), which name entries of
// the gpu's lists, as the MSCCL++ executor resolves them.
//
// Every mistake is a UserError naming the file and the JSON path or the XML line and element,
// what was wrong and what was expected: malformed text, a missing field, an unknown or
// unsupported op, a peer out of range, a chunk range outside its buffer, unequal range sizes,
// an XML dependency on a missing step. Cost O(file size).
#pragma once

#include <string>
#include <string_view>

#include "loom/collective/msccl/plan.h"

namespace loom::collective::msccl {

// Reads `path`, recognising the format by its first non-blank character ('<' XML, '{' JSON).
// An unreadable file is a UserError naming it.
Plan read_plan_file(const std::string& path);

// The same for text already in memory; `source` names it in messages.
Plan parse_plan(std::string_view text, std::string_view source);
Plan parse_mscclpp_json(std::string_view text, std::string_view source);
Plan parse_msccl_xml(std::string_view text, std::string_view source);

}  // namespace loom::collective::msccl
