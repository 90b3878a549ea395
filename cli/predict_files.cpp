#include "predict_files.hpp"

#include <fmt/format.h>

#include <iterator>
#include <utility>
#include <vector>

#include "charts.hpp"
#include "svg_output.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/output_file.hpp"

namespace tpnet::cli {
namespace {

/// The timeline's buffer is written out past this many bytes.
constexpr std::size_t kTimelineFlushBytes = std::size_t{1} << 20;

/// --traffic (and --requests): the first run's predicted RDMA counters at
/// 1 ms, and its request timings; says in `doc` what was written where.
void write_predicted_traffic(const PredictReport& report, double overlap,
                             const std::string& traffic, const std::string& requests,
                             Document& doc) {
  const PredictLink& run = report.scenarios.front().links.front();
  const CounterSeries series = predicted_counters(run, Seconds::milliseconds(1.0), overlap);
  write_file_atomically(traffic, counters_csv_text(series), "--traffic");
  doc.fields.push_back(
      text("traffic", "traffic written to",
           fmt::format("{} ({} at {})", traffic, report.scenarios.front().name, run.link.name)));
  if (requests.empty()) return;
  std::vector<RequestTiming> timings;
  timings.reserve(run.schedule.requests.size());
  for (std::size_t i = 0; i < run.schedule.requests.size(); ++i) {
    const RequestTimeline& t = run.schedule.requests[i];
    timings.push_back(RequestTiming{fmt::format("r{}", i + 1), Seconds(t.arrival_s),
                                    Seconds(t.first_token_s), Seconds(t.finished_s)});
  }
  write_file_atomically(requests, requests_csv_text(timings), "--requests");
  doc.fields.push_back(text("requests_file", "request timings written to", requests));
}

}  // namespace

/// The --timeline CSV, one row per request and step, written as the steps
/// are priced: its memory is one buffer, whatever the run's length.
class TimelineWriter {
 public:
  TimelineWriter(const std::string& path, const PredictRequest& request)
      : file_(path, "--timeline"),
        request_(request),
        buffer_(
            "scenario,link,step,start_s,end_s,request,prefill_tokens,decode_tokens,"
            "context_tokens,compute_s,communication_s\n") {}

  void add(const PricedStepEvent& event) {
    const PricedStep& p = event.step;
    for (const StepWork& w : p.step.work) {
      fmt::format_to(std::back_inserter(buffer_),
                     "{},{},{},{:.6f},{:.6f},{},{},{},{},{:.6f},{:.6f}\n",
                     request_.scenarios[event.scenario].name, request_.links[event.link].link.name,
                     event.number, p.step.start_s, p.step.end_s, w.request + 1, w.prefill_tokens,
                     w.decode_tokens, w.context_tokens, p.compute.value(), p.communication.value());
    }
    if (buffer_.size() >= kTimelineFlushBytes) flush();
  }

  void commit() {
    flush();
    file_.commit();
  }

 private:
  void flush() {
    file_.write(buffer_);
    buffer_.clear();
  }

  AtomicFile file_;
  const PredictRequest& request_;
  std::string buffer_;
};

void add_predict_file_options(CLI::App* sub, PredictFileFlags& flags) {
  sub->add_option("--timeline", flags.timeline, "Write every step to this CSV")
      ->check(output_path_given());
  sub->add_option("--traffic", flags.traffic,
                  "Write one node's predicted RDMA counters at 1 ms (tpnet traffic --samples)")
      ->check(output_path_given());
  sub->add_option("--requests", flags.requests,
                  "With --traffic: write the request timings (tpnet traffic --requests)")
      ->check(output_path_given());
}

PredictFiles::PredictFiles(PredictFileFlags flags) : flags_(std::move(flags)) {
  for (const auto& [path, name] :
       {std::pair{&flags_.timeline, "--timeline"}, std::pair{&flags_.traffic, "--traffic"},
        std::pair{&flags_.requests, "--requests"}}) {
    if (!path->empty()) check_output_path(*path, name);
  }
  check_svg_path(flags_.svg);
  if (!flags_.requests.empty() && flags_.traffic.empty()) {
    throw InputError("writes the request timings that go with --traffic; give --traffic too",
                     InputLocation::for_key("--requests"));
  }
}

PredictFiles::~PredictFiles() = default;

void PredictFiles::prepare(PredictRequest& request) {
  request.keep_steps = !flags_.traffic.empty();  // --traffic samples the first run's steps
  if (!flags_.svg.empty()) request.spans_of_requests = kPredictChartRows;
  if (flags_.timeline.empty()) return;
  timeline_ = std::make_unique<TimelineWriter>(flags_.timeline, request);
  request.step_sink = [writer = timeline_.get()](const PricedStepEvent& e) { writer->add(e); };
}

void PredictFiles::write(const PredictRequest& request, const PredictReport& report,
                         Document& doc) {
  write_svg(flags_.svg, predict_figure(report), doc);
  if (timeline_) {
    timeline_->commit();
    doc.fields.push_back(text("timeline", "timeline written to", flags_.timeline));
  }
  if (!flags_.traffic.empty()) {
    write_predicted_traffic(report, request.overlap, flags_.traffic, flags_.requests, doc);
  }
}

}  // namespace tpnet::cli
