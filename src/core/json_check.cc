#include "core/json_check.h"

#include <fmt/format.h>

#include <boost/json/basic_parser_impl.hpp>

namespace indelible {
namespace {

// A Boost.JSON SAX handler that accepts everything and remembers only the
// kind of the top-level value: validation without allocating a DOM.
struct NullHandler {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  int depth = 0;
  bool top_is_object = false;

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_object_begin(boost::system::error_code&) {
    if (depth++ == 0) top_is_object = true;
    return true;
  }
  bool on_object_end(std::size_t, boost::system::error_code&) { return --depth, true; }
  bool on_array_begin(boost::system::error_code&) { return ++depth, true; }
  bool on_array_end(std::size_t, boost::system::error_code&) { return --depth, true; }
  bool on_key_part(boost::json::string_view, std::size_t, boost::system::error_code&) {
    return true;
  }
  bool on_key(boost::json::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_string_part(boost::json::string_view, std::size_t, boost::system::error_code&) {
    return true;
  }
  bool on_string(boost::json::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_number_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_int64(std::int64_t, boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_uint64(std::uint64_t, boost::json::string_view, boost::system::error_code&) {
    return true;
  }
  bool on_double(double, boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_bool(bool, boost::system::error_code&) { return true; }
  bool on_null(boost::system::error_code&) { return true; }
  bool on_comment_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::system::error_code&) { return true; }
};

}  // namespace

std::string CheckJson(std::string_view text, JsonShape shape) {
  boost::json::basic_parser<NullHandler> parser{boost::json::parse_options{}};
  boost::system::error_code ec;
  std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (ec) return fmt::format("invalid JSON at byte {}: {}", used, ec.message());
  if (used != text.size())
    return fmt::format("unexpected text after the JSON value at byte {}", used);
  if (shape == JsonShape::kObject && !parser.handler().top_is_object) return "not a JSON object";
  return {};
}

}  // namespace indelible
