#include "tpnet/measured/allreduce_fit.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "sent_bytes_fit.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

SentBytesFit fit_sent_bytes(const AllReduceSweep& sweep, double sent_factor,
                            const FitRange& range) {
  SentBytesFit fit;
  std::vector<const AllReduceSample*> used;
  std::set<double> sizes;
  for (const auto& s : sweep.samples) {
    const bool in = (!range.min_size || s.size >= *range.min_size) &&
                    (!range.max_size || s.size <= *range.max_size);
    if (in) {
      used.push_back(&s);
      sizes.insert(s.size.count());
    }
  }
  if (sizes.size() < 2) {
    throw InputError(fmt::format("has {} distinct size(s) in the range fitted; the alpha-beta fit "
                                 "needs at least 2",
                                 sizes.size()),
                     InputLocation::in_file(sweep.origin));
  }

  // Rows scaled by 1/t: minimises the sum of squared relative errors.
  const auto n = static_cast<Eigen::Index>(used.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& s = *used[static_cast<std::size_t>(i)];
    const double t = s.out_of_place.time.value();
    const double sent_bits = sent_factor * s.size.bits();
    a(i, 0) = 1.0 / t;
    a(i, 1) = sent_bits / t;
  }
  // Columns scaled to unit norm so the solve is well conditioned.
  const double c0 = a.col(0).norm();
  const double c1 = a.col(1).norm();
  a.col(0) /= c0;
  a.col(1) /= c1;
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  double alpha = x(0) / c0;
  double inverse_beta = x(1) / c1;
  if (alpha < 0.0 && inverse_beta > 0.0) {
    // A negative fixed time has no meaning: fit the transfer term alone
    // (alpha = 0), the least-squares optimum under alpha >= 0.
    const double unconstrained = alpha;
    double num = 0.0;
    double den = 0.0;
    for (const auto* s : used) {
      const double t = s->out_of_place.time.value();
      const double u = sent_factor * s->size.bits() / t;
      num += u;
      den += u * u;
    }
    alpha = 0.0;
    inverse_beta = num / den;
    fit.constrained = true;
    fit.warnings.push_back(fmt::format(
        "the unconstrained fit gives a negative fixed latency ({:.3g} us), which has no "
        "meaning; fitted with alpha = 0. The sizes fitted are too large for the latency to "
        "show: include smaller ones for alpha",
        unconstrained * 1e6));
  }
  if (!(inverse_beta > 0.0) || !std::isfinite(inverse_beta)) {
    throw InputError(
        "gives no positive bandwidth: the sizes fitted are too small for the transfer term to "
        "show; include larger sizes",
        InputLocation::in_file(sweep.origin));
  }
  fit.alpha = Seconds(alpha);
  fit.rate = BitRate(1.0 / inverse_beta);

  double sum_sq = 0.0;
  bool first = true;
  for (const auto& s : sweep.samples) {
    FitPoint p;
    p.size = s.size;
    p.measured = s.out_of_place.time;
    p.fitted = Seconds(alpha + sent_factor * s.size.bits() * inverse_beta);
    p.relative_error = (p.fitted - p.measured) / p.measured;
    p.algbw = s.out_of_place.algbw;
    p.busbw = s.out_of_place.busbw;
    p.in_range = (!range.min_size || s.size >= *range.min_size) &&
                 (!range.max_size || s.size <= *range.max_size);
    if (p.in_range) {
      sum_sq += p.relative_error * p.relative_error;
      fit.max_relative_error = std::max(fit.max_relative_error, std::fabs(p.relative_error));
      if (first || s.size < fit.min_size) fit.min_size = s.size;
      if (first || s.size > fit.max_size) fit.max_size = s.size;
      first = false;
      ++fit.points_used;
    }
    fit.curve.push_back(p);
  }
  fit.rms_relative_error = std::sqrt(sum_sq / fit.points_used);
  return fit;
}

AllReduceFit fit_allreduce(const AllReduceSweep& sweep, int ranks, const FitRange& range) {
  if (ranks < 2) {
    throw InputError(fmt::format("ranks is {}; an all-reduce sweep needs at least 2", ranks),
                     InputLocation::in_file(sweep.origin, 0, "ranks"));
  }
  AllReduceFit fit;
  fit.ranks = ranks;
  fit.collective = sweep.collective;
  fit.sent_factor = ring_sent_factor(sweep.collective, ranks);
  fit.steps = ring_steps(sweep.collective, ranks);

  SentBytesFit core = fit_sent_bytes(sweep, fit.sent_factor, range);
  fit.alpha = core.alpha;
  fit.beta = core.rate;
  fit.step_latency = fit.alpha / static_cast<double>(fit.steps);
  take_fit_quality(std::move(core), fit);
  if (fit.rms_relative_error > kPoorFitRms) {
    fit.poor = true;
    fit.warnings.push_back(fmt::format(
        "the alpha-beta fit of the {} sweep is poor: {:.1f}% RMS relative error (worst {:.1f}%) "
        "is above {:.0f}%; see the residuals per size, and narrow the range (`fit.min_size`, "
        "`fit.max_size`) or rerun with NCCL_ALGO=Ring",
        to_string(fit.collective), fit.rms_relative_error * 100, fit.max_relative_error * 100,
        kPoorFitRms * 100));
  }
  return fit;
}

