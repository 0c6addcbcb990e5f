// The byte framing of a Chakra execution-trace file (`<prefix>.<rank>.et`): a varint32 length
// then that many bytes of a protobuf message, repeated until the end of the file. The first
// record is the GlobalMetadata, every later one a Node. There is no magic number. A zero-length
// record ends the stream (anything after it is ignored). Files that start with the gzip magic
// bytes 1f 8b are decompressed first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loom::workload::chakra {

// The file's bytes, gunzipped if it is gzip. UserError naming `path` if it cannot be read or is a
// corrupt gzip stream.
std::string read_et_bytes(const std::string& path);

// The records of `bytes`, as views into it, in order. UserError naming `path`, the record index
// and its byte offset when a length prefix is malformed (more than 5 bytes, or over 2^31) or
// a record runs past the end of the data. O(size).
std::vector<std::string_view> split_records(std::string_view bytes, std::string_view path);

// Appends one record (varint32 length, then `message`) to `out`.
void append_record(std::string& out, std::string_view message);

}  // namespace loom::workload::chakra
