#pragma once
/// MPI calls as every MPI part of tpnet-calibrate makes them: errors returned
/// (MPI_ERRORS_RETURN) and thrown as MeasurementError naming the call, the
/// rank and the source line; non-blocking collectives polled against a
/// deadline, so a rank that never joins is a timeout naming the call, the
/// size and the rank instead of a hang.

#include <mpi.h>

#include <string>
#include <string_view>

#include "calibrate_command.hpp"

namespace tpnet::calibrate {

/// Throws MeasurementError when `rc` is not MPI_SUCCESS.
void mpi_check(int rc, std::string_view call, const std::string& who, SourcePlace at);

/// Polls `request` until it completes; past `timeout_s` it is a
/// MeasurementError saying `what` timed out.
void wait_for(MPI_Request& request, double timeout_s, const std::string& who,
              std::string_view what);

/// MPI_Iallreduce on MPI_COMM_WORLD, then wait_for.
void allreduce_within(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
                      double timeout_s, const std::string& who, std::string_view what);

}  // namespace tpnet::calibrate
