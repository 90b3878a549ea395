#include "tpnet/io/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "tpnet/error.hpp"

namespace tpnet {
namespace {

std::atomic<std::uint64_t> g_max_input_bytes{kDefaultMaxInputBytes};

std::string mib(std::uint64_t bytes) {
  return bytes % (std::uint64_t{1} << 20) == 0 ? fmt::format("{} MiB", bytes >> 20)
                                               : fmt::format("{} bytes", bytes);
}

/// What an errno from stat or open means for a path a user gave.
std::string cause(int error) {
  switch (error) {
    case ENOENT:
      return "no such file";
    case ENOTDIR:
      return "no such file (a folder on its path is a file)";
    case ELOOP:
      return "symlink loop: too many levels of symbolic links";
    case EACCES:
      return "permission denied: cannot read it, or cannot enter a folder on its path";
    case ENAMETOOLONG:
      return "path too long";
    default:
      return fmt::format("cannot be opened for reading: {}", std::strerror(error));
  }
}

/// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::uint64_t max_input_bytes() { return g_max_input_bytes.load(); }

void set_max_input_bytes(std::uint64_t bytes) { g_max_input_bytes.store(bytes); }

std::string read_text_file(const std::string& path) {
  const InputLocation where = InputLocation::in_file(path);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(cause(errno), where);
  if (S_ISDIR(info.st_mode)) throw InputError("is a directory, not a file", where);
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw InputError(cause(errno), where);

  const std::uint64_t limit = max_input_bytes();
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > limit) {
    throw InputError(
        fmt::format("is {} bytes, larger than the input limit of {} (`input.max_bytes` "
                    "raises it)",
                    static_cast<std::uint64_t>(info.st_size), mib(limit)),
        where);
  }
  std::string text;
  if (S_ISREG(info.st_mode)) text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(fmt::format("could not be read: {}", std::strerror(errno)), where);
    }
    if (got == 0) break;
    // A device or a FIFO has no size to check first: stop at the limit.
    if (text.size() + static_cast<std::uint64_t>(got) > limit) {
      throw InputError(
          fmt::format("goes on past the input limit of {} (`input.max_bytes` raises it); a "
                      "device or a pipe that never ends is not a file",
                      mib(limit)),
          where);
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(text).substr(0, kBom.size()) == kBom) text.erase(0, kBom.size());
  return text;
}

}  // namespace tpnet
