// Replays the checked-in fuzz corpora without libFuzzer, so the ordinary
// test suite (and `make asan`) runs every seed and every saved crash
// through the same contract the fuzzers check:
//   tpnet_fuzz_replay NAME FILE_OR_FOLDER...
// Exits 0 when every input passes; a contract violation aborts.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_entries.hpp"  // generated: the entry point of every target

namespace {

std::vector<std::filesystem::path> inputs(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      if (entry.is_regular_file()) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
  } else {
    out.push_back(path);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: tpnet_fuzz_replay NAME FILE_OR_FOLDER...\n");
    return 2;
  }
  const auto* target = std::find_if(std::begin(tpnet_fuzz_entries), std::end(tpnet_fuzz_entries),
                                    [&](const auto& e) { return args[0] == e.name; });
  if (target == std::end(tpnet_fuzz_entries)) {
    std::fprintf(stderr, "tpnet_fuzz_replay: no fuzz target '%s'\n", args[0].c_str());
    return 2;
  }
  int count = 0;
  for (std::size_t a = 1; a < args.size(); ++a) {
    for (const auto& file : inputs(args[a])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "tpnet_fuzz_replay: cannot read %s\n", file.c_str());
        return 2;
      }
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      std::fprintf(stderr, "%s\n", file.c_str());
      target->run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  if (count == 0) {
    std::fprintf(stderr, "tpnet_fuzz_replay: no inputs\n");
    return 2;
  }
  std::printf("fuzz_%s: %d inputs replayed, 0 crashes\n", args[0].c_str(), count);
  return 0;
}
