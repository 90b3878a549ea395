#include "tpnet/io/node_facts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "tpnet/base/error.hpp"
#include "tpnet/base/text.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {
namespace {

namespace fs = std::filesystem;

/// The largest attribute or saved file read (an `ibv_devinfo -v` listing is
/// tens of kilobytes): a link to /dev/zero or a huge file is refused, not read.
constexpr std::uint64_t kMaxTreeFileBytes = std::uint64_t{1} << 20;

/// The tree being read: its root resolved, and whether it is a saved copy
/// (whose links must stay inside it) or the live system.
struct Tree {
  fs::path root;
  bool saved = false;
};
thread_local const Tree* g_tree = nullptr;

/// Sets the tree read_value reads for the length of one read_node_facts.
class TreeScope {
 public:
  explicit TreeScope(const Tree& tree) : previous_(g_tree) { g_tree = &tree; }
  TreeScope(const TreeScope&) = delete;
  TreeScope& operator=(const TreeScope&) = delete;
  ~TreeScope() { g_tree = previous_; }

 private:
  const Tree* previous_;
};

bool inside(const fs::path& path, const fs::path& root) {
  const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

/// A sysfs attribute or a saved file, trimmed; nullopt when it is absent. On
/// the live system an attribute the kernel refuses (gid_attrs of an unused
/// GID) is absent too; in a saved tree a file that cannot be read, is not a
/// regular file, or links outside the tree is refused, naming it: a saved
/// tree's `hostname` linked to /etc/shadow must not print it.
std::optional<std::string> read_value(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
  const bool saved = g_tree != nullptr && g_tree->saved;
  const fs::path real = fs::canonical(path, ec);
  if (ec) {
    if (!saved) return std::nullopt;
    throw InputError(fmt::format("cannot be resolved: {}", ec.message()),
                     InputLocation::in_file(path.string()));
  }
  if (saved && !inside(real, g_tree->root)) {
    throw InputError(fmt::format("links to {}, outside the saved tree {}: only the tree's own "
                                 "files are read",
                                 real.string(), g_tree->root.string()),
                     InputLocation::in_file(path.string()));
  }
  try {
    return std::string(trim_space(read_text_file(real.string(), kMaxTreeFileBytes)));
  } catch (const InputError&) {
    if (saved) throw;
    return std::nullopt;
  }
}

/// A saved tree's value that is not what the kernel writes there is refused
/// naming the file; on the live system it counts as unread.
[[noreturn]] void refuse_value(const fs::path& path, const std::string& value,
                               std::string_view allowed) {
  throw InputError(fmt::format("'{}' is not {}", value, allowed),
                   InputLocation::in_file(path.string()));
}

bool saved_tree() { return g_tree != nullptr && g_tree->saved; }

/// An integer attribute within [low, high] (an interface MTU, a link width):
/// `2147483647` or `-2147483648` in a saved tree is refused, not carried
/// into a RoCE MTU by overflow.
std::optional<int> read_int_value(const fs::path& path, int low, int high,
                                  std::string_view allowed) {
  const auto text = read_value(path);
  if (!text) return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec == std::errc() && end == text->data() + text->size() && value >= low && value <= high) {
    return static_cast<int>(value);
  }
  if (saved_tree()) refuse_value(path, *text, allowed);
  return std::nullopt;
}

/// The plain decimal ("32.0", "200") `text` opens with when `unit` follows
/// it: no sign, no exponent, no `nan` or `inf`, which from_chars takes.
std::optional<double> plain_decimal_before(std::string_view text, std::string_view unit) {
  size_t at = 0;
  size_t digits = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) {
    ++at;
    ++digits;
  }
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
  }
  if (digits == 0 || digits > 4 || text.substr(at).rfind(unit, 0) != 0) return std::nullopt;
  double value = 0.0;
  std::from_chars(text.data(), text.data() + at, value);
  return value;
}

/// A PCIe link speed as sysfs writes it: "32.0 GT/s PCIe", "2.5 GT/s", or
/// "Unknown" for a link that has not trained.
struct PcieSpeed {
  bool read = false;           ///< the attribute held a speed or "Unknown"
  std::optional<double> gt_s;  ///< nullopt for "Unknown" or zero
};

