#include "tpnet/io/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <utility>

#include "tpnet/io/text_file.hpp"

namespace tpnet {
namespace {

constexpr int kMostSymlinks = 40;                // as the kernel's ELOOP limit
constexpr std::size_t kLongestNamePrefix = 200;  // leaves room for the suffix in NAME_MAX
constexpr std::size_t kStdoutBuffer = std::size_t{64} * 1024;
constexpr unsigned kNewFileMode = 0666;  // less the umask, as any new file
constexpr unsigned kTempMode = 0600;     // until commit() sets the target's

std::string reason(int error) { return std::strerror(error); }

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "something other than a file";
}

InputLocation where(const std::string& flag, const std::string& path) {
  return InputLocation::for_key(flag.empty() ? path : flag + " " + path);
}

/// What an output path leads to.
struct Resolved {
  std::string target;  ///< the file to replace, symlinks followed, its folder canonical
  bool exists = false;
  struct stat info {};
};

/// The kernel's protected_symlinks rule, applied here because the machine
/// may have it off: a symlink in a world-writable sticky folder (/tmp) is
/// followed only when this user or the folder's owner owns it. Otherwise
/// anyone may plant `/tmp/plot.svg -> /etc/passwd` for root to write
/// through.
void refuse_planted_link(const std::string& link, const struct stat& link_info,
                         const std::string& flag, const std::string& path) {
  const std::string folder = folder_of(link);
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0) return;  // found missing later, with its cause
  const bool shared = (folder_info.st_mode & S_ISVTX) != 0 && (folder_info.st_mode & S_IWOTH) != 0;
  if (!shared || link_info.st_uid == ::geteuid() || link_info.st_uid == folder_info.st_uid) return;
  throw InputError(
      fmt::format("{} is a symlink owned by uid {} in the world-writable sticky folder {}; such "
                  "a link is followed only when its owner is this user (uid {}) or the folder's "
                  "owner (the kernel's protected_symlinks rule); remove it or give another path",
                  link, static_cast<long long>(link_info.st_uid), folder,
                  static_cast<long long>(::geteuid())),
      where(flag, path));
}

/// Another user's file is theirs: replacing it by rename needs only write
/// permission on the folder, which a shared folder gives everyone. Root
/// included, so that `sudo tpnet ... --out` in a shared folder cannot
/// replace a file some user left there.
void refuse_other_owner(const struct stat& info, const std::string& flag, const std::string& path) {
  if (info.st_uid == ::geteuid()) return;
  throw InputError(
      fmt::format("is owned by uid {}, not by this user (uid {}); tpnet replaces "
                  "only its user's own files; remove it or give another path",
                  static_cast<long long>(info.st_uid), static_cast<long long>(::geteuid())),
      where(flag, path));
}

using FileId = std::pair<std::uint64_t, std::uint64_t>;  // device, inode

FileId id_of(const struct stat& info) {
  return {static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino)};
}

struct NamedFile {
  std::string flag;
  std::string path;
};

struct NamedFiles {
  std::mutex lock;
  std::multimap<FileId, NamedFile> by_id;
};

NamedFiles& named_files() {
  static NamedFiles registry;
  return registry;
}

/// An output that is also an input of this run would replace what was read:
/// a file read so far, or one another flag names (read later, perhaps).
void refuse_input(const struct stat& info, const std::string& flag, const std::string& path) {
  const FileId id = id_of(info);
  if (const auto input = input_read_as(id.first, id.second)) {
    throw InputError(fmt::format("is the same file as the input {} this run reads; writing it "
                                 "would replace what was read; give another path",
                                 *input),
                     where(flag, path));
  }
  NamedFiles& named = named_files();
  const std::lock_guard<std::mutex> hold(named.lock);
  const auto [first, last] = named.by_id.equal_range(id);
  for (auto it = first; it != last; ++it) {
    if (it->second.flag == flag) continue;
    throw InputError(fmt::format("is the same file as {} {}; writing it would replace that "
                                 "file; give another path",
                                 it->second.flag, it->second.path),
                     where(flag, path));
  }
}