std::string_view to_string(FabricState state) {
  switch (state) {
    case FabricState::healthy:
      return "healthy";
    case FabricState::one_pcie_half:
      return "one-pcie-half";
    case FabricState::degraded_nic:
      return "degraded-nic";
    case FabricState::software_forwarded:
      return "software-forwarded";
    case FabricState::below_expectation:
      return "below-expectation";
    case FabricState::above_link:
      return "above-link";
    case FabricState::not_judged:
      return "not-judged";
    case FabricState::socket_fallback:
      return "socket-fallback";
    case FabricState::latency_healthy:
      return "latency-healthy";
    case FabricState::latency_slow:
      return "latency-slow";
  }
  return "unknown";
}

FabricDiagnosis diagnose_bus_bandwidth(BitRate measured, BitRate link_rate,
                                       const FabricHardware& hardware) {
  FabricDiagnosis d;
  const BitRate expected = hardware.healthy_rate.value_or(link_rate);
  const double gbps = measured.bits_per_second() / 1e9;
  const double expected_gbps = expected.bits_per_second() / 1e9;
  d.share = measured / expected;
  // What the shares are of: the measured healthy rate names its source and
  // the link it falls short of (a healthy 200G Spark pair shows ~168-190
  // Gb/s, never 200).
  const std::string of_what =
      hardware.healthy_rate
          ? fmt::format(
                "of the {:.1f} Gb/s a healthy node reaches at these sizes ({}; {:.0f}% of "
                "the {:.0f} Gb/s link)",
                expected_gbps, hardware.healthy_from, measured / link_rate * 100.0,
                link_rate.bits_per_second() / 1e9)
          : fmt::format("of the {:.0f} Gb/s expected", expected_gbps);
  const bool socket_signature = hardware.network.empty() && hardware.faults &&
                                hardware.faults->socket_fallback &&
                                measured >= hardware.faults->socket_fallback->first &&
                                measured <= hardware.faults->socket_fallback->second;
  if (measured / link_rate > 1.1) {
    // No link carries more than its rate: the run used more of them, or
    // another link than the one it is judged against.
    d.state = FabricState::above_link;
    d.finding = fmt::format(
        "above the link: {:.1f} Gb/s is {:.0f}% of the {:.0f} Gb/s link, more than one link "
        "carries; the run used several NICs, links inside a node (NVLink) or a faster link than "
        "the one given",
        gbps, measured / link_rate * 100.0, link_rate.bits_per_second() / 1e9);
    d.advice = "give the link the run used (`link`), or rerun with one NIC per rank";
  } else if (d.share >= kHealthyShare) {
    d.state = FabricState::healthy;
    d.finding = fmt::format("healthy: {:.1f} Gb/s is {:.0f}% {}", gbps, d.share * 100.0, of_what);
    d.advice = "nothing to fix; keep this run as the cluster's baseline";
  } else if (hardware.network == "Socket") {
    // NCCL's INFO logging names the transport it picked: sockets means no
    // RDMA transport loaded, on any hardware.
    d.state = FabricState::socket_fallback;
    d.finding = fmt::format(
        "fallback to sockets: NCCL moved the bytes over TCP (the log says 'Using network "
        "Socket'); {:.1f} Gb/s is {:.0f}% {}",
        gbps, d.share * 100.0, of_what);
    d.advice =
        "NCCL found no RDMA transport: install or enable the fabric's network plugin "
        "(aws-ofi-nccl for AWS EFA and HPE Slingshot) or the InfiniBand/RoCE verbs "
        "(rdma-core, NCCL_IB_HCA), and check that NCCL_IB_DISABLE and NCCL_NET do not exclude "
        "them";
  } else if (socket_signature) {
    // The log names no transport, and the rate is what NCCL's sockets give
    // on this port: the likelier cause, with the other named.
    d.state = FabricState::socket_fallback;
    d.finding = fmt::format(
        "fallback to sockets, by its rate: {:.1f} Gb/s ({:.2f} GB/s) is in the {:.0f}-{:.0f} "
        "Gb/s NCCL's TCP socket transport gives on this port, {:.0f}% {}; the log does not "
        "name its transport ('NCCL INFO Using network ...'), and a throttled NIC (12.74 Gb/s "
        "measured) is the other cause near this rate",
        gbps, gbps / 8.0, hardware.faults->socket_fallback->first.bits_per_second() / 1e9,
        hardware.faults->socket_fallback->second.bits_per_second() / 1e9, d.share * 100.0, of_what);
    d.advice =
        "rerun with NCCL_DEBUG=INFO: 'Using network Socket' confirms the fallback (check "
        "NCCL_IB_HCA names the port's RDMA devices, that NCCL_IB_DISABLE and NCCL_NET do not "
        "exclude them, and the cabling after any re-plug); 'Using network IB' points at the NIC "
        "(firmware, power, thermal state)";
  } else if (!hardware.faults) {
    // The bad states below were measured between DGX Sparks; another
    // GPU's log is judged only by its share of the link.
    const std::string on = hardware.gpu.empty() ? std::string() : " on " + hardware.gpu;
    const std::string over =
        hardware.network.empty() ? std::string() : " over NCCL's " + hardware.network;
    d.state = FabricState::below_expectation;
    d.finding = fmt::format(
        "below expectation: {:.1f} Gb/s is {:.0f}% {}{}{}; the bad states tpnet names are DGX "
        "Spark's and do not apply to this hardware",
        gbps, d.share * 100.0, of_what, on, over);
    d.advice =
        hardware.network.empty()
            ? "rerun with NCCL_DEBUG=INFO and read the transport NCCL picked ('Using network "
              "...'): 'Socket' is a fallback to TCP (the fabric's plugin, e.g. aws-ofi-nccl for "
              "AWS EFA and HPE Slingshot, or the RDMA verbs were not loaded); otherwise check the "
              "NIC's link rate and count, GPUDirect RDMA, and congestion"
            : fmt::format(
                  "NCCL used {}: check the NIC's link rate and count against `link`, GPUDirect "
                  "RDMA, and congestion",
                  hardware.network);
  } else if (measured < hardware.faults->software_forwarded_below) {
    d.state = FabricState::software_forwarded;
    d.finding = fmt::format(
        "software-forwarded path: {:.2f} Gb/s is what RDMA gets through a CPU-forwarded "
        "second bridge or an RSTP detour over a 1500-MTU LAN (4.5-4.9 Gb/s measured)",
        gbps);
    d.advice =
        "put the fabric ports in the switch's single hardware-offloaded bridge; check that no "
        "inter-switch link is blocked by RSTP (raise the other uplink's cost) and that the path "
        "stays at MTU 9000";
  } else if (measured <= hardware.faults->degraded_nic_up_to) {
    d.state = FabricState::degraded_nic;
    d.finding = fmt::format(
        "degraded or firmware-throttled ConnectX-7: {:.2f} Gb/s while the port may report 200G "
        "(12.74 Gb/s measured on a power-throttled NIC)",
        gbps);
    d.advice =
        "update the OS, driver and NIC firmware, check the NIC's power and thermal state; a "
        "clean mstlink and a 200G link state do not rule this out";
  } else if (link_rate >= hardware.faults->one_pcie_half_on_links_from &&
             measured >= hardware.faults->one_pcie_half_from &&
             measured <= hardware.faults->one_pcie_half_to) {
    d.state = FabricState::one_pcie_half;
    d.finding = fmt::format(
        "one PCIe half: {:.1f} Gb/s is what one of the port's two RDMA devices carries "
        "(~109-112 Gb/s), not the ~196 Gb/s both give",
        gbps);
    d.advice = "NCCL_IB_HCA lists only one RDMA device of the port; list both";
  } else {
    d.state = FabricState::below_expectation;
    d.finding = fmt::format(
        "below expectation: {:.1f} Gb/s is {:.0f}% {}, and none of the known bad states", gbps,
        d.share * 100.0, of_what);
    d.advice =
        "look for flows sharing an inter-switch link (two 100G senders split a 200G ISL at ~82 "
        "Gb/s each), congestion, or a link running slower than configured";
  }
  return d;
}

BitRate large_size_busbw(const AllReduceSweep& sweep, int count) {
  std::vector<const AllReduceSample*> sorted;
  for (const auto& s : sweep.samples) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* l, const auto* r) { return l->size > r->size; });
  const std::size_t n = std::min<std::size_t>(sorted.size(), static_cast<std::size_t>(count));
  if (n == 0) return BitRate(0.0);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += sorted[i]->out_of_place.busbw.bits_per_second();
  return BitRate(sum / static_cast<double>(n));
}

}  // namespace tpnet