PcieSpeed read_pcie_speed(const fs::path& path) {
  const auto text = read_value(path);
  if (!text) return {};
  if (const auto gt_s = plain_decimal_before(*text, " GT/s")) {
    return {true, *gt_s > 0.0 ? gt_s : std::nullopt};
  }
  if (text->rfind("Unknown", 0) == 0) return {true, std::nullopt};
  if (saved_tree()) {
    refuse_value(path, *text, "a PCIe link speed as sysfs writes it (\"32.0 GT/s PCIe\")");
  }
  return {};
}

/// An RDMA port's rate as sysfs writes it: "200 Gb/sec (2X NDR)"; a rate of
/// zero (a port that is down) is none.
std::optional<BitRate> read_port_rate(const fs::path& path) {
  const auto text = read_value(path);
  if (!text) return std::nullopt;
  if (const auto gbps = plain_decimal_before(*text, " Gb/sec")) {
    if (*gbps > 0.0) return BitRate::gigabits_per_second(*gbps);
    return std::nullopt;
  }
  if (saved_tree()) {
    refuse_value(path, *text, "a port rate as sysfs writes it (\"200 Gb/sec (2X NDR)\")");
  }
  return std::nullopt;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<int> to_int(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool all_zero(const std::string& gid) {
  return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

std::vector<GidEntry> read_gids(const fs::path& port) {
  std::vector<std::pair<int, std::string>> found;
  for (const auto& name : entries(port / "gids")) {
    const auto index = to_int(name);
    if (!index) continue;
    const auto gid = read_value(port / "gids" / name);
    if (gid && !gid->empty() && !all_zero(*gid)) found.emplace_back(*index, *gid);
  }
  std::sort(found.begin(), found.end());
  std::vector<GidEntry> gids;
  for (const auto& [index, gid] : found) {
    GidEntry e;
    e.index = index;
    e.gid = gid;
    const std::string name = std::to_string(index);
    e.type = read_value(port / "gid_attrs" / "types" / name).value_or("");
    e.netdev = read_value(port / "gid_attrs" / "ndevs" / name).value_or("");
    gids.push_back(e);
  }
  return gids;
}

/// PCI_SLOT_NAME in the device's uevent; a saved tree's name that is no PCI
/// address is refused, since it becomes a path under sys/bus/pci/devices.
std::optional<PciAddress> pci_address_of(const fs::path& device) {
  const fs::path uevent_path = device / "device" / "uevent";
  if (const auto uevent = read_value(uevent_path)) {
    std::istringstream lines(*uevent);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("PCI_SLOT_NAME=", 0) != 0) continue;
      const std::string_view name = trim_space(std::string_view(line).substr(14));
      if (const auto address = parse_pci_address(name)) return address;
      if (saved_tree()) {
        refuse_value(uevent_path, std::string(name), "a PCI address (\"0000:01:00.1\")");
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// `ibv_devinfo -v` output: each port's active_mtu ("active_mtu: 4096 (5)").
void apply_ibv_devinfo(const std::string& text, const std::string& origin, NodeFacts& facts) {
  std::istringstream lines(text);
  std::string line;
  RdmaDeviceFacts* device = nullptr;
  int port = 0;
  while (std::getline(lines, line)) {
    const std::string_view t = trim_space(line);
    if (t.rfind("hca_id:", 0) == 0) {
      const std::string_view name = trim_space(t.substr(7));
      device = nullptr;
      for (auto& d : facts.devices) {
        if (d.name == name) device = &d;
      }
      port = 0;
    } else if (t.rfind("port:", 0) == 0) {
      port = to_int(trim_space(t.substr(5))).value_or(0);
    } else if (t.rfind("active_mtu:", 0) == 0 && device != nullptr) {
      std::string_view value = trim_space(t.substr(11));
      value = value.substr(0, value.find(' '));
      const auto mtu = to_int(value);
      const bool ib_mtu =
          mtu && (*mtu == 256 || *mtu == 512 || *mtu == 1024 || *mtu == 2048 || *mtu == 4096);
      if (!ib_mtu) {
        throw InputError(fmt::format("active_mtu '{}' is not an InfiniBand MTU (256, 512, 1024, "
                                     "2048 or 4096)",
                                     value),
                         InputLocation::in_file(origin));
      }
      for (auto& p : device->ports) {
        if (p.number == port) p.active_mtu = mtu;
      }
    }
  }
}

/// CapEff in /proc/self/status: bit 14 is CAP_IPC_LOCK.
std::optional<bool> ipc_lock_of(const fs::path& status) {
  const auto text = read_value(status);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const std::string_view hex = trim_space(std::string_view(line).substr(7));
    unsigned long long caps = 0;
    const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), caps, 16);
    if (ec != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
    constexpr int kCapIpcLock = 14;
    return ((caps >> kCapIpcLock) & 1ULL) != 0;
  }
  return std::nullopt;
}

/// libnccl.so.2.28.9 in the usual library folders; nccl.h when no library is found.
std::vector<NcclLibraryFacts> find_nccl(const fs::path& root) {
  std::vector<NcclLibraryFacts> found;
  for (const char* dir :
       {"usr/lib/aarch64-linux-gnu", "usr/lib/x86_64-linux-gnu", "usr/lib64", "usr/lib",
        "usr/local/lib", "usr/local/cuda/lib64", "usr/local/nccl/lib", "opt/nccl/lib"}) {
    for (const auto& name : entries(root / dir)) {
      constexpr std::string_view kPrefix = "libnccl.so.";
      if (name.rfind(kPrefix, 0) != 0) continue;
      const std::string version = name.substr(kPrefix.size());
      if (std::count(version.begin(), version.end(), '.') < 2) continue;  // libnccl.so.2: a link
      found.push_back({version, "/" + std::string(dir) + "/" + name});
    }
  }
  if (!found.empty()) return found;
  for (const char* header : {"usr/include/nccl.h", "usr/local/cuda/include/nccl.h"}) {
    const auto text = read_value(root / header);
    if (!text) continue;
    std::map<std::string, std::string> defines;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::string define;
      std::string name;
      std::string value;
      if (words >> define >> name >> value && define == "#define") defines[name] = value;
    }
    if (defines.count("NCCL_MAJOR") && defines.count("NCCL_MINOR") && defines.count("NCCL_PATCH")) {
      std::string suffix = defines["NCCL_SUFFIX"];
      suffix.erase(std::remove(suffix.begin(), suffix.end(), '"'), suffix.end());
      found.push_back({fmt::format("{}.{}.{}{}", defines["NCCL_MAJOR"], defines["NCCL_MINOR"],
                                   defines["NCCL_PATCH"], suffix),
                       "/" + std::string(header)});
    }
  }
  return found;
}

}  // namespace

std::optional<PciAddress> parse_pci_address(std::string_view text) {
  // domain:bus:device.function, hex; from_chars would take a sign or "0x"
  // nowhere, but an empty or over-long field must be refused here.
  const auto hex_field = [&text](size_t digits_min, size_t digits_max, char end, unsigned& value) {
    size_t at = 0;
    while (at < text.size() && std::isxdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
    if (at < digits_min || at > digits_max) return false;
    if (end != '\0' && (at >= text.size() || text[at] != end)) return false;
    std::from_chars(text.data(), text.data() + at, value, 16);
    text.remove_prefix(end == '\0' ? at : at + 1);
    return true;
  };
  PciAddress a;
  if (!hex_field(4, 8, ':', a.domain) || !hex_field(2, 2, ':', a.bus) ||
      !hex_field(2, 2, '.', a.device) || !hex_field(1, 1, '\0', a.function) || !text.empty()) {
    return std::nullopt;
  }
  if (a.device > 31 || a.function > 7) return std::nullopt;
  return a;
}

MemlockFacts parse_memlock(std::string_view text, const std::string& origin) {
  const std::string_view value = trim_space(text);
  MemlockFacts m;
  if (value == "unlimited") {
    m.unlimited = true;
    return m;
  }
  long long kib = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), kib);
  if (ec != std::errc() || end != value.data() + value.size() || kib < 0) {
    throw InputError(
        fmt::format("'{}' is not what `ulimit -l` prints: 'unlimited' or a count of KiB", value),
        InputLocation::in_file(origin));
  }
  m.limit = Bytes(static_cast<double>(kib) * 1024.0);
  return m;
}

