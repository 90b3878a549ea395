#include "allreduce_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

namespace tpnet::calibrate {

std::vector<long long> sweep_sizes(long long min_bytes, long long max_bytes, double factor) {
  std::vector<long long> sizes;
  long long size = min_bytes;
  while (size <= max_bytes) {
    sizes.push_back(size);
    const double next = std::floor(static_cast<double>(size) * factor);
    if (!(next < static_cast<double>(max_bytes) + 1.0)) break;
    // Whole bf16 elements, and always a step forward (a factor of 1.1 on 8 B).
    long long rounded = static_cast<long long>(next) / kBf16Bytes * kBf16Bytes;
    size = std::max(rounded, size + kBf16Bytes);
  }
  return sizes;
}

namespace {

constexpr int kMaxExactSum = 256;  // bf16 has 8 significant bits: integers to 256 are exact
constexpr int kMaxValue = 8;

int value_limit(int ranks) { return std::clamp(kMaxExactSum / std::max(ranks, 1), 1, kMaxValue); }

}  // namespace

int pattern_period(int ranks) { return value_limit(ranks) + 1; }

int pattern_value(int rank, int ranks, long long index) {
  if (rank >= kMaxExactSum) return 0;
  const long long period = pattern_period(ranks);
  return static_cast<int>((index % period * 7 + static_cast<long long>(rank) * 3) % period);
}

int expected_sum(int ranks, long long index) {
  int sum = 0;
  for (int rank = 0; rank < ranks; ++rank) sum += pattern_value(rank, ranks, index);
  return sum;
}

double algbw_gbps(long long bytes, double seconds) {
  return seconds > 0.0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

double busbw_gbps(long long bytes, double seconds, int ranks, Collective collective) {
  return ranks > 0 ? algbw_gbps(bytes, seconds) * ring_sent_factor(collective, ranks) : 0.0;
}

std::string sweep_command_name(Collective collective) {
  return collective == Collective::alltoall ? "alltoall" : "allreduce";
}

bool times_in_place(Collective collective) { return collective != Collective::alltoall; }

std::string rank_line(int rank, long pid, const std::string& host, int device,
                      const std::string& bus_id, const std::string& device_name) {
  return fmt::format("#  Rank {:2d} Group  0 Pid {:6d} on {:>10s} device {:2d} [{}] {}", rank, pid,
                     host, device, bus_id, device_name);
}

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out.empty() ? "unknown" : out;
}

/// nccl-tests' time column: fewer decimals as the time grows.
std::string time_cell(double seconds) {
  const double us = seconds * 1e6;
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string timing_cells(long long bytes, double seconds, const std::optional<long long>& wrong,
                         int ranks, Collective collective) {
  return fmt::format("  {}  {:6.2f}  {:6.2f}  {:>5s}", time_cell(seconds),
                     algbw_gbps(bytes, seconds), busbw_gbps(bytes, seconds, ranks, collective),
                     wrong ? std::to_string(*wrong) : std::string("N/A"));
}

}  // namespace

std::string sweep_header(const SweepProvenance& p, const std::vector<std::string>& ranks,
                         long long min_bytes, long long max_bytes, double factor, int warmup,
                         int iters, bool check) {
  const std::string command = sweep_command_name(p.collective);
  std::string out;
  out += fmt::format(
      "# tpnet-calibrate {} backend={} date={} hosts={} ranks={} nccl={} algo={} "
      "proto={} dtype=bf16 op={}\n",
      command, p.backend, p.date, joined(p.hosts), p.ranks, p.nccl, p.algo, p.proto,
      p.collective == Collective::all_reduce ? "sum" : "none");
  if (p.nccl_code > 0) out += fmt::format("# nccl-library={}\n", p.nccl_code);
  out += fmt::format("# Collective test starting: tpnet-calibrate {}\n", command);
  out += fmt::format(
      "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}(factor) warmup iters: {} iters: {} "
      "agg iters: 1 validation: {} graph: 0\n",
      min_bytes, max_bytes, factor, warmup, iters, check ? 1 : 0);
  out += "#\n# Using devices\n";
  for (const auto& line : ranks) out += line + "\n";
  out += "#\n";
  if (!times_in_place(p.collective)) {
    out +=
        "#                                                              out-of-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       \n";
    return out;
  }
  out +=
      "#                                                              out-of-place                "
      "       in-place          \n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)       \n";
  return out;
}

std::string sweep_row(const SweepRow& row, int ranks, Collective collective) {
  const long long elements = row.bytes / kBf16Bytes;
  const bool per_peer = count_is_per_rank(collective) && ranks > 0;
  std::string line = fmt::format("{:12d}  {:12d}  {:>8s}  {:>6s}  {:6d}", row.bytes,
                                 per_peer ? elements / ranks : elements, "bfloat16",
                                 collective == Collective::all_reduce ? "sum" : "none", -1);
  line += timing_cells(row.bytes, row.out_of_place_s, row.out_of_place_wrong, ranks, collective);
  if (times_in_place(collective)) {
    line += timing_cells(row.bytes, row.in_place_s, row.in_place_wrong, ranks, collective);
  }
  return line + "\n";
}

std::string sweep_footer(const std::vector<SweepRow>& rows, int ranks, Collective collective) {
  const bool in_place = times_in_place(collective);
  long long wrong = 0;
  double busbw_sum = 0.0;
  for (const auto& row : rows) {
    wrong += row.out_of_place_wrong.value_or(0) + row.in_place_wrong.value_or(0);
    busbw_sum += busbw_gbps(row.bytes, row.out_of_place_s, ranks, collective);
    if (in_place) busbw_sum += busbw_gbps(row.bytes, row.in_place_s, ranks, collective);
  }
  const double timings = (in_place ? 2.0 : 1.0) * static_cast<double>(rows.size());
  const double average = rows.empty() ? 0.0 : busbw_sum / timings;
  return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:.6g} \n#\n", wrong,
                     wrong == 0 ? "OK" : "FAILED", average);
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace tpnet::calibrate
