#include "app/service/http_server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <iostream>
#include <limits>
#include <thread>

#include "app/service/auth.hpp"
#include "lib/base/error.hpp"
#include "rockperm/config.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;
using tcp = boost::asio::ip::tcp;

Response error_response(http::status status, const std::string& message) {
  Response r{status, 11};
  r.set(http::field::content_type, "application/json");
  r.body() = nlohmann::ordered_json{{"error", message}}.dump() + "\n";
  return r;
}

Reply json_reply(const nlohmann::ordered_json& j, http::status status) {
  Reply r;
  r.response = Response{status, 11};
  r.response.set(http::field::content_type, "application/json");
  r.response.body() = j.dump(2) + "\n";
  return r;
}

HttpServer::HttpServer(const std::string& address, int port, TransportLimits limits, RequestHandler& handler)
    : limits_(std::move(limits)), handler_(handler), acceptor_(io_) {
  boost::system::error_code ec;
  const auto ip = boost::asio::ip::make_address(address, ec);
  if (ec) throw InputError("service.listen: '" + address + "' is not an IP address");
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(boost::asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw InputError("service.listen: cannot listen on " + address + ":" + std::to_string(port) + " (" + ec.message() +
                     ")");
  }
  port_ = acceptor_.local_endpoint().port();
}

// A connection's own io_context and stream: its operations run with deadlines on the
// connection's thread (HttpServer::session), and serve() may post a close to it.
struct HttpServer::Session {
  boost::asio::io_context io;
  boost::beast::tcp_stream stream{io};
  std::string client;         // the peer's address
  bool waiting_for_request = false;  // changed on the session's thread outside io.run() only
  bool reading_body = false;         // the same
  // since when it reads a request's header (idle between requests included), for serve() to drop
  // the one waiting longest when the service is full; zero while a request is being served
  std::atomic<std::int64_t> header_since_ns{0};
  std::atomic<bool> dropped{false};  // chosen by serve() to make room
};

