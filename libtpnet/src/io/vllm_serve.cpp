#include "tpnet/io/vllm_serve.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "../base/ascii_case.hpp"
#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

InputLocation at_args() { return InputLocation::for_key("vllm_args"); }

/// vLLM flags tpnet models: the request field, and what kind of value.
enum class Kind { count, tokens, fraction, text, toggle };
struct Known {
  std::string_view flag;  ///< long form, dashes
  std::string_view field;
  Kind kind;
};
constexpr Known kKnown[] = {
    {"tensor-parallel-size", "layout.tp", Kind::count},
    {"pipeline-parallel-size", "layout.pp", Kind::count},
    {"max-num-batched-tokens", "engine.max_num_batched_tokens", Kind::tokens},
    {"long-prefill-token-threshold", "engine.long_prefill_token_threshold", Kind::tokens},
    {"max-num-seqs", "engine.max_num_seqs", Kind::count},
    {"num-speculative-tokens", "engine.num_speculative_tokens", Kind::count},
    {"gpu-memory-utilization", "memory.gpu_memory_utilization", Kind::fraction},
    {"kv-cache-dtype", "memory.kv_cache_dtype", Kind::text},
    {"max-model-len", "memory.max_model_len", Kind::tokens},
    {"enforce-eager", "memory.enforce_eager", Kind::toggle},
    {"quantization", "model.quantization", Kind::text},
    {"all2all-backend", "engine.all2all_backend", Kind::text},
};

/// Flags read here but mapped after all are read.
constexpr std::string_view kSpeculativeConfig = "speculative-config";
constexpr std::string_view kExpertParallel = "enable-expert-parallel";
constexpr std::string_view kDataParallel = "data-parallel-size";
constexpr std::string_view kDtype = "dtype";
constexpr std::string_view kModel = "model";

/// vLLM switches that take no value, so the next word is not theirs.
constexpr std::string_view kSwitches[] = {
    "enforce-eager",
    "enable-expert-parallel",
    "trust-remote-code",
    "enable-prefix-caching",
    "no-enable-prefix-caching",
    "enable-chunked-prefill",
    "no-enable-chunked-prefill",
    "disable-log-requests",
    "disable-log-stats",
    "enable-log-requests",
    "no-enable-log-requests",
    "enable-auto-tool-choice",
    "async-scheduling",
    "no-async-scheduling",
    "disable-custom-all-reduce",
    "enable-sleep-mode",
    "enable-lora",
    "disable-cascade-attn",
    "enable-dbo",
    "enable-eplb",
    "headless",
    "disable-frontend-multiprocessing",
    "enable-server-load-tracking",
    "enable-prompt-tokens-details",
    "enable-force-include-usage",
    "disable-fastapi-docs",
    "no-enforce-eager",
    "skip-tokenizer-init",
    "enable-reasoning",
};

const std::map<std::string_view, std::string_view> kShort = {
    {"tp", "tensor-parallel-size"}, {"pp", "pipeline-parallel-size"},
    {"dp", "data-parallel-size"},   {"ep", "enable-expert-parallel"},
    {"q", "quantization"},
};

bool is_switch(std::string_view flag) {
  return std::find(std::begin(kSwitches), std::end(kSwitches), flag) != std::end(kSwitches);
}

const Known* known(std::string_view flag) {
  for (const Known& k : kKnown) {
    if (k.flag == flag) return &k;
  }
  return nullptr;
}

using detail::lowercase;

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// vLLM's --kv-cache-dtype names, as tpnet's memory.kv_cache_dtype takes them.
std::string kv_cache_dtype(const std::string& written, const std::string& shown) {
  const std::string v = lowercase(written);
  if (v == "auto") return "auto";
  if (v == "fp8" || v == "fp8_e4m3" || v == "fp8_e5m2" || v == "fp8_inc" || v == "fp8_ds_mla") {
    return "fp8";
  }
  if (v == "bfloat16" || v == "bf16") return "bf16";
  if (v == "float16" || v == "half" || v == "fp16") return "fp16";
  throw InputError(fmt::format("{}: '{}' is not a KV-cache dtype tpnet models; vLLM's auto, "
                               "bfloat16, float16, fp8, fp8_e4m3 and fp8_e5m2 are",
                               shown, written),
                   at_args());
}

