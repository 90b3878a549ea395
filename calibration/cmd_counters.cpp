// tpnet-calibrate counters: samples the RDMA port counters every --interval
// while a command runs (`-- CMD ARGS...`), for a --duration, or until SIGINT,
// writing the counters CSV that `tpnet traffic --samples` reads.

#include <fmt/format.h>

#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate_command.hpp"
#include "child_process.hpp"
#include "counter_sampler.hpp"
#include "tpnet/error.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::calibrate {
namespace {

struct CountersOptions {
  std::vector<std::string> devices;
  std::string interval = "1ms";
  std::string duration;
  std::string sysfs_root = "/sys/class/infiniband";
  std::string out;
  std::vector<std::string> command;
};

double monotonic_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::string report(const SamplerStats& stats, std::size_t ports) {
  return fmt::format(
      "{} reads of {} port{} over {:.3f} s: interval mean {:.3f} ms, max {:.3f} ms, {} missed "
      "deadline{}",
      stats.reads, ports, ports == 1 ? "" : "s", stats.span_s, stats.mean_interval_s * 1e3,
      stats.max_interval_s * 1e3, stats.missed, stats.missed == 1 ? "" : "s");
}

int run_counters(const CountersOptions& o) {
  constexpr double kShortestInterval = 1e-5;
  constexpr double kLongestInterval = 3600.0;
  const double interval_s =
      parse_duration(o.interval, InputLocation::for_key("--interval")).value();
  if (interval_s < kShortestInterval || interval_s > kLongestInterval) {
    throw InputError(fmt::format("'{}' must lie between 10us and 1h", o.interval),
                     InputLocation::for_key("--interval"));
  }
  std::optional<double> duration_s;
  if (!o.duration.empty()) {
    duration_s = parse_duration(o.duration, InputLocation::for_key("--duration")).value();
  }
  if (duration_s && !o.command.empty()) {
    throw InputError("give a duration or a command after --, not both",
                     InputLocation::for_key("--duration"));
  }
  if (!o.command.empty() && (o.out.empty() || o.out == "-")) {
    throw InputError(
        "required with a command: the command's own output would mix with the CSV "
        "on stdout",
        InputLocation::for_key("--out"));
  }

  CounterSet counters(o.sysfs_root, o.devices);
  // Before the output exists: once OUT.partial is there, a signal stops cleanly.
  catch_stop_signals();
  std::optional<CsvOutput> output;
  try {
    output.emplace(o.out);
  } catch (...) {
    restore_stop_signals();
    throw;
  }
  output->write(counters_header(counters, interval_s));
  std::unique_ptr<ChildProcess> child;
  if (!o.command.empty()) {
    try {
      child = std::make_unique<ChildProcess>(o.command);
    } catch (...) {
      output->discard();
      restore_stop_signals();
      throw;
    }
    forward_signals_to(child->pid());
  }

  std::optional<int> child_exit;
  const double start = monotonic_seconds();
  auto stop = [&] {
    if (child) {
      child_exit = child->poll();
      return child_exit.has_value();
    }
    return stop_requested() != 0 || (duration_s && monotonic_seconds() - start >= *duration_s);
  };
  SamplerEnd end;
  try {
    end = sample_counters(counters, *output, interval_s, stop);
  } catch (const MeasurementError& error) {
    end.failure = error.what();
  }
  try {
    output->finish();
  } catch (const MeasurementError& error) {
    if (!end.failure) end.failure = error.what();
  }
  const std::string where = output->to_stdout() ? "stdout" : output->name();
  std::cerr << fmt::format("tpnet-calibrate: counters: {}; wrote {}\n",
                           report(end.stats, counters.ports().size()), where);
  if (end.failure) {
    std::cerr << fmt::format(
        "tpnet-calibrate: measurement failed: counters: {}; stopped after {} reads, {} keeps "
        "them\n",
        *end.failure, end.stats.reads, where);
    if (child && !child_exit) {
      std::cerr << fmt::format("tpnet-calibrate: counters: waiting for '{}' to finish\n",
                               o.command.front());
      child->wait();
    }
  }
  forward_signals_to(0);
  restore_stop_signals();
  if (end.failure) return kExitMeasurementFailed;
  return child_exit.value_or(0);
}

}  // namespace

Subcommand setup_counters(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "counters",
      "Sample the RDMA port counters (port_xmit_data, port_rcv_data) every --interval while a "
      "command runs (-- CMD ARGS..., exit code passed through), for --duration, or until "
      "Ctrl-C; writes the CSV `tpnet traffic --samples` reads.");
  auto options = std::make_shared<CountersOptions>();
  app->add_option("--device", options->devices,
                  "RDMA device to read, repeatable (default: every device under --sysfs-root)")
      ->delimiter(',');
  app->add_option("--interval", options->interval, "Time between reads: 1ms, 500us, ...")
      ->capture_default_str();
  app->add_option("--duration", options->duration,
                  "Sample for this long (10s, 2min) instead of around a command");
  app->add_option("--sysfs-root", options->sysfs_root,
                  "Where the RDMA devices are (tests give a fake tree)")
      ->capture_default_str();
  app->add_option("--out", options->out,
                  "CSV file, written as OUT.partial and renamed at the end (default: stdout; "
                  "required with a command)");
  app->add_option("command", options->command,
                  "After --: the command to run, executed directly (no shell)");
  Subcommand command;
  command.app = app;
  command.run = [options] { return run_counters(*options); };
  return command;
}

}  // namespace tpnet::calibrate