void HttpServer::refuse(tcp::socket& socket, const std::string& why) {
  const std::string body = nlohmann::ordered_json{{"error", why}}.dump() + "\n";
  const std::string reply = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
                            "Connection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(socket.native_handle(), reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  boost::system::error_code ec;
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

void HttpServer::serve(const std::function<bool()>& stop) {
  boost::system::error_code ec;
  while (!stop()) {
    pollfd p{acceptor_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    auto s = std::make_unique<Session>();
    acceptor_.accept(s->stream.socket(), ec);
    if (ec) continue;
    const auto peer = s->stream.socket().remote_endpoint(ec);
    s->client = ec ? std::string("?") : peer.address().to_string();
    {
      const std::lock_guard lock(mutex_);
      if (connections_ >= limits_.max_connections) {
        // full: the connection that has waited longest for a request's header (idle, or sending
        // one slowly, with no token shown yet) goes first, so that those never lock others out
        Session* oldest = nullptr;
        std::int64_t since = std::numeric_limits<std::int64_t>::max();
        for (Session* other : sessions_) {
          const std::int64_t t = other->header_since_ns.load();
          if (t != 0 && t < since && !other->dropped) {
            since = t;
            oldest = other;
          }
        }
        if (!oldest) {
          refuse(s->stream.socket(), "the service holds service.max_connections = " +
                                         std::to_string(limits_.max_connections) + " connections; try again shortly");
          continue;
        }
        oldest->dropped = true;
        boost::asio::post(oldest->io, [oldest] {  // on its thread: only while it still reads a header
          if (oldest->header_since_ns != 0) oldest->stream.socket().close();
        });
      }
      if (per_client_[s->client] >= limits_.max_connections_per_client) {
        refuse(s->stream.socket(), "your address holds service.max_connections_per_client = " +
                                       std::to_string(limits_.max_connections_per_client) +
                                       " connections; close some or try again shortly");
        continue;
      }
      ++connections_;
      ++per_client_[s->client];
      sessions_.insert(s.get());
    }
    std::thread([this, s = std::move(s)]() mutable {
      try {
        session(*s);
      } catch (const std::exception&) {  // a connection's failure ends that connection only
      }
      const std::lock_guard lock(mutex_);
      sessions_.erase(s.get());
      if (--per_client_[s->client] == 0) per_client_.erase(s->client);
      --connections_;
      cv_.notify_all();
      s.reset();  // under the lock: serve() posts to sessions only under it
    }).detach();
  }
  acceptor_.close(ec);
  // the connections' threads use this object: close those that wait for a request, and wait
  // for the others to send their answer
  std::unique_lock lock(mutex_);
  stopping_ = true;
  for (Session* s : sessions_) {
    boost::asio::post(s->io, [s] {
      // one that waits for a request, or drips a body (the stop's checkpoint waits for no upload)
      if (s->waiting_for_request || s->reading_body) s->stream.socket().close();
    });
  }
  cv_.wait(lock, [this] { return connections_ == 0; });
}

HttpError HttpServer::too_large(std::uint64_t limit) const {
  if (limit == limits_.max_upload_bytes) {
    return {http::status::payload_too_large,
            "the upload is larger than service.max_upload_mb = " + std::to_string(limits_.max_upload_bytes >> 20) + " MB"};
  }
  return {http::status::payload_too_large, "a request body other than an upload is at most " +
                                               std::to_string(limit >> 10) + " KiB"};
}

namespace {

// What a proxy in front of the service and the service could read differently is refused before
// anything else: two Host headers (the first won), none on HTTP/1.1, a Transfer-Encoding beside a
// Content-Length, or one that is not chunked alone (RFC 9112 6.1, 6.3: "gzip, chunked" with a length).
void check_framing(const http::request_header<>& head) {
  if (head.count(http::field::host) > 1) throw HttpError{http::status::bad_request, "the request has two Host headers"};
  if (head.version() >= 11 && head.count(http::field::host) == 0) {
    throw HttpError{http::status::bad_request, "an HTTP/1.1 request needs a Host header"};
  }
  if (head.count(http::field::transfer_encoding) > 0) {
    if (head.count(http::field::content_length) > 0) {
      throw HttpError{http::status::bad_request, "a request may not have both Transfer-Encoding and Content-Length"};
    }
    std::string te;
    for (const auto& f : head) {
      if (f.name() == http::field::transfer_encoding) te += (te.empty() ? "" : ",") + std::string(f.value());
    }
    te.erase(std::remove_if(te.begin(), te.end(), [](unsigned char c) { return std::isspace(c); }), te.end());
    std::transform(te.begin(), te.end(), te.begin(), [](unsigned char c) { return std::tolower(c); });
    if (te != "chunked") {
      throw HttpError{http::status::not_implemented, "Transfer-Encoding '" + te + "': only chunked is accepted"};
    }
  }
}

// Runs one asynchronous operation of `s` to its end, on the calling thread, with the stream's
// expiry set `seconds` ahead: a peer that stalls gets beast::error::timeout (its socket closed).
template <class Session, class Start>
boost::system::error_code with_deadline(Session& s, double seconds, Start&& start) {
  boost::system::error_code result = boost::asio::error::would_block;
  s.stream.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0)));
  start([&result](boost::system::error_code ec, std::size_t) { result = ec; });
  s.io.restart();
  s.io.run();
  return result;
}

}  // namespace

// Whether the bytes hold a LF that no CR precedes.
static bool bare_line_feed(const boost::beast::flat_buffer& buffer) {
  const auto* b = static_cast<const char*>(buffer.data().data());
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (b[i] == '\n' && (i == 0 || b[i - 1] != '\r')) return true;
  }
  return false;
}

// A port as a Host header writes it: 1 to 5 digits of a number 1..65535.
static bool port_text(const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  const long port = std::stol(text);
  return port >= 1 && port <= 65535;
}

// The Host a request names must be this service's: an address, localhost, or a name in
// service.allowed_hosts. A page of another site whose name was made to resolve to this
// address (DNS rebinding) names its own host, and is refused.
void check_host(const http::request_header<>& head, const std::vector<std::string>& allowed_hosts) {
  const auto found = head.find(http::field::host);
  if (found == head.end()) return;  // HTTP/1.0 without one (HTTP/1.1: refused by the transport)
  std::string host(found->value());
  if (!host.empty() && host.front() == '[') {  // an IPv6 literal, and nothing else in brackets
    const std::size_t close = host.find(']');
    boost::system::error_code ec;
    if (close != std::string::npos) (void)boost::asio::ip::make_address_v6(host.substr(1, close - 1), ec);
    const std::string rest = close == std::string::npos ? "" : host.substr(close + 1);
    const bool port_ok = rest.empty() || (rest.size() > 1 && rest[0] == ':' && port_text(rest.substr(1)));
    if (close == std::string::npos || ec || !port_ok) {
      throw HttpError{http::status::bad_request, "the Host header is not a host name or address"};
    }
    return;
  }
  if (const std::size_t colon = host.rfind(':'); colon != std::string::npos) {  // host:port, the port a port
    if (!port_text(host.substr(colon + 1))) {
      throw HttpError{http::status::bad_request, "the Host header's port is not a port number (1-65535)"};
    }
    host.erase(colon);
  }
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  if (!ec || host == "localhost") return;
  for (const std::string& allowed : allowed_hosts) {
    if (host == allowed) return;
  }
  throw HttpError{http::status::misdirected_request,
                  "the Host '" + host + "' is not a name of this service; its operator adds it to service.allowed_hosts"};
}


