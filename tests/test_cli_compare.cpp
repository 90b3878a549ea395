// tpnet compare, tpnet check and the budget gates, end to end.

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"
#include "commands.hpp"
#include "golden.hpp"
#include "terminal.hpp"

using tpnet::test::CliResult;
using tpnet::test::prints_as;
using tpnet::test::run_tpnet;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

/// `tpnet compare args` run in this process, as main runs it: the table's
/// document, or (csv, json) the stream it writes.
tpnet::cli::Outcome compare_outcome(std::vector<std::string> args) {
  CLI::App app;
  const std::vector<tpnet::cli::Command> commands = tpnet::cli::setup_commands(app);
  args.insert(args.begin(), "compare");
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last word first
  app.parse(args);
  for (const auto& command : commands) {
    if (command.app->get_name() == "compare") return command.run();
  }
  FAIL("no compare subcommand");
  return {};
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

TEST_CASE("tpnet compare over TP2-TP16 reproduces docs/background.md's byte and compute ratios",
          "[cli][golden]") {
  const CliResult r = run_tpnet(
      {"compare", "--model", "glm-5.3", "--tp", "2,4,8,16", "--prompt", "8k", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = YAML::Load(r.out);
  REQUIRE(j["rows"].size() == 4);
  const double bytes[] = {0.57, 0.86, 1.00, 1.07};
  const double compute[] = {4.0, 2.0, 1.0, 0.5};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(prints_as(j["rows"][i]["bytes_ratio"].as<double>(), bytes[i], 2));
    CHECK(j["rows"][i]["compute_ratio"].as<double>() == compute[i]);
  }
  CHECK(j["rows"][2]["per_token_bytes"].as<double>() == 3376128.0);
  CHECK(j["rows"][0]["fits_memory"].as<bool>() == false);
  CHECK(j["rows"][2]["fits_memory"].as<bool>() == true);
  CHECK_THAT(r.err, ContainsSubstring("TP2"));  // the memory warning
}

TEST_CASE("tpnet compare projects TTFT from one measured baseline", "[cli][golden]") {
  const CliResult r =
      run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8,16", "--prompt", "8k", "--baseline-tp",
                 "8", "--baseline-ttft", "6.36s", "--baseline-prompt", "8k", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(prints_as(j["rows"][0]["ttft_increase_pct"].as<double>(), 17.4, 1));
  CHECK(prints_as(j["rows"][1]["ttft_increase_pct"].as<double>(), 31.1, 1));
}

TEST_CASE("tpnet compare: a single-node baseline projects and the ratios fall back to TP8",
          "[cli]") {
  const CliResult r =
      run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8,16", "--prompt", "8k", "--baseline-tp",
                 "1", "--baseline-ttft", "40s", "--baseline-prompt", "8k", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(j["reference_layout"].as<std::string>() == "TP8");
  const double comm = 8192 * 3376128.0 * 8 / 200e9;  // TP8's network time; compute 40 s / 8
  CHECK_THAT(j["rows"][0]["ttft_increase_pct"].as<double>(),
             WithinRel(100 * comm / (5.0 + comm), 1e-9));
}

TEST_CASE("tpnet compare without TP8 or a baseline compares against its first layout", "[cli]") {
  const CliResult r = run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "1,2", "--ep", "8",
                                 "--prompt", "8k", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = YAML::Load(r.out);
  CHECK(j["reference_layout"].as<std::string>() == "TP1xEP8");
  CHECK(j["rows"][0]["bytes_ratio"].as<double>() == 1.0);
}

TEST_CASE("tpnet compare JSON ends with rows, gate_passed and warnings", "[cli]") {
  const CliResult r = run_tpnet({"compare", "--model", "glm-5.3", "--tp", "4,8", "--prompt", "8k",
                                 "--max-extra-ttft", "2s", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto rows = r.out.find("\"rows\"");
  const auto gate = r.out.find("\"gate_passed\": true");
  const auto warnings = r.out.find("\"warnings\"");
  CHECK(rows < gate);
  CHECK(gate < warnings);
  CHECK(warnings != std::string::npos);
  CHECK(YAML::Load(r.out)["warnings"].size() == 1);  // TP4 does not fit
}

TEST_CASE("tpnet compare gates: exit 1 when a row exceeds a budget, 0 when all hold",
          "[cli][gate]") {
  const std::initializer_list<std::string> base{
      "compare", "--model",         "glm-5.3", "--tp",
      "8,16",    "--prompt",        "8k",      "--baseline-tp",
      "8",       "--baseline-ttft", "6.36s",   "--baseline-prompt",
      "8k"};
  std::vector<std::string> pass(base);
  pass.insert(pass.end(),
              {"--max-ttft-increase", "35%", "--max-extra-ttft", "2s", "--format", "csv"});
  std::vector<std::string> fail(base);
  fail.insert(fail.end(), {"--max-ttft-increase", "20%", "--format", "csv"});
  const CliResult ok = run_tpnet(pass);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, ContainsSubstring("within_budget"));
  const CliResult bad = run_tpnet(fail);
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, ContainsSubstring("gate failed: 1 rows"));
  CHECK_THAT(bad.out, ContainsSubstring(",false\n"));  // the TP16 row, streamed before the verdict
}

TEST_CASE("tpnet penalty gates with --max-extra-ttft and --max-ttft-increase", "[cli][gate]") {
  const std::string baseline = kSource + "/examples/data/glm53_tp8_200g.csv";
  CHECK(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", baseline,
                   "--max-extra-ttft", "9s", "--max-ttft-increase", "20%"})
            .exit_code == 0);
  const CliResult fail = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline",
                                    baseline, "--max-ttft-increase", "18%", "--format", "json"});
  CHECK(fail.exit_code == 1);
  const YAML::Node j = YAML::Load(fail.out);
  CHECK(j["gate_passed"].as<bool>() == false);
  CHECK(j["verdicts"].size() == 6);
  const CliResult no_baseline =
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--max-ttft-increase", "18%"});
  CHECK(no_baseline.exit_code == 2);
  CHECK_THAT(no_baseline.err, ContainsSubstring("--max-ttft-increase: needs a measured TTFT"));
  CHECK(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--max-extra-ttft", "soon"})
            .exit_code == 2);
}

