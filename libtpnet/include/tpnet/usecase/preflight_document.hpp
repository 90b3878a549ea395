#pragma once
/// The preflight reports (tpnet/usecase/preflight.hpp) as Documents: one
/// node's checks and devices (tpnet preflight), and a cluster's checks with
/// every rank's own (tpnet-calibrate preflight).

#include <string>

#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/preflight.hpp"

namespace tpnet {

[[nodiscard]] Document preflight_document(const PreflightReport& report, const std::string& source);
[[nodiscard]] Document cluster_preflight_document(const ClusterPreflightReport& report);

}  // namespace tpnet