// One connection: requests until the client closes, a deadline passes or an error. The header is
// read first (all of it within the deadline); the token and the declared length are checked
// before any of the body is read, and an upload's body goes to a spool file, so that memory
// does not grow with uploads nor with anyone's unauthenticated bodies.
void HttpServer::session(Session& s) {
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  const double timeout = limits_.request_timeout_s;
  for (;;) {
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    http::request_parser<http::empty_body> head;
    head.header_limit(16 * 1024);
    head.body_limit(std::numeric_limits<std::uint64_t>::max());  // checked below, before the body is read
    s.waiting_for_request = buffer.size() == 0;
    s.header_since_ns = std::chrono::steady_clock::now().time_since_epoch().count() | 1;
    ec = with_deadline(s, timeout, [&](auto done) { http::async_read_header(s.stream, buffer, head, std::move(done)); });
    s.header_since_ns = 0;
    s.waiting_for_request = false;
    if (ec == http::error::end_of_stream || ec == boost::asio::error::eof) break;
    if (ec == boost::beast::error::timeout || ec == boost::asio::error::operation_aborted ||
        ec == boost::asio::error::connection_reset || ec == boost::asio::error::bad_descriptor) {
      break;  // too slow, closed by the client, or closed by a stop while it waited
    }
    Reply reply;
    bool keep_alive = false;
    Incoming in;
    if (ec) {
      reply.response = error_response(http::status::bad_request, "malformed HTTP request: " + ec.message());
    } else {
      in.head = head.get().base();
      keep_alive = head.get().keep_alive();
      try {
        check_framing(in.head);
        const bool upload = handler_.is_upload(in.head);
        const bool token = handler_.needs_token(in.head);
        if (token) in.owner = authenticated(s, in.head);  // before the body is read
        // a request without a token (the page, health) takes no body: none is read, so that no
        // one without a token holds a connection by sending one slowly
        if (!token && (head.content_length().value_or(0) > 0 || head.chunked())) {
          throw HttpError{http::status::payload_too_large, "this request takes no body"};
        }
        const std::uint64_t limit = upload ? limits_.max_upload_bytes : limits_.small_body_bytes;
        if (head.content_length() && *head.content_length() > limit) throw too_large(limit);
        // The body is read with the deadline renewed at each piece, and at an average rate of at
        // least min_body_bytes_per_s once request_timeout_s has passed: a client that sends nothing
        // for request_timeout_s is dropped, and so is one that drips a byte every few seconds (it
        // held a connection without end); a slow but steady upload is not. A stop ends the read.
        const auto body_started = std::chrono::steady_clock::now();
        const auto read_body = [&](auto& parser) {
          parser.body_limit(limit);  // for bodies without a declared length
          std::uint64_t received = 0;
          while (!ec && !parser.is_done()) {
            {
              const std::lock_guard lock(mutex_);
              if (stopping_) throw HttpError{http::status::service_unavailable, "the service is stopping; send it again"};
            }
            // a chunked body: what is buffered is parsed first, and framing left over that holds a
            // bare LF would wait for a CRLF that never comes (Beast skips a lone LF): refused now
            if (parser.chunked() && buffer.size() > 0) {
              parser.eager(true);
              boost::system::error_code parsed;
              buffer.consume(parser.put(buffer.data(), parsed));
              if (parsed && parsed != http::error::need_more) {
                ec = parsed;
                break;
              }
              if (parser.is_done()) break;
              if (bare_line_feed(buffer)) {
                throw HttpError{http::status::bad_request,
                                "the chunked body's lines end in a bare LF; end them with CRLF (RFC 9112, 7.1)"};
              }
            }
            s.reading_body = true;
            std::size_t got = 0;
            ec = with_deadline(s, timeout, [&](auto done) {
              http::async_read_some(s.stream, buffer, parser, [&got, done = std::move(done)](auto e, std::size_t n) mutable {
                got = n;
                done(e, n);
              });
            });
            s.reading_body = false;
            received += got;
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - body_started).count();
            if (!ec && !parser.is_done() && elapsed > timeout && received < limits_.min_body_bytes_per_s * elapsed) {
              throw HttpError{http::status::request_timeout,
                              "the request body arrives at less than " + std::to_string(limits_.min_body_bytes_per_s >> 10) +
                                  " KiB/s on average; send it faster"};
            }
          }
        };
        if (upload) {
          fs::create_directories(limits_.spool_dir);
          in.body_file = limits_.spool_dir / (".incoming-" + random_hex(8));
          if (head.get()[http::field::expect] == "100-continue") {
            http::response<http::empty_body> go{http::status::continue_, head.get().version()};
            ec = with_deadline(s, timeout, [&](auto done) { http::async_write(s.stream, go, std::move(done)); });
          }
          http::request_parser<http::file_body> body{std::move(head)};
          body.get().body().open(in.body_file.c_str(), boost::beast::file_mode::write, ec);
          if (ec) throw std::runtime_error("cannot spool the upload: " + ec.message());
          read_body(body);
          body.get().body().close();
        } else {
          http::request_parser<http::string_body> body{std::move(head)};
          read_body(body);
          in.body = std::move(body.get().body());
        }
        if (ec == http::error::body_limit) throw too_large(limit);
        if (ec == boost::system::errc::no_space_on_device) {
          throw HttpError{http::status::insufficient_storage, "the service's disk is full; try again later"};
        }
        {
          const std::lock_guard lock(mutex_);
          if (stopping_) throw HttpError{http::status::service_unavailable, "the service is stopping; send it again"};
        }
        if (ec == boost::beast::error::timeout) {
          throw HttpError{http::status::request_timeout, "the request body stalled for service.request_timeout_s"};
        }
        if (ec) throw HttpError{http::status::bad_request, "the request body could not be read: " + ec.message()};
        reply = handler_.handle(in);
      } catch (const HttpError& e) {
        reply.response = error_response(e.status, e.message);
        if (e.status == http::status::unauthorized) {
          reply.response.set(http::field::www_authenticate, "Bearer realm=\"rockperm\"");
        }
        keep_alive = false;  // the body may be unread
      } catch (const std::exception& e) {
        reply.response = error_response(http::status::internal_server_error, e.what());
        keep_alive = false;
      }
      std::error_code removed;
      if (!in.body_file.empty()) fs::remove(in.body_file, removed);
      reply.response.version(in.head.version());
    }
    if (!s.stream.socket().is_open() || !send(s, reply, keep_alive) || !keep_alive) break;
  }
  s.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

