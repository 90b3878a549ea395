#pragma once
/// Every range tpnet accepts, in one place (docs/hardening.md, "Arithmetic
/// limits"). They are far beyond any real cluster, model or measurement, and
/// narrow enough that every time, rate and byte count derived from them is
/// finite, exact enough in a double, and prints without an exponent. Readers
/// (flags, YAML, config.json, CSV) and the library's own checks use these
/// constants and nothing else.

#include <cstddef>
#include <cstdint>

#include "tpnet/base/units.hpp"

namespace tpnet {

// ---------------------------------------------------------------- quantities

inline constexpr double kMinBitsPerSecond = 1.0;   ///< 1 b/s
inline constexpr double kMaxBitsPerSecond = 1e16;  ///< 10 Pb/s (10000T)
inline constexpr double kMinSeconds = 1e-9;        ///< 1 ns
inline constexpr double kMaxSeconds = 3.6e8;       ///< 100,000 h, about 11 years
inline constexpr double kMinByteCount = 1.0;       ///< 1 B
inline constexpr double kMaxByteCount = 1e18;      ///< 10^18 B (1,000,000 TB)

/// The most tokens any token count may be: a count typed by a person, a prompt
/// mix in all, a prefill chunk, a long-prefill threshold, --max-model-len, a
/// sliding window, a sparse-attention top-k, a measured chunk. 128M = 2^27 =
/// 134,217,728, ten times the longest context window offered today.
inline constexpr TokenCount kMaxTokens = TokenCount{1} << 27;
/// The most prompt scenarios one run may take (--prompt values, a
/// baseline's rows, a workload's prompts): 10,000 take about 84 MB and 1 s.
inline constexpr std::size_t kMaxScenarios = 10000;
/// The most concurrent requests a prompt mix may name.
inline constexpr long long kMaxPromptRequests = 1000000;

/// A decode rate per request (an SLO, a measured TPS): 1 token in 1,000 s
/// to a million tokens/s.
inline constexpr double kMinTokensPerSecond = 1e-3;
inline constexpr double kMaxTokensPerSecond = 1e6;

/// The fastest a NIC counter may plausibly advance: 10 Tb/s, 25x a 400G port.
/// A faster step between two reads is a reset or a glitch, never traffic.
inline constexpr double kMaxCounterBitsPerSecond = 1e13;

// ---------------------------------------------------------------- layouts and engines

inline constexpr int kMaxTp = 1024;  ///< tensor-parallel size (and --min-tp's last try)
inline constexpr int kMaxEp = 4096;  ///< expert-parallel size
/// Running requests: max_num_seqs, requests per decode forward.
inline constexpr int kMaxRunningRequests = 1048576;
inline constexpr int kMaxSpeculativeTokens = 64;
inline constexpr int kMaxActivationBytes = 8;
inline constexpr int kMaxAllreducesPerLayer = 16;
inline constexpr int kMaxExtraAllreduces = 1024;
inline constexpr int kMaxNcclChannels = 64;               ///< NCCL's MAXCHANNELS
inline constexpr double kMaxNcclBuffsize = 1073741824.0;  ///< 1 GiB

// ---------------------------------------------------------------- clusters and outputs

/// The most nodes a cluster (tpnet plan, tpnet switch) may have.
inline constexpr int kMaxClusterNodes = 100000;
/// The most rows a compare grid may have; larger grids are refused with their count.
inline constexpr std::uint64_t kMaxCompareRows = 100000000;

// ---------------------------------------------------------------- model shapes

namespace model_limits {
inline constexpr long long kMaxHidden = 1 << 20;
inline constexpr long long kMaxLayers = 100000;
inline constexpr long long kMaxVocab = 100000000;
inline constexpr long long kMaxHeads = 65536;
inline constexpr long long kMaxWidth = 1 << 24;  ///< FFN widths, head sizes, low ranks
inline constexpr long long kMaxExperts = 1 << 20;
inline constexpr long long kMaxSharedExperts = 1024;
inline constexpr long long kMaxConvKernel = 1024;
inline constexpr long long kMaxMtpLayers = 64;
inline constexpr double kMaxParams = 1e15;
}  // namespace model_limits

}  // namespace tpnet
