#pragma once
/// Where each node's share of a model's Engram tables lives, and what of it
/// counts against vLLM's budget (docs/formulas.md s.12.11).

#include <optional>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// `gpu`, `host` or `disk`; throws InputError at `where` naming the three otherwise.
[[nodiscard]] TablePlacement parse_table_placement(std::string_view name,
                                                   const InputLocation& where);

/// One node's Engram tables by where they live. All zero for a model without them.
struct EngramTables {
  Bytes per_node;  ///< table_bytes / (tp x pp): the rows this rank holds
  Bytes gpu;       ///< in GPU memory
  Bytes host;      ///< in pinned host memory
  Bytes disk;      ///< on local disk
  /// What counts against the budget: gpu, plus host on a unified-memory node.
  Bytes counted;
  TablePlacement placement = TablePlacement::gpu;
  bool host_counted = false;  ///< host memory is the GPU's (a unified-memory node)
};

/// The tables of one node of `layout`, placed at `placement` (the model's own
/// placement when absent). A host placement pins the model's host_share of
/// them in host memory and keeps the rest in GPU memory.
[[nodiscard]] EngramTables engram_tables(const ModelArch& model, const ParallelLayout& layout,
                                         std::optional<TablePlacement> placement,
                                         bool unified_memory);

}  // namespace tpnet
