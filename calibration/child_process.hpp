#pragma once
/// The command `tpnet-calibrate counters -- CMD ARGS...` samples around:
/// started with fork + execvp (no shell: each argument reaches CMD as
/// written), its exit code passed through, SIGINT/SIGTERM forwarded to it.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace tpnet::calibrate {

class ChildProcess {
 public:
  /// Starts `argv` (argv[0] looked up in PATH). A command that cannot be
  /// started (not found, not executable) throws tpnet::InputError naming it.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&&) = delete;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess() = default;

  /// Its exit code once it has ended (128 + signal when a signal killed it,
  /// as shells report it); nullopt while it runs. Never blocks.
  std::optional<int> poll();
  /// Waits for it to end; its exit code as poll() gives it.
  int wait();
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

/// Catches SIGINT and SIGTERM. While a child is registered with
/// forward_signals_to(), a signal sent to this process (kill, a job
/// scheduler) is passed on to it; one from the terminal is not, because the
/// terminal already sent it to the child too. Without a child the signal is
/// recorded for stop_requested().
void catch_stop_signals();
void forward_signals_to(pid_t child);
/// The SIGINT/SIGTERM received and not forwarded, or 0.
int stop_requested();
/// Puts SIGINT and SIGTERM back to their default actions.
void restore_stop_signals();

}  // namespace tpnet::calibrate
