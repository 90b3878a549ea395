#include "tpnet/io/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

std::atomic<std::uint64_t> g_max_input_bytes{kDefaultMaxInputBytes};

using FileId = std::pair<std::uint64_t, std::uint64_t>;  // device, inode

struct Inputs {
  std::mutex lock;
  std::map<FileId, std::string> read_as;
};

Inputs& inputs() {
  static Inputs registry;
  return registry;
}

void remember_input(const struct stat& info, const std::string& path) {
  if (!S_ISREG(info.st_mode)) return;  // a pipe or a device is never an output's target
  Inputs& in = inputs();
  const std::lock_guard<std::mutex> hold(in.lock);
  in.read_as.emplace(
      FileId{static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)},
      path);
}

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
  return read_text_file(path, max_input_bytes());
}

std::string read_text_file(const std::string& path, std::uint64_t limit) {
  const InputLocation where = InputLocation::in_file(path);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw InputError(cause(errno), where);
  if (S_ISDIR(info.st_mode)) throw InputError("is a directory, not a file", where);
  if (!S_ISREG(info.st_mode)) {
    throw InputError(fmt::format("is not a regular file ({}): only files are read",
                                 S_ISFIFO(info.st_mode)   ? "a FIFO, which waits for a writer"
                                 : S_ISSOCK(info.st_mode) ? "a socket"
                                                          : "a device, which may never end"),
                     where);
  }
  // Without blocking: a FIFO put in its place since the check cannot hang the open.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) throw InputError(cause(errno), where);
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0 || !S_ISREG(opened.st_mode)) {
    throw InputError("is not a regular file: only files are read", where);
  }
  remember_input(opened, path);
  info = opened;

  if (static_cast<std::uint64_t>(info.st_size) > limit) {
    throw InputError(
        fmt::format("is {} bytes, larger than the input limit of {} (`input.max_bytes` "
                    "raises it)",
                    static_cast<std::uint64_t>(info.st_size), mib(limit)),
        where);
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(fmt::format("could not be read: {}", std::strerror(errno)), where);
    }
    if (got == 0) break;
    // A file that grows while it is read stops at the limit too.
    if (text.size() + static_cast<std::uint64_t>(got) > limit) {
      throw InputError(fmt::format("goes on past the input limit of {} (`input.max_bytes` "
                                   "raises it)",
                                   mib(limit)),
                       where);
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(text).substr(0, kBom.size()) == kBom) text.erase(0, kBom.size());
  return text;
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  if (at >= text.size()) return 0;
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return 1;
  std::size_t more = 0;
  unsigned low = 0x80;  // the second byte's range narrows for some leads
  unsigned high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    more = 1;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    more = 2;
    if (lead == 0xe0) low = 0xa0;   // overlong below U+0800
    if (lead == 0xed) high = 0x9f;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    more = 3;
    if (lead == 0xf0) low = 0x90;   // overlong below U+10000
    if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - at <= more) return 0;
  for (std::size_t i = 1; i <= more; ++i) {
    const auto next = static_cast<unsigned char>(text[at + i]);
    if (next < (i == 1 ? low : 0x80) || next > (i == 1 ? high : 0xbf)) return 0;
  }
  return more + 1;
}

void note_input_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) remember_input(info, path);
}

std::optional<std::string> input_read_as(std::uint64_t device, std::uint64_t inode) {
  Inputs& in = inputs();
  const std::lock_guard<std::mutex> hold(in.lock);
  const auto found = in.read_as.find(FileId{device, inode});
  if (found == in.read_as.end()) return std::nullopt;
  return found->second;
}

}  // namespace tpnet