/// vLLM's --quantization methods tpnet can price, as model.quantization takes them.
std::optional<std::string> quantization(const std::string& written) {
  const std::string v = lowercase(written);
  if (v == "fp8" || v == "modelopt" || v == "fbgemm_fp8" || v == "ptpc_fp8") return "fp8";
  if (v == "modelopt_fp4" || v == "nvfp4") return "nvfp4";
  if (v == "mxfp4") return "mxfp4";
  return std::nullopt;
}

/// A whole number in 1..limit, as vLLM's flag would take it.
std::string count_value(const std::string& value, const std::string& shown, long long limit) {
  if (!all_digits(value) || value.size() > 9 || std::stoll(value) < 1 ||
      std::stoll(value) > limit) {
    throw InputError(
        fmt::format("{}: '{}' must be a whole number from 1 to {}", shown, value, limit),
        at_args());
  }
  return std::to_string(std::stoll(value));
}

/// Open minus closed braces and square brackets.
int bracket_depth(const std::string& text) {
  int depth = 0;
  for (const char c : text) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
  }
  return depth;
}

/// A JSON object whose double quotes the shell removed, as an unquoted
/// `{"method":"mtp","num_speculative_tokens":3}` arrives:
/// `{method:mtp,num_speculative_tokens:3}`. YAML does not split `method:mtp`
/// into a pair; with a space after each ':' and ',' its flow map reads the
/// pairs the recipe wrote.
std::string with_pair_spaces(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == ':' || c == ',') out += ' ';
  }
  return out;
}

/// Whether `node` is what YAML makes of a quote-stripped object: every key
/// holds a ':' and has no value.
bool quotes_stripped(const YAML::Node& node) {
  if (!node.IsMap() || node.size() == 0) return false;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar() || kv.first.Scalar().find(':') == std::string::npos ||
        !kv.second.IsNull()) {
      return false;
    }
  }
  return true;
}

/// num_speculative_tokens from --speculative-config's JSON.
std::optional<std::string> speculative_tokens(const std::string& json, const std::string& shown) {
  YAML::Node node;
  bool read = false;
  try {
    node = YAML::Load(json);
    read = !quotes_stripped(node);
  } catch (const YAML::Exception&) {
  }
  if (!read && json.find('"') == std::string::npos) {
    try {
      node = YAML::Load(with_pair_spaces(json));
      read = node.IsMap() && !quotes_stripped(node);
    } catch (const YAML::Exception&) {
    }
  }
  if (!read) throw InputError(fmt::format("{}: is not valid JSON", shown), at_args());
  if (!node.IsMap()) {
    throw InputError(fmt::format("{}: must be a JSON object, e.g. "
                                 "'{{\"method\": \"mtp\", \"num_speculative_tokens\": 3}}'",
                                 shown),
                     at_args());
  }
  const YAML::Node tokens = node["num_speculative_tokens"];
  if (!tokens || tokens.IsNull()) return std::nullopt;
  if (!tokens.IsScalar()) {
    throw InputError(fmt::format("{}: num_speculative_tokens must be a number", shown), at_args());
  }
  return count_value(tokens.Scalar(), shown + " num_speculative_tokens", 64);
}

struct Word {
  std::string flag;   ///< long form, dashes, without "--"
  std::string value;  ///< "" for a switch
  bool has_value = false;
  std::string shown;  ///< as written
};

bool is_vllm(const std::string& w) {
  return w == "vllm" || (w.size() > 5 && w.compare(w.size() - 5, 5, "/vllm") == 0);
}

/// `vllm serve ...` or `python -m vllm.entrypoints.openai.api_server ...`.
bool starts_engine(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (is_vllm(words[i]) && i + 1 < words.size() && words[i + 1] == "serve") return true;
    if (words[i].rfind("vllm.entrypoints", 0) == 0) return true;
  }
  return false;
}

/// Where the engine's own arguments start: after `serve`, else at the first flag.
std::size_t arguments_start(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (is_vllm(words[i]) && words[i + 1] == "serve") return i + 2;
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].rfind("vllm.entrypoints", 0) == 0) return i + 1;  // python -m vllm.entrypoints...
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (!words[i].empty() && words[i][0] == '-') return i;
  }
  return words.size();
}

}  // namespace

