#include "debug/rsp_packet.h"

namespace ipusim::debug::rsp {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool reserved(char c) { return c == '$' || c == '#' || c == '}' || c == '*'; }

}  // namespace

uint8_t checksum(std::string_view data) {
  uint8_t sum = 0;
  for (char c : data) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

std::string escape(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (char c : data) {
    if (reserved(c)) {
      out += '}';
      out += static_cast<char>(c ^ 0x20);
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> decode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '}') {
      if (++i == raw.size()) return std::nullopt;
      out += static_cast<char>(raw[i] ^ 0x20);
    } else if (c == '*') {
      // gdb never sends counts that would make '#' or '$' (n + 29 in 3..97 printable).
      if (out.empty() || ++i == raw.size()) return std::nullopt;
      int n = static_cast<uint8_t>(raw[i]) - 29;
      if (n < 3) return std::nullopt;
      out.append(static_cast<size_t>(n), out.back());
    } else {
      out += c;
    }
  }
  return out;
}

std::string frame(std::string_view payload) {
  std::string body = escape(payload);
  uint8_t sum = checksum(body);
  std::string out;
  out.reserve(body.size() + 4);
  out += '$';
  out += body;
  out += '#';
  out += kDigits[sum >> 4];
  out += kDigits[sum & 15];
  return out;
}

void Parser::feed(std::string_view bytes, std::vector<Event>& out) {
  for (char c : bytes) {
    switch (state_) {
      case State::Idle:
        if (c == '$') {
          state_ = State::Data;
          data_.clear();
          overflow_ = false;
        } else if (c == '+') {
          out.push_back({Event::Kind::Ack, {}});
        } else if (c == '-') {
          out.push_back({Event::Kind::Nack, {}});
        } else if (c == '\x03') {
          out.push_back({Event::Kind::Interrupt, {}});
        }
        break;
      case State::Data:
        if (c == '#') {
          state_ = State::Check1;
        } else if (c == '$') {
          // A new packet start inside a packet: gdb gave up on the old one (resync).
          out.push_back({Event::Kind::BadPacket, {}});
          data_.clear();
          overflow_ = false;
        } else if (data_.size() < kMaxPacket) {
          data_ += c;
        } else {
          overflow_ = true;
        }
        break;
      case State::Check1:
        check_hi_ = c;
        state_ = State::Check2;
        break;
      case State::Check2: {
        state_ = State::Idle;
        int hi = hex_value(check_hi_), lo = hex_value(c);
        std::optional<std::string> payload;
        if (!overflow_ && hi >= 0 && lo >= 0 && checksum(data_) == hi * 16 + lo) payload = decode(data_);
        if (payload) {
          out.push_back({Event::Kind::Packet, std::move(*payload)});
        } else {
          out.push_back({Event::Kind::BadPacket, {}});
        }
        data_.clear();
        break;
      }
    }
  }
}

std::string to_hex(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string to_hex(std::string_view text) {
  return to_hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<std::vector<uint8_t>> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return out;
}

std::string le32_hex(uint32_t value) {
  uint8_t bytes[4] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                      static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
  return to_hex(std::span<const uint8_t>(bytes, 4));
}

std::optional<uint32_t> parse_le32_hex(std::string_view hex) {
  if (hex.size() != 8) return std::nullopt;
  auto bytes = from_hex(hex);
  if (!bytes) return std::nullopt;
  const auto& b = *bytes;
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
}

std::optional<uint64_t> parse_hex(std::string_view hex) {
  if (hex.empty()) return std::nullopt;
  while (hex.size() > 1 && hex.front() == '0') hex.remove_prefix(1);  // "0000000000040010"
  if (hex.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : hex) {
    int v = hex_value(c);
    if (v < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(v);
  }
  return value;
}

std::string hex(uint64_t value) {
  std::string out;
  do {
    out.insert(out.begin(), kDigits[value & 15]);
    value >>= 4;
  } while (value != 0);
  return out;
}

}  // namespace ipusim::debug::rsp