/// Follows `path` to the file it names. Refuses what AtomicFile refuses.
Resolved resolve(const std::string& path, const std::string& flag) {
  if (path.empty()) throw InputError("needs a file path", InputLocation::for_key(flag));
  // The links the last component leads through, one by one, each checked
  // where it lies; the file is created where the last link points when it
  // does not exist yet, as a shell's `>` would.
  std::string at = path;
  for (int hops = 0;; ++hops) {
    struct stat link {};
    if (::lstat(at.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) break;
    if (hops == kMostSymlinks) {
      throw InputError(fmt::format("cannot be written: {}", reason(ELOOP)), where(flag, path));
    }
    refuse_planted_link(at, link, flag, path);
    std::string next(static_cast<std::size_t>(link.st_size) + 1, '\0');
    const ssize_t got = ::readlink(at.c_str(), next.data(), next.size());
    if (got < 0) {
      throw InputError(fmt::format("cannot follow it: {}", reason(errno)), where(flag, path));
    }
    next.resize(static_cast<std::size_t>(got));
    if (next.empty() || next.front() != '/') {
      std::string relative = folder_of(at);
      relative += '/';
      relative += next;
      next = std::move(relative);
    }
    at = std::move(next);
  }
  Resolved r;
  struct stat info {};
  if (::stat(at.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) {
      throw InputError(fmt::format("{} {}, not a regular file; give a file path",
                                   at == path ? "is" : "is a symlink to", kind_of(info.st_mode)),
                       where(flag, path));
    }
    refuse_other_owner(info, flag, path);
    refuse_input(info, flag, path);
    r.exists = true;
    r.info = info;
  } else if (errno != ENOENT) {
    throw InputError(fmt::format("cannot be written: {}", reason(errno)), where(flag, path));
  }
  const std::string folder = folder_of(at);
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0 || !S_ISDIR(folder_info.st_mode)) {
    throw InputError(fmt::format("folder {} does not exist", folder), where(flag, path));
  }
  const std::unique_ptr<char, decltype(&std::free)> real(::realpath(folder.c_str(), nullptr),
                                                         &std::free);
  if (!real) {
    throw InputError(fmt::format("cannot follow it: {}", reason(errno)), where(flag, path));
  }
  r.target =
      std::string(real.get()) + (std::string_view(real.get()) == "/" ? "" : "/") + name_of(at);
  return r;
}

/// The outputs this process has been asked to write, by target, so that two
/// of them on one path (`--svg x --timeline x`, or two links to one file)
/// are refused instead of one silently replacing the other. The same flag
/// and path again is the same output (checked, then written).
struct Claim {
  std::string flag;
  std::string path;
};

void claim(const Resolved& r, const std::string& flag, const std::string& path) {
  static std::mutex lock;
  static std::map<std::string, Claim> claims;
  const std::lock_guard<std::mutex> hold(lock);
  const auto [found, fresh] = claims.emplace(r.target, Claim{flag, path});
  if (fresh || (found->second.flag == flag && found->second.path == path)) return;
  throw InputError(fmt::format("is the same file as {} {}; two outputs on one path would lose "
                               "one; give each its own path",
                               found->second.flag, found->second.path),
                   where(flag, path));
}

/// `<name>.<pid>-<n>-<random>.partial` beside `target`: unique to this
/// process (pid), to this call (n) and to this host (random, for two nodes
/// writing into one NFS home).
std::string temp_name(const std::string& target) {
  static std::atomic<unsigned> counter{0};
  std::random_device device;
  const auto noise = static_cast<unsigned>(device());
  std::string name = name_of(target);
  if (name.size() > kLongestNamePrefix) name.resize(kLongestNamePrefix);
  return fmt::format("{}/{}.{}-{}-{:08x}.partial", folder_of(target), name,
                     static_cast<long>(::getpid()), ++counter, noise);
}

}  // namespace

// ---- AtomicFile ---------------------------------------------------------------