std::vector<std::vector<std::string>> split_shell_commands(std::string_view text) {
  std::vector<std::vector<std::string>> commands(1);
  std::string word;
  bool in_word = false;
  bool skip_next_word = false;  // a redirection's target
  const auto end_word = [&] {
    if (in_word && !skip_next_word) commands.back().push_back(word);
    if (in_word) skip_next_word = false;
    word.clear();
    in_word = false;
  };
  const auto end_command = [&] {
    end_word();
    skip_next_word = false;
    if (!commands.back().empty()) commands.emplace_back();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;  // a line continuation joins the lines
        continue;
      }
      if (i + 1 < text.size()) {
        word += text[++i];
        in_word = true;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      const std::size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) {
        throw InputError(fmt::format("has an unclosed {} quote", c == '\'' ? "single" : "double"),
                         at_args());
      }
      const std::string_view quoted = text.substr(i + 1, close - i - 1);
      if (c == '"') {
        for (std::size_t j = 0; j < quoted.size(); ++j) {
          if (quoted[j] == '\\' && j + 1 < quoted.size() &&
              (quoted[j + 1] == '"' || quoted[j + 1] == '\\' || quoted[j + 1] == '$' ||
               quoted[j + 1] == '`')) {
            ++j;
          }
          word += quoted[j];
        }
      } else {
        word += quoted;
      }
      in_word = true;
      i = close;
      continue;
    }
    if (c == '#' && !in_word) {  // a comment runs to the end of its line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '\n' || c == ';' || c == '&' || c == '|') {
      if (c == '&' && i > 0 && text[i - 1] == '>') continue;  // ">&1": part of a redirection
      end_command();
      continue;
    }
    if (c == '>' || c == '<') {
      // "2>&1", "> log", ">>log": the descriptor and the target are not arguments.
      if (in_word && all_digits(word)) {
        word.clear();
        in_word = false;
      }
      end_word();
      while (i + 1 < text.size() && (text[i + 1] == '>' || text[i + 1] == '&')) ++i;
      if (text[i] == '&') {
        while (i + 1 < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0 || text[i + 1] == '-')) {
          ++i;
        }
      } else {
        skip_next_word = true;
      }
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      end_word();
      continue;
    }
    word += c;
    in_word = true;
  }
  end_command();
  if (commands.back().empty()) commands.pop_back();
  return commands;
}