// The owner of a request's token. A refused token is logged with the client's address, and each
// refusal in a row from that address is answered a little later (100 ms more each, at most 2 s), so
// that guessing tokens is slow and seen; a token that passes clears the count.
std::string HttpServer::authenticated(Session& s, const http::request_header<>& head) {
  try {
    std::string owner = handler_.authenticate(head);
    const std::lock_guard lock(mutex_);
    failed_tokens_.erase(s.client);
    return owner;
  } catch (const HttpError& e) {
    int failures = 0;
    {
      const std::lock_guard lock(mutex_);
      if (failed_tokens_.size() > 10000) failed_tokens_.clear();  // a bound on the map, not on the delay
      failures = ++failed_tokens_[s.client];
    }
    std::cerr << "rockperm serve: refused a request from " << s.client << " (" << e.message << "; " << failures
              << " in a row from that address)\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * std::min(failures, 20)));
    throw;
  }
}

bool HttpServer::send(Session& s, Reply& reply, bool keep_alive) {
  boost::system::error_code ec;
  reply.response.keep_alive(keep_alive);
  reply.response.set(http::field::server, "rockperm/" ROCKPERM_VERSION);
  // the page is the service's own: no other origin frames it
  reply.response.set(http::field::x_frame_options, "DENY");
  if (reply.response.find("Content-Security-Policy") == reply.response.end()) {
    reply.response.set("Content-Security-Policy", "frame-ancestors 'none'");
  }
  reply.response.set("X-Content-Type-Options", "nosniff");
  // written piece by piece, the deadline renewed at each: a client that stops reading is dropped
  const auto write = [&](auto& message) {
    http::serializer<false, typename std::decay_t<decltype(message)>::body_type> sr{message};
    while (!ec && !sr.is_done()) {
      ec = with_deadline(s, limits_.request_timeout_s,
                         [&](auto done) { http::async_write_some(s.stream, sr, std::move(done)); });
    }
    return !ec;
  };
  if (reply.file.empty()) {
    reply.response.prepare_payload();
    return write(reply.response);
  }
  http::response<http::file_body> r{reply.response.base()};
  r.body().open(reply.file.c_str(), boost::beast::file_mode::scan, ec);
  if (ec) return false;
  r.keep_alive(keep_alive);
  r.prepare_payload();
  return write(r);
}

}  // namespace rockperm::app::service
