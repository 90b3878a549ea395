#include "tpnet/usecase/switch_report.hpp"

namespace tpnet {

SwitchPlanReport run_switch(const SwitchRequest& request) {
  return plan_switches(request.switches, request.node, request.nodes, request.speed);
}

}  // namespace tpnet
