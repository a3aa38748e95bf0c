// libFuzzer harness for what rockperm serve reads from a client before any handler: the HTTP
// request as Beast's parser takes it, with the service's limits, and the JSON of a submission
// (nesting bounded, then walked as the server walks it). The first byte picks which. Any crash,
// sanitizer report or exception other than HttpError is a bug.
// Built and run by packaging/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <boost/beast/core/buffers_to_string.hpp>
#include <cstdint>
#include <string>

#include "app/service/client_json.hpp"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(1 << 20);
    parser.eager(true);
    boost::beast::error_code ec;
    std::size_t used = 0;
    while (!ec && used < text.size() && !parser.is_done()) {
      const std::size_t n = parser.put(boost::asio::buffer(text.data() + used, text.size() - used), ec);
      if (n == 0) break;
      used += n;
    }
    if (parser.is_header_done()) {
      const auto& h = parser.get();
      (void)std::string(h.target());
      (void)h.keep_alive();
      (void)parser.content_length();
      (void)std::string(h[http::field::host]);
      (void)std::string(h[http::field::authorization]);
    }
    return 0;
  }
  try {
    const nlohmann::ordered_json j = rockperm::app::service::parse_client_json(text, "the body");
    if (j.is_object()) {
      for (const auto& [key, value] : j.items()) (void)(key.size() + value.dump().size());
    }
  } catch (const rockperm::app::service::HttpError&) {
  }
  return 0;
}