TEST_CASE("tpnet check exits 0 for the study plan and 1 for a budget it breaks", "[cli][gate]") {
  const CliResult pass =
      run_tpnet({"check", kSource + "/examples/glm53-study-plan.yaml", "--format", "json"});
  INFO(pass.err);
  CHECK(pass.exit_code == 0);
  CHECK(YAML::Load(pass.out)["gate_passed"].as<bool>());
  const CliResult fail = run_tpnet({"check", kSource + "/examples/glm53-tp16-plan.yaml"});
  CHECK(fail.exit_code == 1);
  CHECK_THAT(fail.out, ContainsSubstring("EXCEEDED"));
}

TEST_CASE("tpnet check: bad plans exit 2 with one line naming file, line and key",
          "[cli][bad-input]") {
  const CliResult missing = run_tpnet({"check", "/nonexistent/plan.yaml"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, ContainsSubstring("/nonexistent/plan.yaml: no such file"));
  CHECK(run_tpnet({"check"}).exit_code == 2);
}

TEST_CASE("tpnet compare refuses huge grids with their count and big tables", "[cli][bad-input]") {
  std::string prompts;
  for (int i = 1; i <= 2001; ++i) prompts += (i > 1 ? "," : "") + std::to_string(i);
  const CliResult table =
      run_tpnet({"compare", "--model", "glm-5.3", "--tp", "2,4,8,16,32", "--prompt", prompts});
  CHECK(table.exit_code == 2);
  CHECK_THAT(table.err, ContainsSubstring("10005 rows are too many for a table"));
  const CliResult ep = run_tpnet({"compare", "--model", "llama-3.1-70b", "--tp", "8", "--ep", "8"});
  CHECK(ep.exit_code == 2);
  CHECK_THAT(ep.err, ContainsSubstring("--ep"));
  const CliResult baseline = run_tpnet({"compare", "--model", "glm-5.3", "--baseline-tp", "8"});
  CHECK(baseline.exit_code == 2);
  CHECK_THAT(baseline.err, ContainsSubstring("--baseline-ttft"));
}

TEST_CASE("tpnet compare streams csv with a header and one line per row", "[cli]") {
  const CliResult r = run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "4,8", "--pp", "1,2",
                                 "--ep", "1,8", "--from", "200G", "--to", "100G,emulated-100G",
                                 "--prompt", "1k,8k,4x8k", "--format", "csv"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 2 * 2 * 2 * 2 * 3);
  CHECK(r.out.rfind("layout,tp,pp,ep,nodes,per_token_bytes", 0) == 0);
  CHECK_THAT(r.out, ContainsSubstring("TP8xPP2xEP8,8,2,8,16,"));
}

