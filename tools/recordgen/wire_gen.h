// The wire half of record_gen: hw/host_if/messages.yaml (the wire protocol's enums,
// pieces and messages) -> the message structs and dispatch (wire_messages.h), the codec
// (wire_codec.cpp) and the message table of docs/host_driver.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recordgen {

// What the messages need of a host record of records.yaml.
struct RecordInfo {
  size_t wire_bytes = 0;
  bool scalar_only = true;  // only such a record may travel in a list
};

struct EnumValue {
  std::string name, doc;
  uint64_t value = 0;
};
struct Enum {
  std::string name, doc;
  std::vector<EnumValue> values;  // contiguous, ascending
};

struct Piece;
struct WireField {
  std::string name, type, doc, default_value;
  std::vector<std::string> bits;  // flags
  const Enum* enumeration = nullptr;
  // list:
  std::string of, limit;
  const Piece* piece = nullptr;  // a list of pieces; else of host records
  size_t record_bytes = 0;       // a list of host records: each one's bytes
};
struct Piece {
  std::string name, doc;
  std::vector<WireField> fields;
};
struct Message {
  std::string name, wire_name, enumerator, doc, reply, check;
  bool to_server = true;
  uint32_t type = 0, minor = 0;
  std::vector<WireField> fields;
};
struct WireSchema {
  std::vector<Enum> enums;
  std::vector<Piece> pieces;
  std::vector<Message> messages;  // in type order
};

// The banner of every file recordgen writes, as comment lines starting with `comment`.
std::string generated_by(const std::string& source, const char* comment);

// Throws ipusim::gen::SourceError ("FILE:LINE: KEY: problem") for a bad source.
WireSchema parse_wire(const std::string& path, const std::map<std::string, RecordInfo>& records);

std::string wire_header(const WireSchema& s, const std::string& source);
std::string wire_codec(const WireSchema& s, const std::string& source);
// The docs page at `path` with its message table (between the markers) regenerated.
std::string wire_doc(const WireSchema& s, const std::string& source, const std::string& path);

}  // namespace recordgen
