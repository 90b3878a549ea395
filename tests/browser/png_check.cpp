// png_check FILE...: each PNG decodes (8-bit RGB or RGBA, not interlaced) and
// is not blank: at least 1% of its pixels differ from the most common colour
// and it has at least 4 colours. Prints one line per file; exits 1 when one
// fails. Used by the browser test on Chromium's screenshots.

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a);
  const int pb = std::abs(p - b);
  const int pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/// Empty on success, else why not.
std::string check(const std::string& path, std::string& summary) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open";
  const std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  static const unsigned char kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (file.size() < 8 || !std::equal(kSignature, kSignature + 8, file.begin())) {
    return "not a PNG";
  }
  std::size_t at = 8;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::size_t channels = 0;
  std::vector<unsigned char> compressed;
  while (at + 12 <= file.size()) {
    const std::uint32_t length = be32(&file[at]);
    if (at + 12 + length > file.size()) return "truncated chunk";
    const std::string type(reinterpret_cast<const char*>(&file[at + 4]), 4);
    const unsigned char* data = &file[at + 8];
    if (type == "IHDR") {
      width = be32(data);
      height = be32(data + 4);
      const int depth = data[8];
      const int colour = data[9];
      if (depth != 8 || (colour != 2 && colour != 6) || data[12] != 0) {
        return "unsupported PNG layout (want 8-bit RGB/RGBA, not interlaced)";
      }
      channels = colour == 2 ? 3U : 4U;
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (width == 0 || height == 0 || channels == 0) return "no image header";
  const std::size_t stride = std::size_t{width} * channels;
  std::vector<unsigned char> raw((stride + 1) * height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, compressed.data(), compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    return "image data does not inflate to its size";
  }
  std::vector<unsigned char> pixels(stride * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    const int filter = raw[y * (stride + 1)];
    const unsigned char* line = &raw[y * (stride + 1) + 1];
    unsigned char* out = &pixels[y * stride];
    const unsigned char* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= channels ? out[i - channels] : 0;
      const int b = up != nullptr ? up[i] : 0;
      const int c = (up != nullptr && i >= channels) ? up[i - channels] : 0;
      int value = line[i];
      switch (filter) {
        case 0:
          break;
        case 1:
          value += a;
          break;
        case 2:
          value += b;
          break;
        case 3:
          value += (a + b) / 2;
          break;
        case 4:
          value += paeth(a, b, c);
          break;
        default:
          return "bad filter type";
      }
      out[i] = static_cast<unsigned char>(value & 0xFF);
    }
  }
  std::map<std::uint32_t, std::size_t> colours;
  for (std::size_t p = 0; p < pixels.size(); p += channels) {
    const std::uint32_t rgb = (std::uint32_t{pixels[p]} << 16) |
                              (std::uint32_t{pixels[p + 1]} << 8) | std::uint32_t{pixels[p + 2]};
    ++colours[rgb];
  }
  std::size_t most = 0;
  for (const auto& [rgb, count] : colours) most = std::max(most, count);
  const double total = static_cast<double>(width) * height;
  const double ink = (total - static_cast<double>(most)) / total;
  summary = std::to_string(width) + "x" + std::to_string(height) + ", " +
            std::to_string(colours.size()) + " colours, " +
            std::to_string(static_cast<int>(ink * 1000) / 10.0).substr(0, 4) + "% not background";
  if (ink < 0.01)
    return "blank: under 1% of the pixels differ from the background (" + summary + ")";
  if (colours.size() < 4) return "blank: fewer than 4 colours (" + summary + ")";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: png_check FILE.png...\n");
    return 2;
  }
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    std::string summary;
    const std::string why = check(argv[i], summary);
    if (why.empty()) {
      std::printf("ok   %s: %s\n", argv[i], summary.c_str());
    } else {
      std::printf("FAIL %s: %s\n", argv[i], why.c_str());
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}