TEST_CASE(
    "tpnet compare --tp 2,4,8,16 --ep 1,8 (the README's synopsis) skips the one cell that "
    "cannot run",
    "[cli]") {
  const CliResult r = run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "2,4,8,16", "--ep",
                                 "1,8", "--prompt", "8k", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = YAML::Load(r.out);
  // 4 TP sizes x 2 EP sizes, less TP16xEP8 (EP8 is not a multiple of TP16).
  std::set<std::string> layouts;
  for (const auto& row : j["rows"]) layouts.insert(row["layout"].as<std::string>());
  CHECK(layouts.size() == 7);
  CHECK(layouts.count("TP16xEP8") == 0);
  CHECK(layouts.count("TP8xEP8") == 1);
  bool noted = false;
  for (const auto& w : j["warnings"]) {
    noted |=
        w.as<std::string>().find("TP16xEP8 (EP8 is not a multiple of TP16") != std::string::npos;
  }
  CHECK(noted);
  // With no cell that runs, the grid is refused, naming the flag.
  const CliResult none =
      run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "16", "--ep", "8"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, ContainsSubstring("--ep"));
}

TEST_CASE("tpnet compare: the table, CSV and JSON carry the same columns and values for each row",
          "[cli][compare]") {
  // Every optional column at once: a calibration with compute (point
  // columns), fabric profiles (predicted, missing for PP rows), a projection
  // and a budget that some rows exceed, TP4 that does not fit.
  const std::vector<std::string> args = {
      "--model",
      "glm-5.3",
      "--tp",
      "4,16",
      "--pp",
      "1,2",
      "--to",
      "100G,emulated-100G",
      "--prompt",
      "8k,2x16k",
      "--fabric",
      "auto",
      "--baseline-tp",
      "8",
      "--baseline-ttft",
      "6.36s",
      "--baseline-prompt",
      "8k",
      "--max-ttft-increase",
      "25%",
      "--calibration",
      kSource + "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml"};
  auto with_format = [&](const std::string& format) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--format", format});
    return compare_outcome(a);
  };
  auto streamed = [&](const std::string& format) {
    const tpnet::cli::Outcome outcome = with_format(format);
    REQUIRE(outcome.write);
    std::ostringstream out;
    CHECK(outcome.write(out) == 1);  // some rows exceed the budget
    return out.str();
  };

  const tpnet::cli::Outcome table = with_format("table");
  std::vector<tpnet::Record> table_rows;
  for (const auto& f : table.doc.fields) {
    if (f.key == "rows") table_rows = f.records;
  }
  std::istringstream csv(streamed("csv"));
  std::string line;
  REQUIRE(std::getline(csv, line));
  const std::vector<std::string> header = split_csv_line(line);
  std::vector<std::vector<std::string>> csv_rows;
  while (std::getline(csv, line)) csv_rows.push_back(split_csv_line(line));
  const YAML::Node json = YAML::Load(streamed("json"));

  REQUIRE(table_rows.size() == 16);
  REQUIRE(csv_rows.size() == table_rows.size());
  REQUIRE(json["rows"].size() == table_rows.size());
  for (const char* key :
       {"point_network_share_pct", "predicted_extra_ttft_s", "ttft_source", "within_budget"}) {
    INFO(key);
    CHECK(std::count(header.begin(), header.end(), key) == 1);
  }
  std::map<std::string, std::map<bool, std::set<std::string>>> flag_words;
  for (std::size_t i = 0; i < table_rows.size(); ++i) {
    INFO("row " << i);
    REQUIRE(csv_rows[i].size() == header.size());
    std::map<std::string, std::string> csv_cell;
    for (std::size_t c = 0; c < header.size(); ++c) csv_cell[header[c]] = csv_rows[i][c];
    // JSON: the CSV header's keys in its order, each with the CSV cell's text.
    const YAML::Node row = json["rows"][i];
    std::vector<std::string> json_keys;
    for (const auto& kv : row) {
      const auto key = kv.first.as<std::string>();
      json_keys.push_back(key);
      INFO(key);
      CHECK((kv.second.IsNull() ? "" : kv.second.Scalar()) == csv_cell[key]);
    }
    CHECK(json_keys == header);
    // The table: each column is one of CSV's and JSON's (link joins two) with
    // the same value, shown in the column's unit or as a word.
    for (const auto& f : table_rows[i]) {
      INFO(f.key);
      if (f.key == "link") {
        CHECK(f.text == csv_cell.at("from") + "->" + csv_cell.at("to"));
        continue;
      }
      REQUIRE(csv_cell.count(f.key) == 1);
      const YAML::Node value = row[f.key];
      if (f.kind == tpnet::Field::Kind::number) {
        CHECK_THAT(value.as<double>(), WithinRel(f.number, 1e-11));
      } else if (value.IsNull()) {
        CHECK(f.text == "-");
      } else if (value.Scalar() == "true" || value.Scalar() == "false") {
        flag_words[f.key][value.as<bool>()].insert(f.text);
      } else {
        CHECK((f.text == value.as<std::string>() || f.text == "-"));
      }
    }
  }
  // A flag's table words: one per value, different for true and false.
  CHECK(flag_words.size() == 2);  // fits_memory, within_budget
  for (const auto& [key, words] : flag_words) {
    INFO(key);
    REQUIRE(words.size() == 2);
    CHECK(words.at(true).size() == 1);
    CHECK(words.at(false).size() == 1);
    CHECK(*words.at(true).begin() != *words.at(false).begin());
  }
}

