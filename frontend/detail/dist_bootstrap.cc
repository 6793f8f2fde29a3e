#include "frontend/detail/dist_bootstrap.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Rank 0 writes the id under a temporary name and renames it, so a reader never sees half an
// id; the others poll for the file.
class FileExchange final : public IdExchange {
 public:
  explicit FileExchange(std::string path) : path_(std::move(path)) {}

  runtime::CommId share(int rank, const runtime::CommId& id) override {
    if (rank == 0) {
      std::string tmp = absl::StrCat(path_, ".tmp.", getpid());
      {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f.write(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()));
        if (!f) throw Error("dist: cannot write the group id to " + tmp);
      }
      std::filesystem::rename(tmp, path_);
      return id;
    }
    const auto deadline = Clock::now() + std::chrono::duration<double>(init_timeout_seconds());
    while (Clock::now() < deadline) {
      std::ifstream f(path_, std::ios::binary);
      runtime::CommId got;
      if (f.read(got.bytes.data(), static_cast<std::streamsize>(got.bytes.size()))) return got;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw Error(absl::StrCat("dist: rank ", rank, " found no group id in ", path_, " after ",
                             init_timeout_seconds(), " s (is rank 0 running?)"));
  }

  void done(int rank) override {
    if (rank == 0) std::filesystem::remove(path_);
  }

 private:
  std::string path_;
};

// Rank 0 listens and hands the id to world_size - 1 connections from a thread (its own join
// blocks meanwhile); the others connect, retrying until rank 0 listens.
class TcpExchange final : public IdExchange {
 public:
  TcpExchange(std::string host, int port, int world_size)
      : host_(std::move(host)), port_(port), world_size_(world_size) {}
  ~TcpExchange() override {
    if (server_.joinable()) server_.join();
    if (listen_fd_ >= 0) close(listen_fd_);
  }

  runtime::CommId share(int rank, const runtime::CommId& id) override {
    if (rank == 0) {
      listen_fd_ = listen_on(port_);
      server_ = std::thread([this, id] { serve(id); });
      return id;
    }
    return fetch(rank);
  }

  void done(int) override {
    if (server_.joinable()) server_.join();
  }

 private:
  static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(fd, 128) != 0) {
      if (fd >= 0) close(fd);
      throw Error(absl::StrCat("dist: rank 0 cannot listen on port ", port, " for the group"));
    }
    return fd;
  }

  void serve(runtime::CommId id) {
    for (int served = 1; served < world_size_; ++served) {
      int c = accept(listen_fd_, nullptr, nullptr);
      if (c < 0) return;
      (void)!write(c, id.bytes.data(), id.bytes.size());
      close(c);
    }
  }

  runtime::CommId fetch(int rank) const {
    const auto deadline = Clock::now() + std::chrono::duration<double>(init_timeout_seconds());
    while (Clock::now() < deadline) {
      if (auto id = try_fetch()) return *id;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw Error(absl::StrCat("dist: rank ", rank, " could not fetch the group id from ", host_, ":",
                             port_, " within ", init_timeout_seconds(), " s (is rank 0 running?)"));
  }

  std::optional<runtime::CommId> try_fetch() const {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &res) != 0)
      return std::nullopt;
    std::optional<runtime::CommId> out;
    for (addrinfo* a = res; a != nullptr && !out; a = a->ai_next) {
      int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        runtime::CommId id;
        size_t got = 0;
        while (got < id.bytes.size()) {
          ssize_t n = read(fd, id.bytes.data() + got, id.bytes.size() - got);
          if (n <= 0) break;
          got += static_cast<size_t>(n);
        }
        if (got == id.bytes.size()) out = id;
      }
      close(fd);
    }
    freeaddrinfo(res);
    return out;
  }

  std::string host_;
  int port_, world_size_;
  int listen_fd_ = -1;
  std::thread server_;
};

}  // namespace

double init_timeout_seconds() {
  const char* env = std::getenv("EMBER_DIST_INIT_TIMEOUT_S");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    double v = std::strtod(env, &end);
    if (end != env && v > 0) return v;
  }
  return 300;
}

std::unique_ptr<IdExchange> id_exchange(const std::string& init, int world_size) {
  if (init.rfind("file:", 0) == 0 && init.size() > 5) {
    std::string path = init.substr(5);
    if (path.rfind("//", 0) == 0) path = path.substr(2);  // file:///abs/path
    return std::make_unique<FileExchange>(path);
  }
  if (init.rfind("tcp://", 0) == 0) {
    std::string rest = init.substr(6);
    size_t colon = rest.rfind(':');
    char* end = nullptr;
    long port = colon == std::string::npos ? 0 : std::strtol(rest.c_str() + colon + 1, &end, 10);
    if (colon != std::string::npos && colon > 0 && port > 0 && port < 65536 && *end == '\0')
      return std::make_unique<TcpExchange>(rest.substr(0, colon), static_cast<int>(port),
                                           world_size);
  }
  throw Error("dist: init method '" + init +
              "' is neither file:PATH nor tcp://HOST:PORT (EMBER_DIST_INIT)");
}

}  // namespace ember::detail
