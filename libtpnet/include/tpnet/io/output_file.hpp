#pragma once
/// Writing output files (--out, --svg) so that a reader never sees half a
/// file and a failed write never costs the old one, and standard output
/// whose failed writes are noticed. Used by tpnet and tpnet-calibrate alike;
/// the library itself never writes to standard output (docs/hardening.md,
/// "Output files and standard output").

#include <cstddef>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/error.hpp"

namespace tpnet {

/// A file written beside its target and renamed over it at commit().
///
/// - `path` is followed through symlinks: the file they lead to is
///   replaced, the links stay links.
/// - A target that exists and is not a regular file (a directory, device,
///   FIFO or socket) is refused: InputError "`flag` `path`: is a character
///   device, not a regular file; give a file path".
/// - The temporary file is created in the target's folder (so the rename
///   is atomic) under a name unique to this process and call:
///   `<name>.<pid>-<n>-<random>.partial`, opened with O_EXCL.
/// - A target owned by another user than this process's effective user
///   (root included) is refused: a shared folder lets anyone rename over
///   anyone's file, and tpnet replaces only its user's own.
/// - A symlink on the way that lies in a world-writable sticky folder (/tmp)
///   is followed only when this user or the folder's owner owns it (the
///   kernel's protected_symlinks rule, applied whether or not the machine
///   has it on). Symlinked folders higher up the path are not checked.
/// - A target that is a file this process read (read_text_file) or that
///   another flag names (note_named_file) is refused,
///   and so is a target another output already claimed (check_output_path
///   or another AtomicFile, under another flag or path): two outputs on one
///   path would lose one. The same flag and path again is the same output.
/// - An existing target's mode is kept, and its group where this process may
///   set it (fchown's EPERM is ignored); a new file gets 0666 less the umask.
/// - Any failure (create, write, fsync, close, rename) removes the temporary
///   file, leaves the target as it was, and throws InputError naming `flag`
///   and `path` with the system's reason ("No space left on device").
///
/// Destroying an AtomicFile that was not committed removes the temporary
/// file; a process killed outright leaves it behind under its unique name.
class AtomicFile {
 public:
  /// Resolves and checks `path` and creates the temporary file.
  AtomicFile(std::string path, std::string flag);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&&) = delete;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  /// Appends `text` to the temporary file (unbuffered: one write(2) loop).
  void write(std::string_view text);
  /// Sets the target's mode (and owner), fsyncs, closes and renames the
  /// temporary file over the target.
  void commit();
  /// Removes the temporary file; the target stays as it was.
  void discard() noexcept;

  /// As given by the user.
  [[nodiscard]] const std::string& path() const { return path_; }
  /// The file that will be replaced (`path` with symlinks followed).
  [[nodiscard]] const std::string& target() const { return target_; }
  /// The temporary file; empty once committed or discarded.
  [[nodiscard]] const std::string& temp_path() const { return temp_; }

 private:
  [[noreturn]] void fail(const std::string& what, int error);
  std::string path_;
  std::string flag_;
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool existed_ = false;
  unsigned mode_ = 0;
  long long uid_ = -1;
  long long gid_ = -1;
};

/// Refuses `path` for `flag` as AtomicFile would (a non-regular target, a
/// missing folder, another user's file, a planted link, an input, another
/// output's path) without creating anything, and claims the path for
/// `flag`: for checks made before work that should not start when the
/// output cannot be written.
void check_output_path(const std::string& path, const std::string& flag);

/// Notes that `flag` names the existing regular file `path` (nothing when
/// it names none), so that an output given under another flag that is the
/// same file is refused by check_output_path and AtomicFile before anything
/// is written: `--timeline base.csv --baseline base.csv`. The CLI notes
/// every flag's value before a command runs, not knowing which it reads.
void note_named_file(const std::string& flag, const std::string& path);

/// Writes `text` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view text, const std::string& flag);

/// A stream buffer for a program's standard output that writes to a file
/// descriptor with write(2) and remembers why the first failed write failed
/// (errno), so that main() can turn a lost output into an error instead of
/// exit 0. Installed into std::cout by the programs' main():
///
///     tpnet::CheckedOutput out(std::cout, STDOUT_FILENO);
///     ... run ...
///     if (auto why = out.finish()) { report "could not write to standard output: " + *why }
class CheckedOutput : public std::streambuf {
 public:
  /// Puts itself in `stream` (kept until destruction) and writes to `fd`.
  CheckedOutput(std::ostream& stream, int fd);
  CheckedOutput(const CheckedOutput&) = delete;
  CheckedOutput& operator=(const CheckedOutput&) = delete;
  CheckedOutput(CheckedOutput&&) = delete;
  CheckedOutput& operator=(CheckedOutput&&) = delete;
  ~CheckedOutput() override;

  /// Flushes; the reason the first failed write failed (strerror), or
  /// nullopt when everything written arrived.
  [[nodiscard]] std::optional<std::string> finish();

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  bool drain();
  std::ostream& stream_;
  std::streambuf* previous_;
  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

/// Makes sure file descriptors 0, 1 and 2 are open. One that is closed
/// (`tpnet models >&-`) gets /dev/null opened the other way round (stdout
/// and stderr read-only, stdin write-only), so using it still fails with
/// EBADF as a closed one would, and a file opened later never lands on it
/// (an output file would otherwise receive what was meant for stdout).
void reserve_standard_descriptors();

}  // namespace tpnet