TEST_CASE(
    "tpnet compare prices EP by vLLM's all-to-all backend, and refuses DeepEP's normal "
    "kernels naming the flag",
    "[cli]") {
  const auto bound_of = [](const char* backend) {
    const CliResult r =
        run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "8", "--ep", "16", "--prompt", "8k",
                   "--all2all-backend", backend, "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const YAML::Node j = YAML::Load(r.out);
    REQUIRE(j["rows"].size() == 1);
    return j["rows"][0]["per_token_bytes"].as<double>();
  };
  // TP8 x DP2 of DeepSeek-V3, per prompt token, sequence-parallel either
  // way: each TP rank takes 1/8 of the tokens; the default backend gathers
  // them over the 16 EP ranks and back, DeepEP sends them to the 15/16 of 8
  // experts on other ranks (FP8 out, BF16 back); the TP group all-gathers.
  const double block = 7168 * 2;
  const double allreduce = 1.75 * block;
  const double default_bytes =
      (58 + 3 * 2 + 1) * allreduce + 58 * (15.0 / 8 * ((block + 64) + block) + 7.0 / 8 * block);
  const double deepep_bytes =
      (58 + 3 * 2 + 1) * allreduce + 58 * (8.0 / 8 * 15 / 16 * (7408 + block) + 7.0 / 8 * block);
  CHECK(bound_of("allgather_reducescatter") == Approx(default_bytes));
  CHECK(bound_of("deepep_low_latency") == Approx(deepep_bytes));

  const CliResult normal =
      run_tpnet({"compare", "--model", "deepseek-v3", "--tp", "8", "--ep", "16", "--prompt", "8k",
                 "--all2all-backend", "deepep_high_throughput"});
  CHECK(normal.exit_code == 2);
  CHECK_THAT(normal.err, ContainsSubstring("--all2all-backend"));
  CHECK_THAT(normal.err, ContainsSubstring("eight GPUs per node"));
  const CliResult unknown =
      run_tpnet({"compare", "--model", "deepseek-v3", "--ep", "16", "--all2all-backend", "pplx"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, ContainsSubstring("--all2all-backend: pplx not in"));
}
