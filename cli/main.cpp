// tpnet: network sizing for tensor-parallel LLM inference.
// Exit codes: 0 ok; 1 a CI gate failed (a budget, or doctor finding the fabric
// unhealthy); 2 bad input or usage; 3 internal error.

#include "command_line.hpp"

int main(int argc, char** argv) { return tpnet::cli::run_command_line(argc, argv); }