AtomicFile::AtomicFile(std::string path, std::string flag)
    : path_(std::move(path)), flag_(std::move(flag)) {
  const Resolved r = resolve(path_, flag_);
  claim(r, flag_, path_);
  target_ = r.target;
  existed_ = r.exists;
  if (existed_) {
    mode_ = static_cast<unsigned>(r.info.st_mode) & 07777U;
    uid_ = static_cast<long long>(r.info.st_uid);
    gid_ = static_cast<long long>(r.info.st_gid);
  }
  constexpr int kAttempts = 16;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::string name = temp_name(target_);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg)
    fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                 existed_ ? kTempMode : kNewFileMode);
    if (fd_ >= 0) {
      temp_ = std::move(name);
      return;
    }
    if (errno != EEXIST) break;
  }
  throw InputError(fmt::format("cannot create a file in {}: {}", folder_of(target_), reason(errno)),
                   where(flag_, path_));
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::fail(const std::string& what, int error) {
  discard();
  throw InputError(fmt::format("{}: {}; {}", what, reason(error),
                               existed_ ? "the old file is unchanged" : "nothing was written"),
                   where(flag_, path_));
}

void AtomicFile::write(std::string_view text) {
  if (fd_ < 0) throw InputError("written after it was closed", where(flag_, path_));
  while (!text.empty()) {
    const ssize_t wrote = ::write(fd_, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) fail("could not write it", wrote < 0 ? errno : EIO);
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw InputError("committed after it was closed", where(flag_, path_));
  if (existed_) {
    // The owner first: fchown clears set-user-ID bits, which fchmod then restores.
    const auto uid = static_cast<uid_t>(uid_);
    const auto gid = static_cast<gid_t>(gid_);
    if ((uid != ::geteuid() || gid != ::getegid()) && ::fchown(fd_, uid, gid) != 0) {
      if (errno != EPERM) fail("could not keep its owner", errno);
      (void)::fchown(fd_, static_cast<uid_t>(-1), gid);  // the group alone may be allowed
    }
    if (::fchmod(fd_, static_cast<mode_t>(mode_)) != 0) fail("could not keep its mode", errno);
  }
  // Errors a network file system reports late (quota, space) arrive here.
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("could not write it", errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 && errno != EINTR) fail("could not write it", errno);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    fail(fmt::format("could not replace {}", target_), errno);
  }
  temp_.clear();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
}

void check_output_path(const std::string& path, const std::string& flag) {
  claim(resolve(path, flag), flag, path);
}

void note_named_file(const std::string& flag, const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  NamedFiles& named = named_files();
  const std::lock_guard<std::mutex> hold(named.lock);
  named.by_id.emplace(id_of(info), NamedFile{flag, path});
}

void write_file_atomically(const std::string& path, std::string_view text,
                           const std::string& flag) {
  AtomicFile file(path, flag);
  file.write(text);
  file.commit();
}

// ---- standard output -----------------------------------------------------------

CheckedOutput::CheckedOutput(std::ostream& stream, int fd)
    : stream_(stream), previous_(stream.rdbuf()), fd_(fd), buffer_(kStdoutBuffer) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  stream_.rdbuf(this);
}

CheckedOutput::~CheckedOutput() {
  drain();
  stream_.rdbuf(previous_);
}

std::optional<std::string> CheckedOutput::finish() {
  stream_.flush();
  drain();
  if (error_ != 0) return reason(error_);
  return std::nullopt;
}

CheckedOutput::int_type CheckedOutput::overflow(int_type ch) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

int CheckedOutput::sync() { return drain() ? 0 : -1; }

bool CheckedOutput::drain() {
  const char* at = pbase();
  const char* const end = pptr();
  while (at < end && error_ == 0) {
    const ssize_t wrote = ::write(fd_, at, static_cast<std::size_t>(end - at));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      error_ = wrote < 0 ? errno : EIO;
      break;
    }
    at += wrote;
  }
  // What could not be written is dropped: the first failure is what counts.
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;  // NOLINT(*-vararg)
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg)
    const int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

}  // namespace tpnet
