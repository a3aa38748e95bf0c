#pragma once
// The HTTP transport of rockperm serve, on Boost.Beast: connections accepted on one address, a
// thread per connection (a bounded number at once, and per client address), real deadlines
// (Beast's tcp_stream expiry on each session's own io_context: a request's header must arrive
// within request_timeout_s, a body or response must make progress every request_timeout_s),
// and request bodies kept small in memory or, for uploads, spooled to a file. The token and the
// declared length are checked before any body is read. What the requests mean is the
// handler's (app/service/server.cpp).
#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace rockperm::app::service {

namespace http = boost::beast::http;
using Response = http::response<http::string_body>;

// An HTTP error with its status and a message for the client (JSON {"error": ...}).
struct HttpError : std::runtime_error {
  HttpError(http::status s, const std::string& m) : std::runtime_error(m), status(s), message(m) {}
  http::status status;
  std::string message;
};

// A request as read: the header, and the body in memory (small requests) or in a spool file
// (uploads), with the owner when the token was checked before the body was read.
struct Incoming {
  http::request_header<> head;
  std::string body;
  std::filesystem::path body_file;
  std::string owner;
};

// A response, or a file to send as the body of `response` (large reports, fields.zip).
struct Reply {
  Response response;
  std::filesystem::path file;
};

Reply json_reply(const nlohmann::ordered_json& j, http::status status = http::status::ok);

// The Host a request names must be this service's: an address, localhost, or one of
// `allowed_hosts` (lower case), else HttpError 421 (a page of another site whose name was made to
// resolve to this address, DNS rebinding, names its own host); a malformed one is 400.
void check_host(const http::request_header<>& head, const std::vector<std::string>& allowed_hosts);
Response error_response(http::status status, const std::string& message);

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Whether the request's body is an upload: spooled to a file, read only after authenticate().
  virtual bool is_upload(const http::request_header<>& head) const = 0;
  // Whether the request needs a token: then authenticate() runs before its body is read.
  virtual bool needs_token(const http::request_header<>& head) const = 0;
  // The owner of the request's token; throws HttpError (401, 403).
  virtual std::string authenticate(const http::request_header<>& head) = 0;
  // The answer; throws HttpError for a refusal.
  virtual Reply handle(const Incoming& in) = 0;
};

struct TransportLimits {
  double request_timeout_s = 30;        // to read a request or write a response
  std::uint64_t max_upload_bytes = 0;   // larger uploads: 413 (other bodies: small_body_bytes)
  std::uint64_t small_body_bytes = 1 << 20;
  // a body's least average rate once request_timeout_s has passed (slower: 408)
  std::uint64_t min_body_bytes_per_s = 16 << 10;
  std::filesystem::path spool_dir;      // where upload bodies are written while read
  int max_connections = 64;             // served at once; more are answered 503 at once
  int max_connections_per_client = 16;  // held by one client address; more are answered 503
};

class HttpServer {
 public:
  // Listens on address:port (port 0: any free one). Throws InputError naming service.listen.
  HttpServer(const std::string& address, int port, TransportLimits limits, RequestHandler& handler);
  int port() const { return port_; }
  // Serves until `stop()` is true (asked every 200 ms); then closes the connections that wait
  // for a request and returns once the others have sent their answer.
  void serve(const std::function<bool()>& stop);

 private:
  struct Session;
  void session(Session& s);
  bool send(Session& s, Reply& reply, bool keep_alive);
  std::string authenticated(Session& s, const http::request_header<>& head);
  // Refuses a connection at once (503) without a thread: the answer fits the socket's buffer.
  static void refuse(boost::asio::ip::tcp::socket& socket, const std::string& why);
  HttpError too_large(std::uint64_t limit) const;

  TransportLimits limits_;
  RequestHandler& handler_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
  int connections_ = 0;
  std::map<std::string, int> per_client_;  // open connections by client address
  std::map<std::string, int> failed_tokens_;  // refused tokens in a row by client address
  std::set<Session*> sessions_;
  bool stopping_ = false;  // under mutex_
};

}  // namespace rockperm::app::service
