#include "tpnet/model/engram_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

namespace tpnet {

TablePlacement parse_table_placement(std::string_view name, const InputLocation& where) {
  for (const TablePlacement p :
       std::array{TablePlacement::gpu, TablePlacement::host, TablePlacement::disk}) {
    if (name == to_string(p)) return p;
  }
  throw InputError(fmt::format("'{}' is not a place for the tables; use gpu (GPU memory), host "
                               "(pinned host memory) or disk (local NVMe)",
                               name),
                   where);
}

EngramTables engram_tables(const ModelArch& m, const ParallelLayout& layout,
                           std::optional<TablePlacement> placement, bool unified_memory) {
  EngramTables t;
  t.host_counted = unified_memory;
  if (!m.engram) return t;
  const EngramSpec& e = *m.engram;
  t.placement = placement.value_or(e.placement);
  // Rows shard like the vocab-parallel embedding: 1/tp per rank, and a stage
  // holds its own layers' tables.
  t.per_node = e.table_bytes / (std::max(1, layout.tp) * std::max(1, layout.pp));
  switch (t.placement) {
    case TablePlacement::gpu:
      t.gpu = t.per_node;
      break;
    case TablePlacement::host:
      t.host = t.per_node * e.host_share;
      t.gpu = t.per_node - t.host;
      break;
    case TablePlacement::disk:
      t.disk = t.per_node;
      break;
  }
  t.counted = t.gpu + (unified_memory ? t.host : Bytes(0.0));
  return t;
}

}  // namespace tpnet
