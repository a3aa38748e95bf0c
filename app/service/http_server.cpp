#include "app/service/http_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/beast/core.hpp>
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

void HttpServer::serve(const std::function<bool()>& stop) {
  boost::system::error_code ec;
  while (!stop()) {
    pollfd p{acceptor_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    tcp::socket socket(io_);
    acceptor_.accept(socket, ec);
    if (ec) continue;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return connections_ < limits_.max_connections; });
      ++connections_;
    }
    std::thread([this, s = std::move(socket)]() mutable {
      session(std::move(s));
      const std::lock_guard lock(mutex_);
      --connections_;
      cv_.notify_all();
    }).detach();
  }
  acceptor_.close(ec);
  // the connections' threads use this object: wait for them (an idle one ends at its timeout)
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [this] { return connections_ == 0; });
}

HttpError HttpServer::too_large() const {
  return {http::status::payload_too_large,
          "the upload is larger than service.max_upload_mb = " + std::to_string(limits_.max_upload_bytes >> 20) + " MB"};
}

// One connection: requests until the client closes, a timeout or an error. The header is read
// first: an upload is authenticated (and its size checked) before its body is read, and the
// body goes to a spool file, so that memory does not grow with uploads.
void HttpServer::session(tcp::socket socket) {
  timeval timeout{};
  timeout.tv_sec = static_cast<long>(limits_.request_timeout_s);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  boost::beast::flat_buffer buffer;
  boost::system::error_code ec;
  const std::uint64_t limit = limits_.max_upload_bytes;
  for (;;) {
    http::request_parser<http::empty_body> head;
    head.header_limit(16 * 1024);
    head.body_limit(std::numeric_limits<std::uint64_t>::max());  // checked after the token
    http::read_header(socket, buffer, head, ec);
    if (ec == http::error::end_of_stream || ec == boost::asio::error::eof) break;
    if (ec == boost::asio::error::would_block || ec == boost::asio::error::timed_out) break;  // too slow
    Reply reply;
    bool keep_alive = false;
    Incoming in;
    if (ec) {
      reply.response = error_response(http::status::bad_request, "malformed HTTP request: " + ec.message());
    } else {
      in.head = head.get().base();
      keep_alive = head.get().keep_alive();
      try {
        if (handler_.is_upload(in.head)) {
          in.owner = handler_.authenticate(in.head);  // before the body is read
          if (head.content_length() && *head.content_length() > limit) throw too_large();
          fs::create_directories(limits_.spool_dir);
          in.body_file = limits_.spool_dir / (".incoming-" + random_hex(8));
          if (head.get()[http::field::expect] == "100-continue") {
            http::response<http::empty_body> go{http::status::continue_, head.get().version()};
            http::write(socket, go, ec);
          }
          http::request_parser<http::file_body> body{std::move(head)};
          body.body_limit(limit);
          body.get().body().open(in.body_file.c_str(), boost::beast::file_mode::write, ec);
          if (ec) throw std::runtime_error("cannot spool the upload: " + ec.message());
          http::read(socket, buffer, body, ec);
          body.get().body().close();
        } else {
          http::request_parser<http::string_body> body{std::move(head)};
          body.body_limit(1 << 20);
          http::read(socket, buffer, body, ec);
          in.body = std::move(body.get().body());
        }
        if (ec == http::error::body_limit) throw too_large();
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
    if (!send(socket, reply, keep_alive) || !keep_alive) break;
  }
  socket.shutdown(tcp::socket::shutdown_send, ec);
}

bool HttpServer::send(tcp::socket& socket, Reply& reply, bool keep_alive) {
  boost::system::error_code ec;
  reply.response.keep_alive(keep_alive);
  reply.response.set(http::field::server, "rockperm/" ROCKPERM_VERSION);
  if (reply.file.empty()) {
    reply.response.prepare_payload();
    http::write(socket, reply.response, ec);
    return !ec;
  }
  http::response<http::file_body> r{reply.response.base()};
  r.body().open(reply.file.c_str(), boost::beast::file_mode::scan, ec);
  if (ec) return false;
  r.keep_alive(keep_alive);
  r.prepare_payload();
  http::write(socket, r, ec);
  return !ec;
}

}  // namespace rockperm::app::service