VllmServeCommand parse_vllm_serve(std::string_view command_line) {
  const auto commands = split_shell_commands(command_line);
  // The command that runs vLLM, when the text holds a script around it.
  std::vector<std::string> words = commands.empty() ? std::vector<std::string>{} : commands[0];
  for (const auto& command : commands) {
    if (arguments_start(command) < command.size() && starts_engine(command)) {
      words = command;
      break;
    }
  }
  if (words.empty()) {
    throw InputError(
        "is empty; give a vllm serve command line, e.g. \"vllm serve MODEL "
        "--tensor-parallel-size 8\"",
        at_args());
  }
  VllmServeCommand out;
  std::vector<Word> flags;
  for (std::size_t i = arguments_start(words); i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() < 2 || w[0] != '-') {
      // argparse takes the positional MODEL anywhere among the flags.
      if (out.model) {
        throw InputError(fmt::format("'{}' is neither a flag nor a flag's value, and the model "
                                     "is already '{}'",
                                     w, *out.model),
                         at_args());
      }
      out.model = w;
      continue;
    }
    Word f;
    const std::size_t dashes = w[1] == '-' ? 2 : 1;
    std::string name = w.substr(dashes);
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      f.value = name.substr(eq + 1);
      f.has_value = true;
      name = name.substr(0, eq);
    }
    std::replace(name.begin(), name.end(), '_', '-');
    if (dashes == 1) {
      const auto alias = kShort.find(name);
      if (alias == kShort.end()) {
        out.ignored.push_back({w, "a short flag tpnet does not know"});
        continue;
      }
      name = std::string(alias->second);
    }
    f.flag = name;
    if (!f.has_value && !is_switch(name) && i + 1 < words.size() &&
        (words[i + 1].empty() || words[i + 1][0] != '-' || all_digits(words[i + 1].substr(1)))) {
      f.value = words[++i];
      f.has_value = true;
    }
    // An unquoted JSON value with spaces (--speculative-config {"method": "mtp",
    // ...}) reaches here cut at its spaces: its words are joined until the
    // brackets close, as the recipe meant it; left as it was when they never do.
    if (f.has_value && !f.value.empty() && (f.value.front() == '{' || f.value.front() == '[')) {
      std::string joined = f.value;
      std::size_t next = i;
      while (bracket_depth(joined) > 0 && next + 1 < words.size()) joined += " " + words[++next];
      if (bracket_depth(joined) == 0) {
        f.value = joined;
        i = next;
      }
    }
    f.shown = f.has_value ? "--" + name + " " + f.value : "--" + name;
    // One lookup: looked up twice, g++ -O3 cannot see the second is not null.
    const Known* spec = known(name);
    if (!f.has_value && spec != nullptr && spec->kind != Kind::toggle) {
      throw InputError(fmt::format("--{} needs a value", name), at_args());
    }
    flags.push_back(std::move(f));
  }

  const auto set = [&](const std::string& field, std::string value, const std::string& shown) {
    for (auto& s : out.settings) {
      if (s.field != field) continue;
      if (s.value != value) {
        throw InputError(fmt::format("{} and {} set one setting twice; vLLM would use the last, "
                                     "so keep one",
                                     s.vllm_flag, shown),
                         at_args());
      }
      return;
    }
    out.settings.push_back({field, std::move(value), shown});
  };

  std::optional<std::string> tp;
  std::optional<std::string> dp;
  std::string dp_shown;
  bool expert_parallel = false;
  std::string expert_shown;
  for (const Word& f : flags) {
    if (f.flag == kModel) {
      if (!f.has_value) throw InputError("--model needs a value", at_args());
      if (out.model && *out.model != f.value) {
        throw InputError(fmt::format("names two models, '{}' and '{}'", *out.model, f.value),
                         at_args());
      }
      out.model = f.value;
      continue;
    }
    if (f.flag == kSpeculativeConfig) {
      if (!f.has_value) throw InputError("--speculative-config needs a value", at_args());
      if (auto n = speculative_tokens(f.value, "--speculative-config")) {
        set("engine.num_speculative_tokens", *n, "--speculative-config " + f.value);
      }
      continue;
    }
    if (f.flag == kExpertParallel) {
      expert_parallel = true;
      expert_shown = f.shown;
      continue;
    }
    if (f.flag == kDataParallel) {
      dp = count_value(f.value, f.shown, 4096);
      dp_shown = f.shown;
      out.ignored.push_back({f.shown,
                             "tpnet sizes one instance; data-parallel replicas are tpnet "
                             "capacity's subject (`fleet_nodes`)"});
      continue;
    }
    if (f.flag == kDtype) {
      const std::string v = lowercase(f.value);
      if (v == "float32" || v == "float") {
        set("engine.activation_bytes", "4", f.shown);
      } else if (v != "auto" && v != "bfloat16" && v != "float16" && v != "half" && v != "bf16" &&
                 v != "fp16") {
        throw InputError(fmt::format("{}: '{}' is not a dtype vLLM takes (auto, bfloat16, "
                                     "float16, half, float32)",
                                     f.shown, f.value),
                         at_args());
      }
      continue;  // 16-bit activations are tpnet's default
    }
    const Known* k = known(f.flag);
    if (k == nullptr) {
      out.ignored.push_back({f.shown, "not an engine setting tpnet models"});
      continue;
    }
    switch (k->kind) {
      case Kind::count:
        set(std::string(k->field), count_value(f.value, f.shown, 1 << 20), f.shown);
        if (k->field == "layout.tp") tp = out.settings.back().value;
        break;
      case Kind::tokens:  // tpnet's token and number parsers check these
      case Kind::fraction:
        set(std::string(k->field), f.value, f.shown);
        break;
      case Kind::toggle:
        set(std::string(k->field), "", f.shown);
        break;
      case Kind::text:
        if (k->field == "memory.kv_cache_dtype") {
          set(std::string(k->field), kv_cache_dtype(f.value, f.shown), f.shown);
        } else if (k->field == "engine.all2all_backend") {
          set(std::string(k->field), lowercase(f.value), f.shown);
        } else if (auto q = quantization(f.value)) {
          set(std::string(k->field), *q, f.shown);
        } else {
          out.ignored.push_back(
              {f.shown,
               "a quantization method tpnet does not price; it reads the precision "
               "from the checkpoint's own files"});
        }
        break;
    }
  }
  for (const auto& s : out.settings) {
    if (s.field == "layout.tp") tp = s.value;
  }
  if (expert_parallel) {
    // vLLM spreads the experts over every rank of the instance: TP x DP.
    const long long ep = std::stoll(tp.value_or("1")) * std::stoll(dp.value_or("1"));
    if (ep > 1) set("layout.ep", std::to_string(ep), expert_shown);
    set("layout.enable_expert_parallel", "", expert_shown);
  }
  // Commands that run DP ranks (predict) take the size as vLLM names it;
  // the others note it as ignored (above) and use `layout.ep`.
  if (dp) set("layout.data_parallel_size", *dp, dp_shown);
  return out;
}

}  // namespace tpnet
