// Decimal text <-> double with an exact power-of-ten shift (see config_numbers.h).
#include "config/config_numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ipusim::config::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits a decimal number into mantissa text and exponent, checking the grammar
// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
bool split_decimal(std::string_view text, std::string& mantissa, long& exponent) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  size_t digits = 0;
  mantissa = negative ? "-" : "";
  while (i < text.size() && is_digit(text[i])) mantissa += text[i++], ++digits;
  if (i < text.size() && text[i] == '.') {
    mantissa += text[i++];
    while (i < text.size() && is_digit(text[i])) mantissa += text[i++], ++digits;
  }
  if (digits == 0) return false;
  exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    size_t exp_digits = 0;
    while (i < text.size() && is_digit(text[i])) {
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
      ++i, ++exp_digits;
    }
    if (exp_digits == 0) return false;
    if (exp_negative) exponent = -exponent;
  }
  return i == text.size();
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text, int pow10) {
  std::string mantissa;
  long exponent = 0;
  if (!split_decimal(text, mantissa, exponent)) return std::nullopt;
  std::string scaled = mantissa + "e" + std::to_string(exponent + pow10);
  double value = 0;
  auto [end, ec] = std::from_chars(scaled.data(), scaled.data() + scaled.size(), value);
  if (ec != std::errc() || end != scaled.data() + scaled.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<uint64_t> parse_unsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string format_decimal(double value, int pow10) {
  if (value == 0) return "0";
  // Shortest round-trip scientific form: "-1.325e+09".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  (void)ec;  // 64 chars always hold a double
  std::string_view sci(buf, size_t(end - buf));
  size_t e = sci.find('e');
  std::string_view mant = sci.substr(0, e);
  long exponent = std::strtol(std::string(sci.substr(e + 1)).c_str(), nullptr, 10) - pow10;
  std::string sign = mant.front() == '-' ? "-" : "";
  if (!sign.empty()) mant.remove_prefix(1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits += c;
  }
  // value = 0.DIGITS * 10^(exponent + 1)
  long point = exponent + 1;  // digits before the decimal point
  if (exponent < -6 || exponent > 20) {
    std::string text = sign + digits.substr(0, 1);
    if (digits.size() > 1) text += "." + digits.substr(1);
    return text + "e" + std::to_string(exponent);
  }
  if (point <= 0) return sign + "0." + std::string(size_t(-point), '0') + digits;
  if (size_t(point) >= digits.size()) return sign + digits + std::string(point - digits.size(), '0');
  return sign + digits.substr(0, point) + "." + digits.substr(point);
}

}  // namespace ipusim::config::detail
