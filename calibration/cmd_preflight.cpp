// tpnet-calibrate preflight: under mpirun, every rank reads its own node's
// fabric facts (or a tree saved from one: --root, with {rank} for the rank),
// rank 0 gathers them, judges each node as `tpnet preflight` does and adds
// what only the cluster shows (GID indices, MTUs, NCCL versions, NCCL_IB_HCA
// or port rates that differ between nodes). docs/preflight.md.

#include <fmt/format.h>

#include <unistd.h>

#include <iostream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "calibrate_command.hpp"
#include "process_group.hpp"
#include "terminal.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_facts.hpp"
#include "tpnet/usecase/preflight.hpp"
#include "tpnet/usecase/preflight_document.hpp"

namespace tpnet::calibrate {
namespace {

struct PreflightOptions {
  std::string root;
  std::string node = std::string(kDefaultNodeName);
  std::string format = "table";
  std::string timeout = "60s";
  // Hidden, for the tests of a failing rank: this rank fails reading its
  // facts with an error that is not bad input (as out of memory would), or
  // never reaches the gather (as a hung read would).
  int fail_rank = -1;
  int stall_rank = -1;
};

/// A rank that could not read its facts sends one of these lines instead:
/// bad input (exit 2), or anything else, such as running out of memory
/// (exit 3).
constexpr std::string_view kFailed = "error\t";
constexpr std::string_view kBroken = "internal\t";

std::string root_of_rank(std::string root, int rank) {
  const std::string mark = "{rank}";
  for (auto at = root.find(mark); at != std::string::npos; at = root.find(mark)) {
    root.replace(at, mark.size(), std::to_string(rank));
  }
  return root;
}

/// This rank's facts as text, or kFailed and why: whatever goes wrong on a
/// rank reaches rank 0 through the gather, so no rank waits on one that left.
std::string facts_of_this_rank(const PreflightOptions& o, const ProcessGroup& group) {
  try {
    if (group.rank() == o.fail_rank) throw std::runtime_error("failure injected (--fail-rank)");
    NodeFacts facts = read_node_facts_at(root_of_rank(o.root, group.rank()), "--root");
    if (facts.host.empty()) facts.host = group.host();
    return node_facts_text(facts);
  } catch (const InputError& e) {
    return std::string(kFailed) + e.what();
  } catch (const std::bad_alloc&) {
    return fmt::format("{}ran out of memory reading its fabric facts", kBroken);
  } catch (const std::exception& e) {
    return fmt::format("{}failed reading its fabric facts: {}", kBroken, e.what());
  }
}

int run_preflight(const PreflightOptions& o) {
  // Catalog and format problems are the same on every rank: each refuses alone.
  const NodeSpec node = resolve_node(o.node);
  const Format format = parse_format(o.format);
  const double timeout_s = parse_duration(o.timeout, InputLocation::for_key("--timeout")).value();
#if TPNET_HAVE_MPI
  const std::unique_ptr<ProcessGroup> group = make_mpi_group();
#else
  const std::unique_ptr<ProcessGroup> group = make_single_process_group();
#endif
  const std::string mine = facts_of_this_rank(o, *group);
  if (group->rank() == o.stall_rank && group->size() > 1) {
    for (;;) pause();  // until rank 0's deadline aborts the job
  }
  std::vector<std::string> texts;
  try {
    texts = group->gather(mine, timeout_s, "MPI gather of every node's fabric facts");
  } catch (const MeasurementError& e) {
    group->fail(e);  // MPI_Abort: every rank ends now, exit 4
  }
  int exit_code = 0;
  if (group->rank() == 0) {
    try {
      ClusterPreflightRequest request;
      request.node = node;
      for (size_t rank = 0; rank < texts.size(); ++rank) {
        if (texts[rank].rfind(kBroken, 0) == 0) {
          throw std::runtime_error(
              fmt::format("rank {}: {}", rank, texts[rank].substr(kBroken.size())));
        }
        if (texts[rank].rfind(kFailed, 0) == 0) {
          throw InputError(texts[rank].substr(kFailed.size()),
                           InputLocation::for_key(fmt::format("rank {}", rank)));
        }
        request.nodes.push_back(parse_node_facts_text(texts[rank], fmt::format("rank {}", rank)));
      }
      const ClusterPreflightReport report = run_cluster_preflight(request);
      const Document doc = cluster_preflight_document(report);
      for (const auto& warning : doc.warnings) {
        std::cerr << "tpnet-calibrate: warning: " << warning << "\n";
      }
      std::cout << render(doc, format) << std::flush;
      exit_code = report.gate_failed() ? 1 : 0;
    } catch (const InputError& e) {
      std::cerr << "tpnet-calibrate: error: " << e.what() << "\n";
      exit_code = 2;
    } catch (const std::exception& e) {
      // Still broadcast below: the other ranks wait for the verdict.
      std::cerr << "tpnet-calibrate: internal error: " << e.what() << "\n";
      exit_code = 3;
    }
  }
  // Every rank leaves with rank 0's verdict, so mpirun's exit code is it.
  try {
    group->broadcast(&exit_code, static_cast<int>(sizeof exit_code), timeout_s,
                     "MPI broadcast of the verdict");
  } catch (const MeasurementError& e) {
    group->fail(e);
  }
  return exit_code;
}

}  // namespace

Subcommand setup_preflight(CLI::App& parent) {
  auto options = std::make_shared<PreflightOptions>();
  CLI::App* app = parent.add_subcommand(
      "preflight",
      "Under mpirun: gather every node's fabric facts and check each node as `tpnet preflight` "
      "does, plus what differs between nodes (GID index, MTU, NCCL version, NCCL_IB_HCA, port "
      "rate); exit 1 when a check fails");
  app->add_option("--root", options->root,
                  "Read a tree saved from a node instead of this node; {rank} in it is replaced "
                  "by each rank's number");
  app->add_option("--node", options->node,
                  "Node from the catalog (models/nodes) or a node YAML file")
      ->default_str(std::string(kDefaultNodeName));
  app->add_option("--timeout", options->timeout,
                  "How long rank 0 waits for every rank's facts before it stops the job (exit 4)")
      ->default_str("60s");
  app->add_option("--fail-rank", options->fail_rank)->group("");
  app->add_option("--stall-rank", options->stall_rank)->group("");
  cli::add_format_option(app, options->format);
  return Subcommand{app, [options] { return run_preflight(*options); }};
}

}  // namespace tpnet::calibrate