NodeFacts read_node_facts(const NodeFactsSource& source) {
  const fs::path root(source.root);
  std::error_code resolved;
  Tree tree{fs::canonical(root, resolved), source.saved_tree};
  if (resolved) tree.root = root;
  const TreeScope scope(tree);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw InputError("is not a directory", InputLocation::in_file(source.root));
  }
  if (source.saved_tree && !fs::is_directory(root / "sys" / "class" / "net", ec)) {
    throw InputError(
        "has no sys/class/net: not a tree saved by calibration/scripts/save-node-tree.sh",
        InputLocation::in_file(source.root));
  }
  NodeFacts facts;
  const fs::path ib = root / "sys" / "class" / "infiniband";
  for (const auto& name : entries(ib)) {
    RdmaDeviceFacts d;
    d.name = name;
    d.hca_type = read_value(ib / name / "hca_type").value_or("");
    d.firmware = read_value(ib / name / "fw_ver").value_or("");
    d.pci_address = pci_address_of(ib / name);
    if (!d.pci_address) facts.unread.push_back(name + ": no PCI address (device/uevent)");
    d.netdevs = entries(ib / name / "device" / "net");
    for (const auto& port_name : entries(ib / name / "ports")) {
      const auto number = to_int(port_name);
      if (!number) continue;
      const fs::path port = ib / name / "ports" / port_name;
      RdmaPortFacts p;
      p.number = *number;
      p.state = read_value(port / "state").value_or("");
      p.phys_state = read_value(port / "phys_state").value_or("");
      p.rate = read_port_rate(port / "rate");
      p.gids = read_gids(port);
      d.ports.push_back(p);
    }
    facts.devices.push_back(d);
  }
  for (const auto& name : entries(root / "sys" / "class" / "net")) {
    NetInterfaceFacts i;
    i.name = name;
    const fs::path dir = root / "sys" / "class" / "net" / name;
    // Ethernet jumbo frames stop near 9,216 B and loopback writes 65536; a
    // device the kernel leaves unbounded stays far below 256 KiB in practice.
    i.mtu = read_int_value(dir / "mtu", 0, 262144, "an interface MTU (0 to 262144 B)");
    i.operstate = read_value(dir / "operstate").value_or("");
    facts.interfaces.push_back(i);
  }
  for (const auto& d : facts.devices) {
    if (!d.pci_address) continue;
    const std::string address = to_string(*d.pci_address);
    const fs::path dir = root / "sys" / "bus" / "pci" / "devices" / address;
    PciLinkFacts link;
    link.address = *d.pci_address;
    const PcieSpeed current = read_pcie_speed(dir / "current_link_speed");
    link.current_gt_s = current.gt_s;
    link.max_gt_s = read_pcie_speed(dir / "max_link_speed").gt_s;
    // A link that has not trained reads 0 lanes.
    constexpr std::string_view kLanes = "a PCIe link width (0 to 32 lanes)";
    link.current_width = read_int_value(dir / "current_link_width", 0, 32, kLanes);
    link.max_width = read_int_value(dir / "max_link_width", 0, 32, kLanes);
    if (!current.read && !link.current_width) {
      facts.unread.push_back(fmt::format("{}: no PCIe link attributes", address));
      continue;
    }
    const bool seen = std::any_of(facts.pci_links.begin(), facts.pci_links.end(),
                                  [&](const PciLinkFacts& l) { return l.address == link.address; });
    if (!seen) facts.pci_links.push_back(link);
  }
  facts.ipc_lock = ipc_lock_of(root / "proc" / "self" / "status");
  if (source.saved_tree) {
    facts.host = read_value(root / "hostname").value_or(root.filename().string());
    if (const auto env = read_value(root / "env")) {
      std::map<std::string, std::string> vars;
      std::istringstream lines(*env);
      std::string line;
      while (std::getline(lines, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos || line.rfind("NCCL_", 0) != 0) continue;
        vars[line.substr(0, eq)] = line.substr(eq + 1);
      }
      facts.nccl_environment = vars;
    } else {
      facts.unread.emplace_back("no env file: the NCCL settings are not known");
    }
    if (const auto limits = read_value(root / "limits")) {
      facts.memlock = parse_memlock(*limits, (root / "limits").string());
    } else {
      facts.unread.emplace_back("no limits file: the memlock limit is not known");
    }
    if (const auto version = read_value(root / "nccl_version"); version && !version->empty()) {
      facts.nccl.push_back({*version, "nccl_version"});
    }
    if (const auto devinfo = read_value(root / "ibv_devinfo.txt")) {
      apply_ibv_devinfo(*devinfo, (root / "ibv_devinfo.txt").string(), facts);
    }
  } else {
    facts.host = read_value(root / "proc" / "sys" / "kernel" / "hostname").value_or("");
  }
  if (facts.nccl.empty()) facts.nccl = find_nccl(root);
  return facts;
}

