#include "tpnet/analysis/compare.hpp"

#include <fmt/format.h>

#include "tpnet/analysis/bytes_per_token.hpp"
#include "tpnet/checked_math.hpp"
#include "tpnet/fabric/collective.hpp"

namespace tpnet {

std::uint64_t compare_row_count(const CompareSpec& spec) {
  // Multiply in long double so a huge product is reported, not wrapped.
  const long double rows = static_cast<long double>(spec.layouts.size()) * spec.from.size() *
                           spec.to.size() * spec.prompts.size();
  if (rows < 1) {
    throw InputError("the grid is empty: give at least one TP size, link pair and prompt",
                     InputLocation::for_key("--tp"));
  }
  if (rows > static_cast<long double>(kMaxCompareRows)) {
    throw InputError(fmt::format("the grid has {:.0f} rows, more than the {} allowed; narrow the "
                                 "lists",
                                 static_cast<double>(rows), kMaxCompareRows),
                     InputLocation::for_key("--tp"));
  }
  return static_cast<std::uint64_t>(rows);
}

namespace {

/// Per-node bytes of one decode forward: the layout's collectives for
/// requests x (1 + drafts) tokens, plus the vocab-parallel logits all-gather.
Bytes decode_bytes(const ModelArch& model, const EngineConfig& engine, const ParallelLayout& layout,
                   int requests) {
  const TokenCount tokens =
      checked_mul(requests, 1 + static_cast<TokenCount>(engine.num_speculative_tokens),
                  "decode tokens per forward (requests x (1 + speculative tokens))",
                  InputLocation::for_key("--requests"));
  const LayoutTraffic traffic = layout_traffic(model, engine, layout, tokens);
  const double logits = static_cast<double>(tokens) * static_cast<double>(model.vocab_size) *
                        engine.activation_bytes * (layout.tp - 1) / layout.tp;
  return traffic.total_bytes + Bytes(logits);
}

}  // namespace

Seconds compute_node_seconds_per_token(const ModelArch& model, const EngineConfig& engine,
                                       const TtftBaseline& b) {
  const auto tokens = static_cast<double>(b.prompt.total_tokens());
  // A single node's TTFT (TP1) is all compute: nothing crosses the network.
  const Seconds comm = b.layout.nodes() < 2
                           ? Seconds(0.0)
                           : layout_bytes_per_token(model, engine, b.layout) * tokens / b.link.rate;
  const Seconds compute = b.ttft - comm;
  if (compute.value() <= 0.0) {
    throw InputError(fmt::format("the baseline TTFT ({:.3f} s) is not longer than its own network "
                                 "time at {} ({:.3f} s); check the measured TTFT and its prompt",
                                 b.ttft.value(), b.link.name, comm.value()),
                     InputLocation::for_key("--baseline-ttft"));
  }
  return compute / tokens * b.layout.nodes();
}

std::vector<LayoutSummary> summarize_layouts(const ModelArch& model, const EngineConfig& engine,
                                             const CompareSpec& spec) {
  validate(engine);
  if (spec.decode_requests < 1) {
    throw InputError("must be at least 1", InputLocation::for_key("--requests"));
  }
  const Bytes reference_bytes = layout_bytes_per_token(model, engine, spec.reference);

  std::optional<Seconds> compute_per_token;
  if (spec.baseline)
    compute_per_token = compute_node_seconds_per_token(model, engine, *spec.baseline);

  std::vector<LayoutSummary> out;
  out.reserve(spec.layouts.size());
  for (const auto& layout : spec.layouts) {
    LayoutSummary s;
    s.layout = layout;
    const LayoutTraffic chunk =
        layout_traffic(model, engine, layout, engine.max_num_batched_tokens);
    s.per_token_bytes = chunk.total_bytes / static_cast<double>(engine.max_num_batched_tokens);
    s.bytes_ratio = s.per_token_bytes / reference_bytes;
    s.compute_ratio = static_cast<double>(spec.reference.nodes()) / layout.nodes();
    s.steps_per_forward = chunk.sequential_steps;
    s.prefill_forward_bytes = chunk.total_bytes;
    s.prefill_messages = chunk.messages;
    // Decode runs the same collectives as prefill, one message per ring step,
    // plus the logits all-gather's N-1 steps.
    s.decode_messages = chunk.messages + (layout.tp - 1);
    s.weights_per_node = weights_per_node(model, layout);
    s.fits_memory = s.weights_per_node <= spec.memory.for_weights();
    s.decode_forward_bytes = decode_bytes(model, engine, layout, spec.decode_requests);
    const Bytes active = Bytes(model.active_params * model.bits_per_weight / 8.0 / layout.nodes());
    s.decode_floor = Seconds(active.count() / spec.memory_bandwidth.bytes_per_second());
    if (compute_per_token) s.compute_per_token = *compute_per_token / layout.nodes();
    out.push_back(s);
  }
  return out;
}

void for_each_compare_row(const CompareSpec& spec, const std::vector<LayoutSummary>& layouts,
                          const std::function<void(const CompareRow&)>& visit) {
  CompareRow row;
  for (const auto& layout : layouts) {
    row.layout = &layout;
    for (const auto& from : spec.from) {
      row.from = &from;
      for (const auto& to : spec.to) {
        row.to = &to;
        row.extra_per_1k = extra_transfer_time(layout.per_token_bytes * 1000.0, from.rate, to.rate);
        row.comm_per_1k = layout.per_token_bytes * 1000.0 / from.rate;
        row.decode_slowdown = extra_transfer_time(layout.decode_forward_bytes, from.rate, to.rate) /
                              layout.decode_floor;
        for (const auto& prompt : spec.prompts) {
          row.prompt = &prompt;
          const auto tokens = static_cast<double>(prompt.prompt.total_tokens());
          row.prefill_bytes = layout.per_token_bytes * tokens;
          row.comm_time_from = row.prefill_bytes / from.rate;
          row.extra_bound = extra_transfer_time(row.prefill_bytes, from.rate, to.rate);
          if (layout.compute_per_token) {
            const Seconds ttft_from = *layout.compute_per_token * tokens + row.comm_time_from;
            row.projected_increase = row.extra_bound / ttft_from;
          }
          row.within_budget = within_budgets(row, spec.budgets);
          visit(row);
        }
      }
    }
  }
}

namespace {

enum class BudgetScope { scenario, link };

/// Calls f(scope, budget, value, limit) for every budget that applies to the row.
template <typename F>
void visit_budgets(const CompareRow& row, const Budgets& budgets, F&& f) {
  if (budgets.max_extra_ttft) {
    f(BudgetScope::scenario, "max_extra_ttft", row.extra_bound.value(),
      budgets.max_extra_ttft->value());
  }
  if (budgets.max_ttft_increase && row.projected_increase) {
    f(BudgetScope::scenario, "max_ttft_increase", *row.projected_increase,
      *budgets.max_ttft_increase);
  }
  if (budgets.max_extra_ttft_per_1k) {
    f(BudgetScope::link, "max_extra_ttft_per_1k_tokens", row.extra_per_1k.value(),
      budgets.max_extra_ttft_per_1k->value());
  }
  if (budgets.max_decode_slowdown) {
    f(BudgetScope::link, "max_decode_slowdown", row.decode_slowdown, *budgets.max_decode_slowdown);
  }
}

}  // namespace

bool within_budgets(const CompareRow& row, const Budgets& budgets) {
  bool within = true;
  visit_budgets(row, budgets, [&](BudgetScope, const char*, double value, double limit) {
    within = within && value <= limit;
  });
  return within;
}

void row_verdicts(const CompareRow& row, const Budgets& budgets, bool include_link_budgets,
                  std::vector<Verdict>& out) {
  const std::string link =
      fmt::format("{} {}->{}", row.layout->layout.name(), row.from->name, row.to->name);
  visit_budgets(row, budgets,
                [&](BudgetScope scope, const char* budget, double value, double limit) {
                  if (scope == BudgetScope::scenario) {
                    check_budget(out, budget, link + " " + row.prompt->name, value, limit);
                  } else if (include_link_budgets) {
                    check_budget(out, budget, link, value, limit);
                  }
                });
}

}  // namespace tpnet
