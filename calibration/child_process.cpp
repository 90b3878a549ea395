#include "child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "tpnet/base/error.hpp"

namespace tpnet::calibrate {
namespace {

volatile std::sig_atomic_t g_child = 0;  // pid_t is an int, as sig_atomic_t is on Linux
volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int signal, siginfo_t* info, void* /*context*/) {
  const auto child = static_cast<pid_t>(g_child);
  if (child > 0) {
    // SI_KERNEL: the terminal's Ctrl-C, already delivered to the child's process group.
    if (info == nullptr || info->si_code != SI_KERNEL) ::kill(child, signal);
    return;
  }
  g_stop = signal;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 128;
}

}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_sigaction = &on_stop_signal;
  action.sa_flags = SA_SIGINFO;  // no SA_RESTART: a signal ends the sampler's sleep
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void forward_signals_to(pid_t child) {
  g_child = child;
  const int pending = g_stop;
  if (child > 0 && pending != 0) {
    g_stop = 0;
    ::kill(child, pending);  // arrived while the child was being started
  }
}

int stop_requested() { return g_stop; }

void restore_stop_signals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) throw InputError("no command given", InputLocation::for_key("--"));
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  // The child reports a failed exec through this pipe; a successful exec closes it.
  int report[2] = {-1, -1};
  if (::pipe2(report, O_CLOEXEC) != 0) {
    throw InputError(fmt::format("cannot start '{}': pipe: {}", argv[0], std::strerror(errno)),
                     InputLocation::for_key("--"));
  }
  // Blocked across fork: until exec, the child must neither run our handler
  // nor lose a signal meant for the command.
  sigset_t stop_signals;
  sigset_t previous;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop_signals, &previous);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::close(report[0]);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::execvp(args[0], args.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t wrote = ::write(report[1], &error, sizeof error);
    ::_exit(127);
  }
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  ::close(report[1]);
  if (pid_ < 0) {
    const int error = errno;
    ::close(report[0]);
    throw InputError(fmt::format("cannot start '{}': fork: {}", argv[0], std::strerror(error)),
                     InputLocation::for_key("--"));
  }
  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(report[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    wait();
    throw InputError(fmt::format("cannot run '{}': {}", argv[0], std::strerror(error)),
                     InputLocation::for_key("--"));
  }
}

std::optional<int> ChildProcess::poll() {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  int status = 0;
  pid_t done = 0;
  do {
    done = ::waitpid(pid_, &status, WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done == pid_) exit_code_ = exit_code_of(status);
  return exit_code_;
}

int ChildProcess::wait() {
  if (exit_code_) return *exit_code_;
  int status = 0;
  pid_t done = 0;
  do {
    done = ::waitpid(pid_, &status, 0);
  } while (done < 0 && errno == EINTR);
  exit_code_ = done == pid_ ? exit_code_of(status) : 128;
  return *exit_code_;
}

}  // namespace tpnet::calibrate