namespace {

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescaped(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      out += next == 't' ? '\t' : next == 'n' ? '\n' : next;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string line_of(std::initializer_list<std::string_view> fields) {
  std::string out;
  for (const auto field : fields) out += (out.empty() ? "" : "\t") + escaped(field);
  return out + "\n";
}

std::string optional_int(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }
/// The shortest text that reads back as the same double; "-" for none.
std::string optional_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

}  // namespace

std::string node_facts_text(const NodeFacts& facts) {
  std::string out = line_of({"host", facts.host});
  for (const auto& d : facts.devices) {
    std::string netdevs;
    for (const auto& n : d.netdevs) netdevs += (netdevs.empty() ? "" : ",") + n;
    const std::string address = d.pci_address ? to_string(*d.pci_address) : "";
    out += line_of({"device", d.name, address, d.hca_type, d.firmware, netdevs});
    for (const auto& p : d.ports) {
      const std::optional<double> bps =
          p.rate ? std::optional<double>(p.rate->bits_per_second()) : std::nullopt;
      out += line_of({"port", std::to_string(p.number), p.state, p.phys_state, optional_number(bps),
                      optional_int(p.active_mtu)});
      for (const auto& g : p.gids) {
        out += line_of({"gid", std::to_string(g.index), g.gid, g.type, g.netdev});
      }
    }
  }
  for (const auto& i : facts.interfaces) {
    out += line_of({"interface", i.name, optional_int(i.mtu), i.operstate});
  }
  for (const auto& l : facts.pci_links) {
    out += line_of({"pci", to_string(l.address), optional_number(l.current_gt_s),
                    optional_number(l.max_gt_s), optional_int(l.current_width),
                    optional_int(l.max_width)});
  }
  if (facts.nccl_environment) {
    out += line_of({"environment"});
    for (const auto& [key, value] : *facts.nccl_environment) out += line_of({"env", key, value});
  }
  if (facts.memlock) {
    out += line_of({"memlock", facts.memlock->unlimited
                                   ? std::string("unlimited")
                                   : fmt::format("{:.0f}", facts.memlock->limit.count())});
  }
  if (facts.ipc_lock) out += line_of({"ipc_lock", *facts.ipc_lock ? "1" : "0"});
  for (const auto& n : facts.nccl) out += line_of({"nccl", n.version, n.where});
  for (const auto& u : facts.unread) out += line_of({"unread", u});
  return out;
}

NodeFacts parse_node_facts_text(std::string_view text, const std::string& origin) {
  NodeFacts facts;
  std::istringstream lines{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::string field;
    for (const char c : line) {
      if (c == '\t') {
        f.push_back(unescaped(field));
        field.clear();
      } else {
        field += c;
      }
    }
    f.push_back(unescaped(field));
    const auto fail = [&](const std::string& why) {
      throw InputError(why, InputLocation::in_file(origin, number, f.front()));
    };
    const auto want = [&](size_t count) {
      if (f.size() != count) fail(fmt::format("expected {} fields, found {}", count, f.size()));
    };
    const auto int_field = [&](const std::string& v) -> std::optional<int> {
      if (v == "-") return std::nullopt;
      const auto i = to_int(v);
      if (!i) fail("'" + v + "' is not a whole number");
      return i;
    };
    const auto positive_field = [&](const std::string& v) -> std::optional<double> {
      if (v == "-") return std::nullopt;
      double value = 0.0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
      if (ec != std::errc() || end != v.data() + v.size() || !(value > 0.0) ||
          !std::isfinite(value)) {
        fail(fmt::format("'{}' is not a positive number", v));
      }
      return value;
    };
    const auto address_field = [&](const std::string& v) {
      const auto address = parse_pci_address(v);
      if (!address) fail(fmt::format("'{}' is not a PCI address", v));
      return *address;
    };
    const std::string& kind = f.front();
    if (kind == "host") {
      want(2);
      facts.host = f[1];
    } else if (kind == "device") {
      want(6);
      RdmaDeviceFacts d{f[1], std::nullopt, f[3], f[4], {}, {}};
      if (!f[2].empty()) d.pci_address = address_field(f[2]);
      std::string n;
      for (const char c : f[5] + ",") {
        if (c == ',') {
          if (!n.empty()) d.netdevs.push_back(n);
          n.clear();
        } else {
          n += c;
        }
      }
      facts.devices.push_back(d);
    } else if (kind == "port") {
      want(6);
      if (facts.devices.empty()) fail("a port before any device");
      RdmaPortFacts p;
      p.number = int_field(f[1]).value_or(1);
      p.state = f[2];
      p.phys_state = f[3];
      if (const auto bps = positive_field(f[4])) p.rate = BitRate(*bps);
      p.active_mtu = int_field(f[5]);
      facts.devices.back().ports.push_back(p);
    } else if (kind == "gid") {
      want(5);
      if (facts.devices.empty() || facts.devices.back().ports.empty())
        fail("a gid before any port");
      facts.devices.back().ports.back().gids.push_back(
          {int_field(f[1]).value_or(0), f[2], f[3], f[4]});
    } else if (kind == "interface") {
      want(4);
      facts.interfaces.push_back({f[1], int_field(f[2]), f[3]});
    } else if (kind == "pci") {
      want(6);
      facts.pci_links.push_back({address_field(f[1]), positive_field(f[2]), positive_field(f[3]),
                                 int_field(f[4]), int_field(f[5])});
    } else if (kind == "environment") {
      want(1);
      facts.nccl_environment.emplace();
    } else if (kind == "env") {
      want(3);
      if (!facts.nccl_environment) fail("an env line before the environment line");
      (*facts.nccl_environment)[f[1]] = f[2];
    } else if (kind == "memlock") {
      want(2);
      if (f[1] == "unlimited") {
        facts.memlock = MemlockFacts{true, Bytes(0.0)};
      } else {
        double bytes = 0.0;
        const auto [end, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), bytes);
        if (ec != std::errc() || end != f[1].data() + f[1].size() || bytes < 0.0) {
          fail("'" + f[1] + "' is not a byte count");
        }
        facts.memlock = MemlockFacts{false, Bytes(bytes)};
      }
    } else if (kind == "ipc_lock") {
      want(2);
      if (f[1] != "0" && f[1] != "1") fail("expected 0 or 1");
      facts.ipc_lock = f[1] == "1";
    } else if (kind == "nccl") {
      want(3);
      facts.nccl.push_back({f[1], f[2]});
    } else if (kind == "unread") {
      want(2);
      facts.unread.push_back(f[1]);
    } else {
      fail("'" + kind + "' is not a fact this version of tpnet knows");
    }
  }
  return facts;
}

}  // namespace tpnet
