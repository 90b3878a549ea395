#include "commands.hpp"

namespace tpnet::cli {

Command setup_preflight(CLI::App& app);  // cmd_preflight.cpp
Command setup_prices(CLI::App& app);     // cmd_prices.cpp

std::vector<Command> setup_commands(CLI::App& app) {
  return {setup_bytes(app),    setup_penalty(app),   setup_decode(app),      setup_expect(app),
          setup_link(app),     setup_models(app),    setup_compare(app),     setup_check(app),
          setup_capacity(app), setup_plan(app),      setup_memory(app),      setup_switch(app),
          setup_traffic(app),  setup_doctor(app),    setup_calibration(app), setup_predict(app),
          setup_report(app),   setup_preflight(app), setup_prices(app)};
}

}  // namespace tpnet::cli
