#pragma once
// The files tpnet predict writes beside its answer: the step timeline, the
// predicted RDMA counters with their request timings, and the chart. Their
// paths are checked before the run, so that a long prediction never ends in
// a file it cannot write; CLI-only, since their errors name the flags.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "tpnet/usecase/predict.hpp"

namespace tpnet::cli {

/// --timeline, --traffic, --requests and --svg.
struct PredictFileFlags {
  std::string timeline;
  std::string traffic;
  std::string requests;
  std::string svg;  ///< added apart, with add_svg_option, where --help lists it
};

/// --timeline, --traffic and --requests.
void add_predict_file_options(CLI::App* sub, PredictFileFlags& flags);

class TimelineWriter;

/// One run's files: checked when made, fed the steps during the run, written
/// after it.
class PredictFiles {
 public:
  /// Refuses (InputError naming the flag) a path that cannot be written, and
  /// --requests without --traffic.
  explicit PredictFiles(PredictFileFlags flags);
  PredictFiles(const PredictFiles&) = delete;
  PredictFiles& operator=(const PredictFiles&) = delete;
  PredictFiles(PredictFiles&&) = delete;
  PredictFiles& operator=(PredictFiles&&) = delete;
  ~PredictFiles();

  /// Asks `request` for what the files need: the first run's steps for
  /// --traffic, the chart's requests' spans, every step for --timeline.
  /// `request` must outlive this object.
  void prepare(PredictRequest& request);

  /// Writes every file asked and says in `doc` what was written where.
  void write(const PredictRequest& request, const PredictReport& report, Document& doc);

 private:
  PredictFileFlags flags_;
  std::unique_ptr<TimelineWriter> timeline_;
};

}  // namespace tpnet::cli
