// nccl-tests all_reduce_perf output: the text table and the -J JSON file
// (util.cu of nccl-tests: results[] of {size, count, type, redop, root,
// out_of_place: {time, alg_bw, bus_bw, nwrong}, in_place: {...}}).

#include "tpnet/io/nccl_tests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "tpnet/base/quantity.hpp"
#include "tpnet/base/text.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

/// The most data rows a log may have. A sweep by factors of two from 8 B
/// to 16 GB has 32 rows, one by a fixed increment some thousands; every
/// row costs the reader and what reads the sweep hundreds of bytes (a
/// 91 MB log of 765,000 rows took 2.7 GB and 6.5 minutes in tpnet doctor).
constexpr std::size_t kMaxRows = 100000;

void require_room_for_a_row(const AllReduceSweep& sweep, const InputLocation& where) {
  if (sweep.samples.size() >= kMaxRows) {
    throw InputError(fmt::format("is data row {}; a log may have at most {} (a sweep has tens "
                                 "to thousands: is it many runs in one file?)",
                                 kMaxRows + 1, kMaxRows),
                     where);
  }
}

/// The first 256 words of a line: more than any line the reader looks at
/// uses, and a line of a hundred million words is not a hundred million strings.
std::vector<std::string> split_words(std::string_view line) {
  constexpr std::size_t kMostWords = 256;
  std::vector<std::string> words;
  std::size_t i = 0;
  while (words.size() < kMostWords) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

std::optional<double> to_number(const std::string& cell) {
  double value = 0.0;
  const char* begin = cell.data();
  const char* end = begin + cell.size();
  if (!cell.empty() && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// "22105" -> "2.21.5"; codes before 2.9 were major*1000 + minor*100 + patch.
std::string version_from_code(long long code) {
  if (code >= 20900) {
    return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
  }
  return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
}

void check_wrong(double wrong, const InputLocation& where, std::string_view which) {
  if (wrong != 0.0) {
    throw InputError(fmt::format("{} #wrong is {}: the all-reduce returned wrong values (a failed "
                                 "correctness check); fix the cluster before fitting timings",
                                 which, wrong),
                     where);
  }
}

/// Bytes per element of an nccl-tests data type; 0 when the name is unknown.
int element_bytes(std::string_view type) {
  if (type == "int8" || type == "uint8" || type == "char" || type == "f8e4m3" || type == "f8e5m2" ||
      type == "fp8") {
    return 1;
  }
  if (type == "half" || type == "bfloat16" || type == "bf16" || type == "float16" ||
      type == "fp16") {
    return 2;
  }
  if (type == "float" || type == "float32" || type == "int32" || type == "uint32" ||
      type == "int") {
    return 4;
  }
  if (type == "double" || type == "float64" || type == "int64" || type == "uint64") return 8;
  return 0;
}

/// An element count as the file states it: a whole number from 0 to 10^18 (a
/// larger one cannot be a buffer, and would not fit a 64-bit count).
long long element_count(double value, const InputLocation& where) {
  if (!(value >= 0.0 && value <= 1e18) || std::floor(value) != value) {
    throw InputError(
        fmt::format("count {} is not a whole number of elements from 0 to 10^18", value), where);
  }
  return static_cast<long long>(value);
}

/// What a row's redop and root columns say, kept until the whole log is read.
struct RowColumns {
  std::string redop;  ///< "sum", "none", ... ("" when the header has no redop)
  std::string root;   ///< "-1", "0", ... ("" when the header has no root)
};

/// size / (count x element size): 1 when count is the whole buffer, the rank
/// count when it is one rank's share; 0 when the row cannot say.
double count_ratio(const AllReduceSample& s) {
  const int bytes = element_bytes(s.type);
  if (bytes == 0 || s.count <= 0) return 0.0;
  return s.size.count() / (static_cast<double>(s.count) * bytes);
}

/// The collective from the columns of the rows: per-rank counts, redop and
/// root, and for all_reduce against sendrecv the busbw / algbw ratio.
Collective collective_from_columns(const AllReduceSweep& sweep,
                                   const std::vector<RowColumns>& columns, int per_rank,
                                   std::vector<std::string>& notes) {
  const RowColumns& first = columns.front();
  const bool reduces = !first.redop.empty() && first.redop != "none";
  const bool rooted = !first.root.empty() && first.root != "-1";
  if (per_rank > 1) {
    if (reduces) return Collective::reduce_scatter;
    notes.push_back(fmt::format(
        "{}: the columns (redop none, count one rank's share) read as all_gather; alltoall "
        "prints the same, and its bus bandwidth means the same",
        sweep.origin));
    return Collective::all_gather;
  }
  if (rooted) return reduces ? Collective::reduce : Collective::broadcast;
  if (first.redop == "none") return Collective::sendrecv;
  // all_reduce and sendrecv print the same columns; their busbw / algbw
  // ratios are 2(n-1)/n and 1.
  // The ratio of the row with the highest algbw, and only from 1 GB/s up:
  // below it the two printed decimals (0.01 GB/s) say nothing of a ratio
  // (a loopback timed by scheduling prints 0.02 and 0.03).
  const int n = sweep.ranks;
  double ratio = 0.0;
  const AllReduceSample* best = nullptr;
  for (const auto& s : sweep.samples) {
    if (!best || s.out_of_place.algbw > best->out_of_place.algbw) best = &s;
  }
  if (best != nullptr && best->out_of_place.algbw.bits_per_second() >= 8e9) {
    ratio = best->out_of_place.busbw / best->out_of_place.algbw;
  }
  if (n > 2 && ratio > 0.0 &&
      std::fabs(ratio - 1.0) < std::fabs(ratio - ring_sent_factor(Collective::all_reduce, n))) {
    return Collective::sendrecv;
  }
  // At 2 ranks the two cannot be told apart, and their bus bandwidths agree.
  return Collective::all_reduce;
}

/// How a log's rank count is known: stated outright (NCCL's nranks, the
/// launcher, -J's device list), from rank lines 0..n-1 (which a copy may
/// have cut at the end), or derived (lines left out, or none).
enum class RankCount { stated, listed, derived };

/// The rank count the busbw / algbw ratio gives (2(n-1)/n for all_reduce,
/// (n-1)/n for all_gather, ...), once the collective is settled: the count
/// most rows from 1 GB/s up give (below it the two printed decimals say
/// nothing of a ratio), so that one edited row cannot set it; 0 when no row
/// can say.
int ranks_from_bandwidths(const AllReduceSweep& sweep) {
  std::map<int, int> votes;
  for (const auto& s : sweep.samples) {
    if (s.out_of_place.algbw.bits_per_second() < 8e9) continue;  // under 1 GB/s
    const double ratio = s.out_of_place.busbw / s.out_of_place.algbw;
    double n = 0.0;
    if (sweep.collective == Collective::all_reduce && ratio < 1.999) {
      n = 2.0 / (2.0 - ratio);
    } else if (count_is_per_rank(sweep.collective) && ratio < 0.999) {
      n = 1.0 / (1.0 - ratio);
    }
    const double whole = std::round(n);
    if (whole < 2 || whole > 1e5 || std::fabs(n - whole) > 0.02 * whole) continue;
    // A ratio of 1 read from the columns alone is all_reduce on 2 ranks or
    // sendrecv on any: no answer.
    if (whole == 2 && sweep.collective == Collective::all_reduce &&
        sweep.collective_from == "the columns") {
      continue;
    }
    // The ratio must come back within the printed rounding.
    if (std::fabs(ring_sent_factor(sweep.collective, static_cast<int>(whole)) - ratio) >
        0.01 * ratio) {
      continue;
    }
    ++votes[static_cast<int>(whole)];
  }
  int best = 0;
  int most = 0;
  for (const auto& [n, count] : votes) {
    if (count > most) {
      most = count;
      best = n;
    }
  }
  return best;
}

/// Refuses a row whose bandwidth columns contradict its size and time:
/// algbw is size / time and busbw is algbw x the collective's factor
/// (nccl-tests' PERFORMANCE.md). Both are printed to 0.01 GB/s from a time
/// printed to 3-4 significant digits, so a printed column is within 0.01
/// GB/s + 1% of its recomputed value; a column further off was edited or
/// comes from another run, and judging the fabric by it would be a guess.
///
/// A busbw that disagrees only with a rank count neither the log states nor
/// its rows agree on is not the row's fault: a warning.
void check_bandwidth_columns(AllReduceSweep& sweep, bool count_settled) {
  constexpr double kAbsoluteGbs = 0.01;
  constexpr double kRelative = 0.01;
  const double factor = sweep.ranks >= 2 ? ring_sent_factor(sweep.collective, sweep.ranks) : 0.0;
  bool busbw_off_derived_count = false;
  auto check = [&](const AllReduceSample& s, const AllReduceTiming& t, std::string_view which) {
    const double algbw = s.size.count() / t.time.value() / 1e9;
    const double printed_algbw = t.algbw.bits_per_second() / 8e9;
    const double printed_busbw = t.busbw.bits_per_second() / 8e9;
    if (std::fabs(printed_algbw - algbw) > kAbsoluteGbs + kRelative * algbw) {
      throw InputError(
          fmt::format("{} algbw {:.2f} GB/s is not size / time = {} B / {:.6g} us = {:.2f} GB/s: "
                      "the row's columns contradict each other",
                      which, printed_algbw, s.size.count(), t.time.value() * 1e6, algbw),
          s.source);
    }
    if (factor > 0.0 &&
        std::fabs(printed_busbw - algbw * factor) > kAbsoluteGbs + kRelative * algbw * factor) {
      if (!count_settled) {
        busbw_off_derived_count = true;
        return;
      }
      throw InputError(
          fmt::format("{} busbw {:.2f} GB/s is not size / time x {:.4g} ({}, {} ranks) = {:.2f} "
                      "GB/s: the row's columns contradict each other",
                      which, printed_busbw, factor, to_string(sweep.collective), sweep.ranks,
                      algbw * factor),
          s.source);
    }
  };
  for (const auto& s : sweep.samples) {
    check(s, s.out_of_place, "out-of-place");
    if (s.in_place) check(s, *s.in_place, "in-place");
  }
  if (busbw_off_derived_count) {
    sweep.notes.push_back(fmt::format(
        "{}: the busbw column is not {}'s factor at the {} ranks tpnet counted, and the log "
        "does not state its rank count; the bus bandwidth is read as printed, and `ranks` N "
        "gives the count",
        sweep.origin, to_string(sweep.collective), sweep.ranks));
  }
}

/// Settles which collective the log measured and checks every row against
/// it: size = count x element size, times the ranks where count is one
/// rank's share. A log without `#  Rank` lines gets its rank count from there.
void settle_collective(AllReduceSweep& sweep, const std::vector<RowColumns>& columns,
                       std::optional<Collective> from_header, const NcclTestsReadOptions& options,
                       RankCount how) {
  // The ratio most rows share: one corrupt row must not turn the log into
  // another collective.
  std::map<int, int> votes;
  for (const auto& s : sweep.samples) {
    const double ratio = count_ratio(s);
    if (ratio >= 1.0 && std::floor(ratio) == ratio && ratio <= 1e6) {
      ++votes[static_cast<int>(ratio)];
    }
  }
  int per_rank = 0;
  int most = 0;
  for (const auto& [ratio, count] : votes) {
    if (count > most) {
      most = count;
      per_rank = ratio;
    }
  }
  if (options.collective) {
    sweep.collective = *options.collective;
    sweep.collective_from = "asked";
    if (from_header && *from_header != *options.collective) {
      sweep.notes.push_back(fmt::format("{} says it ran {}; read as {}, as asked", sweep.origin,
                                        to_string(*from_header), to_string(*options.collective)));
    }
  } else if (from_header) {
    sweep.collective = *from_header;
    sweep.collective_from = "the log's header";
  } else {
    sweep.collective = collective_from_columns(sweep, columns, per_rank, sweep.notes);
    sweep.collective_from = "the columns";
  }
  const bool shared = count_is_per_rank(sweep.collective);
  if (shared && sweep.ranks == 0 && per_rank > 1) {
    sweep.ranks = per_rank;
    sweep.notes.push_back(
        fmt::format("{} lists no '#  Rank' lines; {} ranks from its size and count columns",
                    sweep.origin, per_rank));
  }
  if (sweep.ranks == 0) {
    if (const int n = ranks_from_bandwidths(sweep); n > 0) {
      sweep.ranks = n;
      sweep.notes.push_back(
          fmt::format("{} lists no '#  Rank' lines; {} ranks from its busbw / algbw ratio ({})",
                      sweep.origin, n, to_string(sweep.collective)));
    }
  }
  // The busbw / algbw ratio is the factor nccl-tests computed busbw with, so
  // it holds the rank count the run had: where the count was only derived,
  // a different count from the ratio wins, and the log says why.
  const int by_ratio = sweep.ranks >= 2 ? ranks_from_bandwidths(sweep) : 0;
  if (how != RankCount::stated && sweep.ranks >= 2) {
    if (by_ratio > 0 && by_ratio != sweep.ranks) {
      sweep.notes.push_back(fmt::format(
          "{}: {} ranks counted from its '#  Rank' lines, but its busbw / algbw ratio is {}'s "
          "at {} ranks; read as {} ranks (`ranks` N overrides)",
          sweep.origin, sweep.ranks, to_string(sweep.collective), by_ratio, by_ratio));
      sweep.ranks = by_ratio;
    }
  }
  const int multiple = shared ? sweep.ranks : 1;
  for (const auto& s : sweep.samples) {
    const int bytes = element_bytes(s.type);
    if (bytes == 0 || s.count <= 0 || multiple == 0) continue;
    const double expected = static_cast<double>(s.count) * bytes * multiple;
    if (s.size.count() != expected) {
      InputLocation where = s.source;
      where.key = "size";
      throw InputError(
          fmt::format("size {} B is not count {} x {} B ({}){}: the element count does not "
                      "match the buffer of {}{}",
                      s.size.count(), s.count, bytes, s.type,
                      shared ? fmt::format(" x {} ranks", multiple) : "",
                      to_string(sweep.collective),
                      std::fmod(s.size.count(), bytes) != 0.0
                          ? fmt::format(", which is not a multiple of {} B", bytes)
                          : ""),
          where);
    }
  }
  // A count the log states, or one its rows agree on, makes a row that
  // disagrees an edit: refused. A count only derived is not the row's fault.
  check_bandwidth_columns(sweep, how == RankCount::stated || by_ratio == sweep.ranks ||
                                     (how == RankCount::listed && by_ratio == 0));
}

/// `# tpnet-calibrate allreduce|alltoall backend=mpi date=... hosts=h1,h2 ...`: its key=value
/// words.
void read_provenance(const std::vector<std::string>& words, AllReduceSweep& sweep) {
  for (std::size_t i = 2; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq == std::string::npos || eq == 0) continue;
    sweep.provenance[words[i].substr(0, eq)] = words[i].substr(eq + 1);
  }
}

/// One timing from the file's microseconds and GB/s, within tpnet's
/// arithmetic limits (docs/hardening.md): beyond them a later product (bytes x
/// 8 / bandwidth, the fit's sums) is no longer finite. A bandwidth may be 0, as
/// nccl-tests prints for tiny sizes.
AllReduceTiming make_timing(double time_us, double algbw_gbs, double busbw_gbs,
                            const InputLocation& where, std::string_view which) {
  if (!(time_us > 0.0)) {
    throw InputError(fmt::format("{} time must be positive", which), where);
  }
  if (time_us < kMinSeconds * 1e6 || time_us > kMaxSeconds * 1e6) {
    throw InputError(fmt::format("{} time {} us is outside 0.001 us to 100,000 h", which, time_us),
                     where);
  }
  constexpr double kMaxGigabytesPerSecond = kMaxBitsPerSecond / 8e9;
  for (const auto& [name, gbs] : {std::pair{"algbw", algbw_gbs}, std::pair{"busbw", busbw_gbs}}) {
    if (gbs < 0.0) {
      throw InputError(fmt::format("{} {} must not be negative", which, name), where);
    }
    if (gbs > kMaxGigabytesPerSecond) {
      throw InputError(
          fmt::format("{} {} {} GB/s is above 1,250,000 GB/s (10 Pb/s)", which, name, gbs), where);
    }
  }
  AllReduceTiming t;
  t.time = Seconds::microseconds(time_us);
  t.algbw = BitRate::gigabytes_per_second(algbw_gbs);
  t.busbw = BitRate::gigabytes_per_second(busbw_gbs);
  return t;
}

/// A buffer size as the file states it: a whole number of bytes up to 10^18.
Bytes buffer_size(double value, const InputLocation& where, std::string_view empty_message) {
  if (value == 0.0) throw InputError(std::string(empty_message), where);
  if (!(value >= kMinByteCount) || value > kMaxByteCount || std::floor(value) != value) {
    throw InputError(fmt::format("{} B is not a whole number of bytes from 1 to 10^18", value),
                     where);
  }
  return Bytes(value);
}

// ---- text ---------------------------------------------------------------

/// A line without the prefix a launcher adds to each rank's output:
/// `srun --label` writes "0: ", `mpirun --tag-output` "[1,0]<stdout>:".
std::string_view without_launcher_prefix(std::string_view line) {
  std::size_t k = 0;
  while (k < line.size() && line[k] == ' ') ++k;
  if (k < line.size() && line[k] == '[') {
    const std::size_t close = line.find("]<std", k);
    const std::size_t colon = close == std::string_view::npos ? close : line.find(">:", close);
    if (colon != std::string_view::npos) return line.substr(colon + 2);
    return line;
  }
  std::size_t digits = k;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
  if (digits > k && digits + 1 < line.size() && line[digits] == ':' && line[digits + 1] == ' ') {
    return line.substr(digits + 2);
  }
  return line;
}

/// What a text log says of its rank count: the `#  Rank` lines (a launcher
/// may print only some, e.g. ranks 0, 7, 8 and 15 of 16), and a count stated
/// outright by NCCL ("nranks 16") or the launcher (SLURM_NTASKS=16).
struct RankEvidence {
  int listed = 0;
  int highest_index = -1;
  int stated = 0;
  std::string stated_by;
};

/// A count stated on `line`, if any: NCCL INFO's "nranks N", or N in
/// SLURM_NTASKS=N, SLURM_NPROCS=N, OMPI_COMM_WORLD_SIZE=N or #SBATCH
/// --ntasks=N. True when the line was such a statement.
bool read_stated_ranks(std::string_view line, RankEvidence& evidence) {
  static constexpr std::array<std::string_view, 5> kKeys{
      "SLURM_NTASKS=", "SLURM_NPROCS=", "OMPI_COMM_WORLD_SIZE=", "--ntasks=", " nranks "};
  for (const std::string_view key : kKeys) {
    const auto at = line.find(key);
    if (at == std::string_view::npos) continue;
    if (key == " nranks " && line.find("NCCL INFO") == std::string_view::npos) continue;
    std::string_view digits = line.substr(at + key.size());
    while (!digits.empty() && digits.front() == ' ') digits.remove_prefix(1);
    int n = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc{} || n < 1 || n > 1000000) continue;
    if (n > evidence.stated) {
      evidence.stated = n;
      std::string_view name = key;
      while (!name.empty() && (name.back() == '=' || name.back() == ' ')) name.remove_suffix(1);
      while (!name.empty() && (name.front() == ' ' || name.front() == '-')) name.remove_prefix(1);
      evidence.stated_by = std::string(name);
    }
    return true;
  }
  return false;
}

/// Sets sweep.ranks from the evidence and says how sure the count is.
RankCount apply_rank_evidence(AllReduceSweep& sweep, const RankEvidence& e) {
  const int by_index = e.highest_index + 1;
  if (e.stated > 0) {
    sweep.ranks = e.stated;
    if (e.listed > 0 && std::max(e.listed, by_index) != e.stated) {
      sweep.notes.push_back(
          fmt::format("{}: {} says {} ranks; its rank lines show {} (highest index {}); read as {}",
                      sweep.origin, e.stated_by, e.stated, e.listed, e.highest_index, e.stated));
    }
    return RankCount::stated;
  }
  sweep.ranks = std::max(e.listed, by_index);
  if (by_index > e.listed) {
    sweep.notes.push_back(fmt::format(
        "{} lists {} '#  Rank' lines with indices up to {}: read as {} ranks (the launcher left "
        "lines out)",
        sweep.origin, e.listed, e.highest_index, by_index));
    return RankCount::derived;
  }
  return e.listed > 0 ? RankCount::listed : RankCount::derived;
}

struct Layout {
  std::size_t lead = 0;  ///< columns before the first time column
  int line = 0;
};

AllReduceSweep parse_text(std::string_view text, const std::string& origin,
                          const NcclTestsReadOptions& options) {
  AllReduceSweep sweep;
  sweep.origin = origin;
  std::optional<Layout> layout;
  std::optional<Collective> header_collective;
  // What a `# tpnet-calibrate alltoall` line says, where no nccl-tests header names one.
  std::optional<Collective> calibrate_collective;
  std::set<std::string> hosts_seen;
  std::vector<RowColumns> columns;
  int empty_rows = 0;
  bool footer = false;
  // A row cut off by a killed run; allowed only as the last row of a partial sweep.
  std::optional<InputError> cut_row;
  RankEvidence ranks;
  int line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++line_number;
    line = without_launcher_prefix(line);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
      line.remove_prefix(1);
    const InputLocation where = InputLocation::in_file(origin, line_number);
    if (!line.empty() && line.front() == '#') {
      const std::string_view body = line.substr(1);
      const auto words = split_words(body);
      if (words.size() >= 4 && words[0] == "Collective" && words[1] == "test" &&
          words[2] == "starting:") {
        header_collective = collective_from_name(words[3]);
      } else if (!words.empty() && words[0] == "Rank") {
        ++ranks.listed;
        if (words.size() >= 2) {
          int index = -1;
          const auto [ptr, ec] =
              std::from_chars(words[1].data(), words[1].data() + words[1].size(), index);
          if (ec == std::errc{} && ptr == words[1].data() + words[1].size() && index >= 0) {
            ranks.highest_index = std::max(ranks.highest_index, index);
          }
        }
        const auto on = std::find(words.begin(), words.end(), "on");
        // A set beside the list: a million rank lines are not a million searches of it.
        if (on != words.end() && on + 1 != words.end() && hosts_seen.insert(*(on + 1)).second) {
          sweep.hosts.push_back(*(on + 1));
        }
        // "... device  0 [0000:8f:00] NVIDIA B200": the GPU's name follows the bus id.
        if (const auto bus = body.find("] "); sweep.gpu.empty() && bus != std::string_view::npos) {
          sweep.gpu = std::string(trim_space(body.substr(bus + 2)));
        }
      } else if (words.size() >= 2 && words[0] == "tpnet-calibrate" &&
                 (words[1] == "allreduce" || words[1] == "alltoall")) {
        read_provenance(words, sweep);
        // Its columns read as all_gather's: the line tells the all-to-all apart.
        if (words[1] == "alltoall") calibrate_collective = Collective::alltoall;
      } else if (const auto at = body.find("nccl-library="); at != std::string_view::npos) {
        long long code = 0;
        const std::string_view digits = body.substr(at + 13);
        const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
        if (ec == std::errc{} && code > 0) sweep.nccl_version = version_from_code(code);
      } else if (words.size() >= 3 && words[0] == "NCCL" && words[1] == "version") {
        sweep.nccl_version = words[2].substr(0, words[2].find('+'));
      } else if (body.find("Avg bus bandwidth") != std::string_view::npos) {
        if (cut_row) throw InputError(*cut_row);
        footer = true;
      } else if (words.size() >= 3 && words[0] == "size" && words[1] == "count") {
        const auto first_time = std::find_if(words.begin(), words.end(), [](const auto& w) {
          return w == "time" || w == "cputime";
        });
        if (first_time == words.end()) {
          throw InputError("has a size/count header but no time column", where);
        }
        layout = Layout{static_cast<std::size_t>(first_time - words.begin()), line_number};
      }
    } else if (read_stated_ranks(line, ranks)) {
      // a launcher's or NCCL's statement of the rank count; nothing else on the line
    } else if (const auto using_network = line.find("NCCL INFO Using network ");
               using_network != std::string_view::npos && sweep.network.empty()) {
      sweep.network = std::string(trim_space(line.substr(using_network + 24)));
    } else if (const auto banner = line.find("NCCL version ");
               banner != std::string_view::npos && sweep.nccl_version.empty()) {
      // NCCL's own banner ("NCCL version 2.26.6+cuda12.8", also inside
      // NCCL INFO logging): the version, less its CUDA suffix.
      const auto words = split_words(line.substr(banner + 13));
      if (!words.empty()) sweep.nccl_version = words[0].substr(0, words[0].find('+'));
    } else if (!line.empty() && line.front() >= '0' && line.front() <= '9') {
      if (!layout) {
        throw InputError(
            "is a data row before the '# size count type ... time algbw busbw #wrong' header",
            where);
      }
      if (footer) {
        throw InputError("is a data row after the '# Avg bus bandwidth' footer", where);
      }
      if (cut_row) throw InputError(*cut_row);
      const auto cells = split_words(line);
      const std::size_t lead = layout->lead;
      // A killed run may leave its last row half written: with allow_truncated
      // it is dropped, unless another row follows.
      auto cut_off = [&](const std::string& message) {
        if (!options.allow_truncated) throw InputError(message, where);
        cut_row = InputError(message, where);
      };
      if (cells.size() < lead + 4) {
        cut_off(
            fmt::format("has {} cells; the header at line {} needs at least {} (the log "
                        "looks truncated)",
                        cells.size(), layout->line, lead + 4));
      } else if (cells.size() > lead + 4 && cells.size() < lead + 8) {
        cut_off(
            fmt::format("has {} cells: the in-place columns are cut off (the log looks "
                        "truncated)",
                        cells.size()));
      }
      if (cut_row) {
        if (end == std::string_view::npos) break;
        start = end + 1;
        continue;
      }
      auto number = [&](std::size_t i, std::string_view column) {
        const auto value = to_number(cells[i]);
        if (!value) {
          throw InputError(fmt::format("column {} is '{}', not a number", column, cells[i]),
                           InputLocation::in_file(origin, line_number, std::string(column)));
        }
        return *value;
      };
      auto timing = [&](std::size_t at, std::string_view which) {
        AllReduceTiming t = make_timing(number(at, "time"), number(at + 1, "algbw"),
                                        number(at + 2, "busbw"), where, which);
        if (cells[at + 3] != "N/A") {
          t.wrong = number(at + 3, "#wrong");
          check_wrong(*t.wrong, where, which);
        }
        return t;
      };
      if (number(0, "size") == 0.0) {
        // Some harnesses print size-0 rows: they time only the launch.
        ++empty_rows;
        if (end == std::string_view::npos) break;
        start = end + 1;
        continue;
      }
      AllReduceSample s;
      s.source = where;
      s.size = buffer_size(number(0, "size"), InputLocation::in_file(origin, line_number, "size"),
                           "size is 0");
      if (lead >= 2) {
        s.count =
            element_count(number(1, "count"), InputLocation::in_file(origin, line_number, "count"));
      }
      if (lead >= 3) s.type = cells[2];
      RowColumns row;
      if (lead >= 5) {
        row.redop = cells[3];
        row.root = cells[4];
      }
      columns.push_back(std::move(row));
      s.out_of_place = timing(lead, "out-of-place");
      if (cells.size() >= lead + 8) s.in_place = timing(lead + 4, "in-place");
      require_room_for_a_row(sweep, where);
      sweep.samples.push_back(std::move(s));
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (!layout) {
    throw InputError(
        "has no '# size count type ... time algbw busbw #wrong' header: not nccl-tests output, "
        "or its table was cut out",
        InputLocation::in_file(origin));
  }
  if (sweep.samples.empty()) {
    throw InputError(empty_rows > 0 ? "has only rows of size 0, which time nothing but the launch"
                                    : "has a header but no data rows",
                     InputLocation::in_file(origin, layout->line));
  }
  if (empty_rows > 0) {
    sweep.notes.push_back(fmt::format("{}: {} row(s) of size 0 skipped (they time only the launch)",
                                      origin, empty_rows));
  }
  const RankCount how = apply_rank_evidence(sweep, ranks);
  settle_collective(sweep, columns, header_collective ? header_collective : calibrate_collective,
                    options, how);
  if (cut_row) {
    sweep.notes.push_back(
        fmt::format("{}: the last row is cut off (a killed run); left out", cut_row->what()));
  }
  if (!footer) {
    if (!options.allow_truncated) {
      throw InputError(
          "ends without the '# Avg bus bandwidth' footer: the log is truncated (did the run "
          "stop?); `partial` reads the rows it has",
          InputLocation::in_file(origin, line_number));
    }
    sweep.complete = false;
    sweep.notes.push_back(fmt::format(
        "{} ends without the '# Avg bus bandwidth' footer: a partial sweep of {} size(s), up to "
        "{} B",
        origin, sweep.samples.size(), sweep.samples.back().size.count()));
  }
  if (sweep.nccl_version.empty()) {
    const auto nccl = sweep.provenance.find("nccl");
    if (nccl != sweep.provenance.end() && nccl->second != "none") {
      sweep.nccl_version = nccl->second;
    }
  }
  return sweep;
}

// ---- JSON ---------------------------------------------------------------

double json_number(const YAML::Node& map, const std::string& origin, std::string_view key) {
  const YAML::Node v = map[std::string(key)];
  if (!v || v.IsNull()) {
    throw InputError("required key is missing", yaml::where(v ? v : map, origin, key));
  }
  const auto value = v.IsScalar() ? to_number(v.Scalar()) : std::nullopt;
  if (!value) {
    throw InputError(fmt::format("is '{}', not a number", v.IsScalar() ? v.Scalar() : "?"),
                     yaml::where(v, origin, key));
  }
  return *value;
}

AllReduceTiming json_timing(const YAML::Node& node, const std::string& origin,
                            std::string_view which) {
  yaml::require_map(node, origin, which);
  const bool cpu = !node["time"] && node["cpu_time"];
  const InputLocation where = yaml::where(node, origin, std::string(which));
  AllReduceTiming t = make_timing(json_number(node, origin, cpu ? "cpu_time" : "time"),
                                  json_number(node, origin, "alg_bw"),
                                  json_number(node, origin, "bus_bw"), where, which);
  const YAML::Node wrong = node["nwrong"];
  if (wrong && !wrong.IsNull()) {
    t.wrong = json_number(node, origin, "nwrong");
    check_wrong(*t.wrong, yaml::where(wrong, origin, std::string(which) + ".nwrong"), which);
  }
  return t;
}

AllReduceSweep parse_json(std::string_view text, const std::string& origin,
                          const NcclTestsReadOptions& options) {
  const YAML::Node root = yaml::load_document(text, origin, yaml::Syntax::json);
  std::vector<RowColumns> columns;
  yaml::require_map(root, origin, "an nccl-tests -J result");
  AllReduceSweep sweep;
  sweep.origin = origin;
  const YAML::Node results = root["results"];
  if (!results || !results.IsSequence()) {
    throw InputError("has no results list: not an nccl-tests -J file, or the run stopped early",
                     yaml::where(root, origin, "results"));
  }
  if (const YAML::Node v = root["nccl_version"]; v && v.IsScalar()) {
    if (const auto code = to_number(v.Scalar()); code && *code > 0 && *code < 1e9) {
      sweep.nccl_version = version_from_code(static_cast<long long>(*code));
    }
  }
  if (const YAML::Node config = root["config"]; config && config.IsMap()) {
    if (const YAML::Node devices = config["devices"]; devices && devices.IsSequence()) {
      sweep.ranks = static_cast<int>(devices.size());
    }
  }
  for (const YAML::Node& r : results) {
    yaml::require_map(r, origin, "a results entry");
    AllReduceSample s;
    s.source = yaml::where(r, origin, "");
    s.size = buffer_size(json_number(r, origin, "size"), yaml::where(r["size"], origin, "size"),
                         "is 0: an empty all-reduce measures only the launch");
    if (r["count"]) {
      s.count =
          element_count(json_number(r, origin, "count"), yaml::where(r["count"], origin, "count"));
    }
    if (r["type"] && r["type"].IsScalar()) s.type = r["type"].Scalar();
    RowColumns row;
    if (r["redop"] && r["redop"].IsScalar()) row.redop = r["redop"].Scalar();
    if (r["root"] && r["root"].IsScalar()) {
      // nccl-tests writes the root padded ("    -1"): the text table's cell.
      const auto words = split_words(r["root"].Scalar());
      if (!words.empty()) row.root = words.front();
    }
    columns.push_back(std::move(row));
    const YAML::Node oop = r["out_of_place"];
    if (!oop || oop.IsNull()) {
      throw InputError("required key is missing", yaml::where(r, origin, "out_of_place"));
    }
    s.out_of_place = json_timing(oop, origin, "out_of_place");
    if (const YAML::Node ip = r["in_place"]; ip && !ip.IsNull()) {
      s.in_place = json_timing(ip, origin, "in_place");
    }
    require_room_for_a_row(sweep, yaml::where(r, origin, "results"));
    sweep.samples.push_back(std::move(s));
  }
  if (sweep.samples.empty()) {
    throw InputError("is an empty list", yaml::where(results, origin, "results"));
  }
  // `config.devices` lists every rank the run had.
  settle_collective(sweep, columns, std::nullopt, options,
                    sweep.ranks > 0 ? RankCount::stated : RankCount::derived);
  return sweep;
}

}  // namespace

AllReduceSweep parse_nccl_tests(std::string_view text, const std::string& origin,
                                const NcclTestsReadOptions& options) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError("is empty; expected all_reduce_perf output", InputLocation::in_file(origin));
  }
  if (text[first] == '{') return parse_json(text, origin, options);
  return parse_text(text, origin, options);
}

AllReduceSweep load_nccl_tests(const std::string& path, const NcclTestsReadOptions& options) {
  return parse_nccl_tests(read_text_file(path), path, options);
}

}  // namespace tpnet
