// tpnet-calibrate counters: samples the RDMA port counters every --interval
// while a command runs (`-- CMD ARGS...`), for a --duration, or until SIGINT,
// writing the counters CSV that `tpnet traffic --samples` reads.

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate_command.hpp"
#include "child_process.hpp"
#include "counter_sampler.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"

namespace tpnet::calibrate {
namespace {

struct CountersOptions {
  std::vector<std::string> devices;
  std::string interval = "1ms";
  std::string duration;
  std::string sysfs_root = "/sys/class/infiniband";
  std::string out;
  std::vector<std::string> command;
  bool command_mark = false;  ///< `--` was given (with or without a command after it)
};

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
  if (o.command.empty() && o.command_mark) {
    throw InputError(
        "needs a command after it (-- CMD ARGS...); without one, leave out -- and give "
        "--duration, or none to sample until Ctrl-C",
        InputLocation::for_key("--"));
  }
  if (!o.command.empty() && (o.out.empty() || o.out == "-")) {
    throw InputError(
        "required with a command: the command's own output would mix with the CSV "
        "on stdout",
        InputLocation::for_key("--out"));
  }

  CounterSet counters(o.sysfs_root, o.devices);
  // Before the output exists: once its temporary file is there, a signal stops
  // cleanly. A --out that cannot be replaced is refused here, before CMD runs.
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
  if (end.write_failure) {
    output->discard();
  } else {
    // What was read before a device vanished is kept.
    try {
      output->finish();
    } catch (const InputError& error) {
      end.write_failure = error.what();
    }
  }
  const std::string where = output->to_stdout() ? "stdout" : output->name();
  std::cerr << fmt::format("tpnet-calibrate: counters: {}; {}\n",
                           report(end.stats, counters.ports().size()),
                           end.write_failure ? "wrote nothing" : "wrote " + where);
  if (end.write_failure) {
    std::cerr << fmt::format("tpnet-calibrate: error: {}\n", *end.write_failure);
  } else if (end.failure) {
    std::cerr << fmt::format(
        "tpnet-calibrate: measurement failed: counters: {}; stopped after {} reads, {} keeps "
        "them\n",
        *end.failure, end.stats.reads, where);
  }
  if ((end.failure || end.write_failure) && child && !child_exit) {
    std::cerr << fmt::format("tpnet-calibrate: counters: waiting for '{}' to finish\n",
                             o.command.front());
    child_exit = child->wait();
  }
  forward_signals_to(0);
  restore_stop_signals();
  // A command that failed is what a job script needs to see: its exit code
  // wins over ours. When it succeeded (or there is none), a CSV that could
  // not be written exits 2 and counters that could not be read exit 4.
  const int command_exit = child_exit.value_or(0);
  if (command_exit != 0) return command_exit;
  if (end.write_failure) return 2;
  if (end.failure) return kExitMeasurementFailed;
  return 0;
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
                  "CSV file, written beside it under a name unique to this run and renamed "
                  "over it at the end; must be a file path (default: stdout; required with a "
                  "command)");
  app->add_option("command", options->command,
                  "After --: the command to run, executed directly (no shell)");
  Subcommand command;
  command.app = app;
  command.run = [options, app] {
    // CLI11 keeps a `--` it met among the arguments it did not use.
    const std::vector<std::string> rest = app->remaining();
    options->command_mark = std::find(rest.begin(), rest.end(), "--") != rest.end();
    return run_counters(*options);
  };
  return command;
}

}  // namespace tpnet::calibrate
