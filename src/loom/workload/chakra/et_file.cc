#include "loom/workload/chakra/et_file.h"

#include <cstdint>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "loom/core/error.h"

namespace loom::workload::chakra {
namespace {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& compressed, const std::string& path) {
  google::protobuf::io::ArrayInputStream raw(compressed.data(), static_cast<int>(compressed.size()));
  google::protobuf::io::GzipInputStream gzip(&raw, google::protobuf::io::GzipInputStream::GZIP);
  std::string out;
  const void* data = nullptr;
  int size = 0;
  while (gzip.Next(&data, &size)) out.append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  if (gzip.ZlibErrorCode() < 0) {
    throw UserError(fmt::format("{}: corrupt gzip data ({}), expected a gzip-compressed Chakra trace", path,
                                gzip.ZlibErrorMessage() ? gzip.ZlibErrorMessage() : "zlib error"));
  }
  return out;
}

}  // namespace

std::string read_et_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open the Chakra trace file", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(fmt::format("{}: error while reading the Chakra trace file", path));
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

std::vector<std::string_view> split_records(std::string_view bytes, std::string_view path) {
  std::vector<std::string_view> records;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t start = pos;
    std::uint64_t length = 0;
    int shift = 0;
    while (true) {
      if (pos >= bytes.size()) {
        throw UserError(fmt::format("{}: record {} at byte {}: the length prefix is cut off by the end of the file",
                                    path, records.size(), start));
      }
      const auto byte = static_cast<unsigned char>(bytes[pos++]);
      length |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
      if (shift >= 35) {
        throw UserError(fmt::format("{}: record {} at byte {}: malformed length prefix (over 5 bytes); "
                                    "expected a varint32-delimited Chakra trace",
                                    path, records.size(), start));
      }
    }
    if (length == 0) break;
    if (length > 0x7fffffffu || length > bytes.size() - pos) {
      throw UserError(fmt::format("{}: record {} at byte {} claims {} bytes but only {} remain; the file is "
                                  "truncated or not a Chakra trace",
                                  path, records.size(), start, length, bytes.size() - pos));
    }
    records.push_back(bytes.substr(pos, length));
    pos += length;
  }
  return records;
}

void append_record(std::string& out, std::string_view message) {
  std::uint64_t length = message.size();
  while (length >= 0x80) {
    out.push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  out.push_back(static_cast<char>(length));
  out.append(message);
}

}  // namespace loom::workload::chakra
