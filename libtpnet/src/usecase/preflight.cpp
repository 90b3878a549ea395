#include "tpnet/usecase/preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "tpnet/base/text.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_list.hpp"
#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet {

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::holds:
      return "holds";
    case CheckStatus::fails:
      return "fails";
    case CheckStatus::warns:
      return "warns";
    case CheckStatus::not_judged:
      return "not_judged";
  }
  return "not_judged";
}

bool PreflightReport::gate_failed() const {
  return std::any_of(checks.begin(), checks.end(),
                     [](const PreflightCheck& c) { return c.status == CheckStatus::fails; });
}

const PreflightCheck* PreflightReport::check(std::string_view name) const {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool ClusterPreflightReport::gate_failed() const {
  return std::any_of(nodes.begin(), nodes.end(),
                     [](const PreflightReport& n) { return n.gate_failed(); }) ||
         std::any_of(checks.begin(), checks.end(),
                     [](const PreflightCheck& c) { return c.status == CheckStatus::fails; });
}

int roce_mtu_for_interface(int interface_mtu) {
  // GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 (include/rdma/ib_addr.h).
  constexpr int kRoceHeaders = 96;
  const long long room = static_cast<long long>(interface_mtu) - kRoceHeaders;
  for (const int mtu : {4096, 2048, 1024, 512, 256}) {
    if (room >= mtu) return mtu;
  }
  return 0;
}

bool nccl_ib_hca_selects(std::string_view value, std::string_view device, int port) {
  return nccl_list_selects(parse_nccl_list(value), device, port);
}

namespace {

bool is_active(const RdmaPortFacts& p) {
  const bool up = p.state.find("ACTIVE") != std::string::npos;
  return up && (p.phys_state.empty() || p.phys_state.find("LinkUp") != std::string::npos);
}

bool is_ipv4_mapped(const std::string& gid) {
  return gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0;
}

std::optional<std::string> env_value(const NodeFacts& facts, const std::string& name) {
  if (!facts.nccl_environment) return std::nullopt;
  const auto it = facts.nccl_environment->find(name);
  if (it == facts.nccl_environment->end()) return std::nullopt;
  return it->second;
}

std::string joined_list(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

std::string gb(BitRate rate) { return rate_label(rate); }

/// The node's stated cost and fix for `finding`, laid onto a failing check.
void add_cost(PreflightCheck& check, const NodeSpec& node, std::string_view finding,
              const std::string& fix) {
  check.fix = fix;
  if (!node.preflight) return;
  const PreflightFinding* f = node.preflight->finding(finding);
  if (f == nullptr) return;
  check.cost = f->cost;
  check.source = f->source;
  check.degraded = f->degraded;
  check.healthy = f->healthy;
  if (!f->fix.empty()) check.fix += (check.fix.empty() ? "" : "; ") + f->fix;
}

PreflightCheck make_check(std::string name, CheckStatus status, std::string finding) {
  PreflightCheck c;
  c.name = std::move(name);
  c.status = status;
  c.finding = std::move(finding);
  return c;
}

/// The devices of each QSFP port, and which ports carry traffic.
struct CageDevices {
  int qsfp_port = -1;
  std::vector<const PreflightDevice*> devices;
  [[nodiscard]] bool in_use() const {
    return std::any_of(devices.begin(), devices.end(),
                       [](const PreflightDevice* d) { return d->active; });
  }
};

std::vector<CageDevices> port_groups(const std::vector<PreflightDevice>& devices) {
  std::map<std::string, CageDevices> groups;
  for (const auto& d : devices) {
    // A device whose function is unknown is a port of its own.
    const std::string key = d.qsfp_port >= 0 ? fmt::format("{:04d}", d.qsfp_port) : "~" + d.device;
    groups[key].qsfp_port = d.qsfp_port;
    groups[key].devices.push_back(&d);
  }
  std::vector<CageDevices> out;
  out.reserve(groups.size());
  for (auto& [key, group] : groups) out.push_back(group);
  return out;
}

std::string port_label(const CageDevices& g) {
  return g.qsfp_port >= 0 ? fmt::format("port {}", g.qsfp_port)
                          : "port of " + g.devices.front()->device;
}

std::vector<const PreflightDevice*> devices_in_use(const std::vector<CageDevices>& groups) {
  std::vector<const PreflightDevice*> out;
  for (const auto& g : groups) {
    if (!g.in_use()) continue;
    for (const auto* d : g.devices) {
      if (d->active) out.push_back(d);
    }
  }
  return out;
}

std::vector<PreflightDevice> read_devices(const NodeFacts& facts) {
  std::map<std::string, std::optional<int>> mtu_of;
  for (const auto& i : facts.interfaces) mtu_of[i.name] = i.mtu;
  const auto hca = env_value(facts, "NCCL_IB_HCA");
  std::vector<PreflightDevice> out;
  for (const auto& dev : facts.devices) {
    for (const auto& port : dev.ports) {
      PreflightDevice d;
      d.device = dev.name;
      d.port = port.number;
      if (dev.pci_address) {
        d.pci_address = to_string(*dev.pci_address);
        // A ConnectX-7 shows each QSFP cage as one function per PCIe half.
        d.qsfp_port = static_cast<int>(dev.pci_address->function);
      }
      if (!dev.netdevs.empty()) d.netdev = dev.netdevs.front();
      for (const auto& g : port.gids) {
        if (d.netdev.empty() && !g.netdev.empty()) d.netdev = g.netdev;
      }
      d.active = is_active(port);
      d.rate = port.rate;
      if (const auto it = mtu_of.find(d.netdev); it != mtu_of.end()) d.interface_mtu = it->second;
      if (port.active_mtu) {
        d.roce_mtu = port.active_mtu;
      } else if (d.interface_mtu) {
        d.roce_mtu = roce_mtu_for_interface(*d.interface_mtu);
        d.roce_mtu_derived = true;
      }
      for (const auto& g : port.gids) {
        if (g.type == "RoCE v2" && is_ipv4_mapped(g.gid)) {
          d.roce_v2_index = g.index;
          break;
        }
      }
      d.nccl_uses = hca ? nccl_ib_hca_selects(*hca, d.device, d.port) : d.active;
      out.push_back(d);
    }
  }
  return out;
}

PreflightCheck check_rdma_devices(const NodeFacts& facts, const NodeSpec& node) {
  if (facts.devices.empty()) {
    PreflightCheck c =
        make_check("rdma_devices", CheckStatus::fails,
                   "no RDMA device under /sys/class/infiniband: NCCL falls back to TCP sockets");
    c.fix = fmt::format(
        "load the {} RDMA driver (modprobe mlx5_ib) and check the devices with ibdev2netdev",
        node.nic.empty() ? std::string("NIC's") : node.nic);
    return c;
  }
  std::vector<std::string> names;
  std::vector<std::string> portless;
  for (const auto& d : facts.devices) {
    names.push_back(d.hca_type.empty() ? d.name : d.name + " (" + d.hca_type + ")");
    if (d.ports.empty()) portless.push_back(d.name);
  }
  if (!portless.empty()) {
    // The kernel lists a device's ports as soon as it lists the device: one
    // without any is a driver that did not finish, or a tree saved in part.
    PreflightCheck c = make_check(
        "rdma_devices", CheckStatus::fails,
        fmt::format("{} listed without any port (sys/class/infiniband/<device>/ports is empty): "
                    "NCCL cannot use {}",
                    joined_list(portless), portless.size() == 1 ? "it" : "them"));
    c.fix =
        "reload the RDMA driver (modprobe -r mlx5_ib; modprobe mlx5_ib), or save the tree "
        "again with calibration/scripts/save-node-tree.sh";
    return c;
  }
  return make_check("rdma_devices", CheckStatus::holds,
                    fmt::format("{} RDMA devices: {}", facts.devices.size(), joined_list(names)));
}

PreflightCheck check_ports_up(const std::vector<CageDevices>& groups, const NodeSpec& node) {
  if (groups.empty()) return make_check("ports_up", CheckStatus::not_judged, "no RDMA device");
  const int expected = node.host_links.count;
  std::vector<std::string> found;
  std::vector<std::string> faults;
  for (const auto& g : groups) {
    if (!g.in_use()) continue;
    std::vector<std::string> up;
    std::vector<std::string> down;
    for (const auto* d : g.devices) (d->active ? up : down).push_back(d->device);
    const int want = expected > 0 ? expected : static_cast<int>(g.devices.size());
    found.push_back(fmt::format("{}: {} up", port_label(g), joined_list(up)));
    if (static_cast<int>(up.size()) < want) {
      faults.push_back(fmt::format("{}: {} of {} RDMA devices up ({}{})", port_label(g), up.size(),
                                   want, joined_list(up),
                                   down.empty() ? "" : "; down: " + joined_list(down)));
    }
  }
  if (found.empty()) {
    PreflightCheck c =
        make_check("ports_up", CheckStatus::fails, "no RDMA port is up (state ACTIVE, LinkUp)");
    c.fix = "check the cable and the switch port; ibdev2netdev shows each device's link";
    return c;
  }
  if (faults.empty()) {
    return make_check("ports_up", CheckStatus::holds, joined_list(found, "; "));
  }
  PreflightCheck c = make_check("ports_up", CheckStatus::fails, joined_list(faults, "; "));
  add_cost(c, node, "one_device",
           "bring the port's other device up (ip link set dev IF up) and give it an address");
  return c;
}

PreflightCheck check_port_rate(const std::vector<const PreflightDevice*>& in_use,
                               const NodeSpec& node) {
  if (in_use.empty()) return make_check("port_rate", CheckStatus::not_judged, "no port is up");
  std::vector<std::string> slow;
  std::vector<std::string> all;
  std::set<double> rates;
  for (const auto* d : in_use) {
    if (!d->rate) {
      return make_check("port_rate", CheckStatus::not_judged,
                        d->device + ": its rate could not be read");
    }
    rates.insert(d->rate->bits_per_second());
    all.push_back(d->device + " " + gb(*d->rate));
    if (*d->rate < node.ports.rate && !same_rate(*d->rate, node.ports.rate)) {
      slow.push_back(d->device + " at " + gb(*d->rate));
    }
  }
  if (!slow.empty()) {
    PreflightCheck c = make_check(
        "port_rate", CheckStatus::warns,
        fmt::format("{}; the port's top rate is {}", joined_list(slow), gb(node.ports.rate)));
    c.fix =
        "a slower cable, switch port or breakout: right when planned (tpnet penalty prices "
        "it), else check the cable and ethtool IF";
    return c;
  }
  return make_check("port_rate", CheckStatus::holds, joined_list(all));
}

PreflightCheck check_interface_mtu(const std::vector<const PreflightDevice*>& in_use,
                                   const NodeSpec& node) {
  if (in_use.empty()) return make_check("interface_mtu", CheckStatus::not_judged, "no port is up");
  if (!node.preflight) {
    return make_check("interface_mtu", CheckStatus::not_judged,
                      "node " + node.name + " states no interface MTU (preflight.interface_mtu)");
  }
  const int want = node.preflight->interface_mtu;
  std::vector<std::string> low;
  std::vector<std::string> all;
  for (const auto* d : in_use) {
    if (!d->interface_mtu) {
      return make_check(
          "interface_mtu", CheckStatus::not_judged,
          fmt::format("{}: the MTU of its interface '{}' could not be read", d->device, d->netdev));
    }
    all.push_back(fmt::format("{} {} B", d->netdev, *d->interface_mtu));
    if (*d->interface_mtu < want)
      low.push_back(fmt::format("{} {} B", d->netdev, *d->interface_mtu));
  }
  if (low.empty()) return make_check("interface_mtu", CheckStatus::holds, joined_list(all));
  PreflightCheck c =
      make_check("interface_mtu", CheckStatus::fails,
                 fmt::format("{}; {} needs {} B", joined_list(low), node.name, want));
  std::vector<std::string> commands;
  for (const auto* d : in_use) {
    if (d->interface_mtu && *d->interface_mtu < want) {
      commands.push_back(fmt::format("ip link set dev {} mtu {}", d->netdev, want));
    }
  }
  add_cost(c, node, "mtu", joined_list(commands, "; "));
  return c;
}

PreflightCheck check_roce_mtu(const std::vector<const PreflightDevice*>& in_use,
                              const NodeSpec& node) {
  if (in_use.empty()) return make_check("roce_mtu", CheckStatus::not_judged, "no port is up");
  if (!node.preflight) {
    return make_check("roce_mtu", CheckStatus::not_judged,
                      "node " + node.name + " states no RoCE MTU (preflight.roce_mtu)");
  }
  const int want = node.preflight->roce_mtu;
  std::vector<std::string> low;
  std::vector<std::string> all;
  for (const auto* d : in_use) {
    if (!d->roce_mtu) {
      return make_check("roce_mtu", CheckStatus::not_judged,
                        d->device + ": neither ibv_devinfo's active_mtu nor its interface MTU");
    }
    const std::string text = fmt::format("{} {} B{}", d->device, *d->roce_mtu,
                                         d->roce_mtu_derived ? " (from the interface MTU)" : "");
    all.push_back(text);
    if (*d->roce_mtu < want) low.push_back(text);
  }
  if (low.empty()) return make_check("roce_mtu", CheckStatus::holds, joined_list(all));
  PreflightCheck c =
      make_check("roce_mtu", CheckStatus::fails,
                 fmt::format("{}; {} needs {} B", joined_list(low), node.name, want));
  add_cost(c, node, "mtu",
           fmt::format("the RoCE MTU follows the interface MTU: {} B or more on the interface "
                       "gives {} B",
                       want + 96, want));
  return c;
}

PreflightCheck check_gid_index(const NodeFacts& facts,
                               const std::vector<const PreflightDevice*>& in_use,
                               const NodeSpec& node) {
  if (in_use.empty()) return make_check("gid_index", CheckStatus::not_judged, "no port is up");
  const auto env = env_value(facts, "NCCL_IB_GID_INDEX");
  std::vector<std::string> found;
  std::vector<std::string> faults;
  std::set<int> indices;
  bool any_gids = false;
  for (const auto* d : in_use) {
    for (const auto& dev : facts.devices) {
      if (dev.name != d->device) continue;
      for (const auto& p : dev.ports) {
        if (p.number == d->port && !p.gids.empty()) any_gids = true;
      }
    }
    if (!d->roce_v2_index) {
      faults.push_back(d->device +
                       " has no RoCE v2 GID with an IPv4 address (its interface has "
                       "no IPv4 address)");
      continue;
    }
    indices.insert(*d->roce_v2_index);
    found.push_back(fmt::format("{} {}", d->device, *d->roce_v2_index));
  }
  if (!any_gids) {
    return make_check("gid_index", CheckStatus::not_judged, "no GID table could be read");
  }
  if (env) {
    int asked = -1;
    const std::string_view value = trim_space(*env);
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), asked);
    if (ec != std::errc() || end != value.data() + value.size()) {
      faults.push_back("NCCL_IB_GID_INDEX='" + *env + "' is not an index");
    } else {
      for (const auto* d : in_use) {
        if (d->roce_v2_index && *d->roce_v2_index != asked) {
          faults.push_back(fmt::format("NCCL_IB_GID_INDEX={} but {}'s RoCE v2 GID is at {}", asked,
                                       d->device, *d->roce_v2_index));
        }
      }
    }
  }
  const std::string where = "RoCE v2 GID index: " + joined_list(found);
  if (faults.empty()) {
    return make_check("gid_index", CheckStatus::holds,
                      env ? where + "; NCCL_IB_GID_INDEX=" + *env + " names it"
                          : where + "; NCCL_IB_GID_INDEX is not set: NCCL picks it");
  }
  PreflightCheck c = make_check("gid_index", CheckStatus::fails, joined_list(faults, "; "));
  std::string fix;
  if (indices.size() == 1) {
    fix = fmt::format("export NCCL_IB_GID_INDEX={} (or unset it)", *indices.begin());
  } else if (!indices.empty()) {
    fix = "the devices' RoCE v2 indices differ: unset NCCL_IB_GID_INDEX so NCCL picks each";
  } else {
    fix = "give the interface its IPv4 address (netplan) so a RoCE v2 GID appears";
  }
  add_cost(c, node, "gid_index", fix);
  return c;
}

PreflightCheck check_pcie_link(const NodeFacts& facts, const NodeSpec& node) {
  std::map<PciAddress, std::string> device_of;
  for (const auto& d : facts.devices) {
    if (d.pci_address) device_of[*d.pci_address] = d.name;
  }
  const bool stated = node.host_links.pcie_gen > 0 && node.host_links.lanes > 0;
  PcieSpec want;
  want.generation = node.host_links.pcie_gen;
  want.lanes = node.host_links.lanes;
  const double want_gt = stated ? pcie_link_rates(want).transfer_rate_gt_s : 0.0;
  const int want_lanes = stated ? node.host_links.lanes : 0;
  std::vector<std::string> found;
  std::vector<std::string> faults;
  std::optional<BitRate> estimated;
  for (const auto& link : facts.pci_links) {
    const auto it = device_of.find(link.address);
    if (it == device_of.end()) continue;
    const auto& cur_gt = link.current_gt_s;
    const auto& max_gt = link.max_gt_s;
    if (!cur_gt || !link.current_width) {
      return make_check("pcie_link", CheckStatus::not_judged,
                        fmt::format("{}: its current link speed or width could not be read",
                                    to_string(link.address)));
    }
    const double ref_gt = stated ? want_gt : max_gt.value_or(*cur_gt);
    const int ref_lanes = stated ? want_lanes : link.max_width.value_or(*link.current_width);
    const std::string text = fmt::format("{} ({}) {:g} GT/s x{}", to_string(link.address),
                                         it->second, *cur_gt, *link.current_width);
    found.push_back(text);
    const bool narrow = *link.current_width < ref_lanes ||
                        (link.max_width && *link.current_width < *link.max_width);
    const bool slow = *cur_gt < ref_gt || (max_gt && *cur_gt < *max_gt);
    if (!narrow && !slow) continue;
    faults.push_back(fmt::format("{}, should be {:g} GT/s x{}", text,
                                 std::max(ref_gt, max_gt.value_or(0.0)),
                                 std::max(ref_lanes, link.max_width.value_or(0))));
    if (stated && node.host_links.usable > BitRate(0.0)) {
      /// What the half carries scales with lanes x GT/s (docs/formulas.md s.27).
      const BitRate share = node.host_links.usable * ((*cur_gt * *link.current_width) /
                                                      (want_gt * static_cast<double>(want_lanes)));
      estimated = estimated ? std::min(*estimated, share) : share;
    }
  }
  if (found.empty()) {
    return make_check("pcie_link", CheckStatus::not_judged,
                      "no PCIe link of an RDMA device could be read");
  }
  if (faults.empty()) return make_check("pcie_link", CheckStatus::holds, joined_list(found));
  PreflightCheck c = make_check("pcie_link", CheckStatus::fails, joined_list(faults, "; "));
  c.estimated = estimated;
  add_cost(c, node, "pcie_link",
           "a function trained below its link: reseat or update the firmware, then reboot");
  return c;
}

PreflightCheck check_nccl_ib_hca(const NodeFacts& facts, const std::vector<CageDevices>& groups,
                                 const NodeSpec& node) {
  if (!facts.nccl_environment) {
    return make_check("nccl_ib_hca", CheckStatus::not_judged,
                      "the environment NCCL runs in is not known (no env file in the tree)");
  }
  std::vector<std::string> port_devices;
  for (const auto& g : groups) {
    if (!g.in_use()) continue;
    for (const auto* d : g.devices) port_devices.push_back(d->device);
  }
  const auto hca = env_value(facts, "NCCL_IB_HCA");
  if (!hca) {
    std::vector<std::string> active;
    for (const auto& g : groups) {
      for (const auto* d : g.devices) {
        if (d->active) active.push_back(d->device);
      }
    }
    if (active.empty()) {
      return make_check("nccl_ib_hca", CheckStatus::not_judged, "not set, and no device is up");
    }
    return make_check("nccl_ib_hca", CheckStatus::holds,
                      "not set: NCCL uses every active device (" + joined_list(active) + ")");
  }
  std::vector<std::string> faults;
  const NcclList list = parse_nccl_list(*hca);
  if (list.entries.empty() && list.exclude) {
    PreflightCheck c = make_check("nccl_ib_hca", CheckStatus::fails,
                                  "NCCL_IB_HCA=" + *hca +
                                      " excludes every device (an empty list after '^' matches "
                                      "all): NCCL uses no RDMA device and falls back to TCP "
                                      "sockets");
    add_cost(c, node, "one_device", "export NCCL_IB_HCA=" + joined_list(port_devices, ","));
    return c;
  }
  if (!list.exclude) {
    for (const auto& entry : list.entries) {
      const bool exists = std::any_of(
          facts.devices.begin(), facts.devices.end(),
          [&](const RdmaDeviceFacts& d) { return nccl_list_entry_names(list, entry, d.name); });
      if (!exists)
        faults.push_back(fmt::format("names {}, which this node does not have", entry.name));
    }
  }
  std::vector<std::string> used;
  for (const auto& g : groups) {
    if (!g.in_use()) continue;
    const bool any_used = std::any_of(g.devices.begin(), g.devices.end(),
                                      [](const PreflightDevice* d) { return d->nccl_uses; });
    for (const auto* d : g.devices) {
      if (d->nccl_uses) {
        used.push_back(d->device);
      } else {
        faults.push_back(
            any_used
                ? fmt::format("leaves out {} (the other PCIe half of {})", d->device, port_label(g))
                : fmt::format("leaves out {} ({}, the port in use)", d->device, port_label(g)));
      }
    }
  }
  if (faults.empty()) {
    return make_check("nccl_ib_hca", CheckStatus::holds,
                      "NCCL_IB_HCA=" + *hca +
                          (list.entries.empty() ? " is an empty list, which NCCL reads as every "
                                                  "device: "
                                                : " names ") +
                          joined_list(used));
  }
  PreflightCheck c = make_check("nccl_ib_hca", CheckStatus::fails,
                                "NCCL_IB_HCA=" + *hca + " " + joined_list(faults, "; "));
  add_cost(c, node, "one_device", "export NCCL_IB_HCA=" + joined_list(port_devices, ","));
  return c;
}

PreflightCheck check_socket_ifname(const NodeFacts& facts) {
  if (!facts.nccl_environment) {
    return make_check("nccl_socket_ifname", CheckStatus::not_judged,
                      "the environment NCCL runs in is not known (no env file in the tree)");
  }
  const auto value = env_value(facts, "NCCL_SOCKET_IFNAME");
  if (!value) {
    return make_check("nccl_socket_ifname", CheckStatus::holds,
                      "not set: NCCL picks an interface for its bootstrap itself");
  }
  // NCCL's ncclFindInterfaces reads the variable only when it is longer than
  // one character: "" and "^" leave the choice to NCCL.
  if (value->size() <= 1) {
    return make_check("nccl_socket_ifname", CheckStatus::holds,
                      "NCCL_SOCKET_IFNAME='" + *value +
                          "' is too short for NCCL to read (one character at most): NCCL picks "
                          "an interface for its bootstrap itself");
  }
  if (facts.interfaces.empty()) {
    return make_check("nccl_socket_ifname", CheckStatus::not_judged,
                      "NCCL_SOCKET_IFNAME=" + *value + "; no interface list was read");
  }
  const NcclList list = parse_nccl_list(*value);
  std::vector<std::string> matched;
  std::vector<std::string> up;
  for (const auto& i : facts.interfaces) {
    if (nccl_list_selects(list, i.name)) {
      matched.push_back(i.name);
      if (i.operstate != "down") up.push_back(i.name);
    }
  }
  if (matched.empty()) {
    PreflightCheck c =
        make_check("nccl_socket_ifname", CheckStatus::fails,
                   "NCCL_SOCKET_IFNAME=" + *value + " matches no interface of this node");
    c.fix = "name an interface `ip -br link` lists (the fabric interface, or the management one)";
    return c;
  }
  if (up.empty()) {
    PreflightCheck c =
        make_check("nccl_socket_ifname", CheckStatus::warns,
                   "NCCL_SOCKET_IFNAME=" + *value +
                       " matches only interfaces that are down: " + joined_list(matched));
    c.fix = "name an interface that is up";
    return c;
  }
  return make_check("nccl_socket_ifname", CheckStatus::holds,
                    "NCCL_SOCKET_IFNAME=" + *value + " matches " + joined_list(matched));
}

PreflightCheck check_memlock(const NodeFacts& facts, const NodeSpec& node) {
  const bool ipc = facts.ipc_lock.value_or(false);
  if (facts.memlock && facts.memlock->unlimited) {
    return make_check("memlock", CheckStatus::holds, "memlock unlimited");
  }
  if (ipc) {
    return make_check("memlock", CheckStatus::holds,
                      facts.memlock
                          ? fmt::format("memlock {:g} KiB, but CAP_IPC_LOCK lifts the limit",
                                        facts.memlock->limit.count() / 1024.0)
                          : "CAP_IPC_LOCK is effective: the memlock limit does not apply");
  }
  if (!facts.memlock) {
    return make_check("memlock", CheckStatus::not_judged, "the memlock limit is not known");
  }
  PreflightCheck c =
      make_check("memlock", facts.ipc_lock ? CheckStatus::fails : CheckStatus::warns,
                 fmt::format("memlock {:g} KiB and {}", facts.memlock->limit.count() / 1024.0,
                             facts.ipc_lock ? "no CAP_IPC_LOCK" : "CAP_IPC_LOCK not known"));
  add_cost(c, node, "memlock", "ulimit -l unlimited before NCCL starts");
  return c;
}

/// "2.28.9" -> {2, 28, 9} and the rest of the text.
struct NcclVersion {
  std::array<int, 3> number{};
  std::string suffix;
};

std::optional<NcclVersion> parse_nccl_version(const std::string& text) {
  NcclVersion v;
  const char* at = text.data();
  const char* last = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    const auto [end, ec] = std::from_chars(at, last, v.number[static_cast<size_t>(i)]);
    if (ec != std::errc()) return std::nullopt;
    at = end;
    if (i < 2) {
      if (at == last || *at != '.') return std::nullopt;
      ++at;
    }
  }
  v.suffix.assign(at, last);
  return v;
}

/// A release carries no suffix but a package revision ("-1") or the CUDA it
/// was built for ("+cuda13.0").
bool is_release_suffix(const std::string& suffix) {
  std::string rest = suffix;
  if (!rest.empty() && rest.front() == '-') {
    size_t i = 1;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])) != 0) ++i;
    if (i == 1) return false;
    rest.erase(0, i);
  }
  if (rest.empty()) return true;
  if (rest.rfind("+cuda", 0) != 0) return false;
  return std::all_of(rest.begin() + 5, rest.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
  });
}

PreflightCheck check_nccl_version(const NodeFacts& facts, const NodeSpec& node) {
  if (facts.nccl.empty()) {
    return make_check("nccl_version", CheckStatus::not_judged,
                      "no NCCL library found (a container's NCCL is checked inside it)");
  }
  std::set<std::string> versions;
  std::vector<std::string> where;
  for (const auto& lib : facts.nccl) {
    versions.insert(lib.version);
    where.push_back(lib.version + " (" + lib.where + ")");
  }
  const NcclLibraryFacts& first = facts.nccl.front();
  const auto v = parse_nccl_version(first.version);
  if (!v || !is_release_suffix(v->suffix)) {
    PreflightCheck c = make_check(
        "nccl_version", CheckStatus::fails,
        "NCCL " + first.version + " is not a release version: a development or patched build");
    add_cost(c, node, "nccl_build", "");
    return c;
  }
  if (versions.size() > 1) {
    PreflightCheck c = make_check("nccl_version", CheckStatus::warns,
                                  "several NCCL libraries: " + joined_list(where) +
                                      "; which one loads depends on LD_LIBRARY_PATH");
    c.fix = "keep one, or check NCCL's 'NCCL version' line (NCCL_DEBUG=VERSION)";
    return c;
  }
  if (node.preflight && !node.preflight->nccl_release.empty()) {
    const auto release = parse_nccl_version(node.preflight->nccl_release);
    if (release && v->number < release->number) {
      PreflightCheck c = make_check(
          "nccl_version", CheckStatus::warns,
          fmt::format("NCCL {} is older than {}, the release measured at full rate on {}",
                      first.version, node.preflight->nccl_release, node.name));
      c.fix = "install NCCL " + node.preflight->nccl_release + " or later";
      return c;
    }
  }
  return make_check("nccl_version", CheckStatus::holds, "NCCL " + joined_list(where));
}

}  // namespace

PreflightReport run_preflight(const PreflightRequest& request) {
  const NodeFacts& facts = request.facts;
  const NodeSpec& node = request.node;
  PreflightReport r;
  r.host = facts.host;
  r.node = node.name;
  r.devices = read_devices(facts);
  r.warnings = facts.unread;
  const std::vector<CageDevices> groups = port_groups(r.devices);
  const std::vector<const PreflightDevice*> in_use = devices_in_use(groups);
  r.checks.push_back(check_rdma_devices(facts, node));
  r.checks.push_back(check_ports_up(groups, node));
  r.checks.push_back(check_port_rate(in_use, node));
  r.checks.push_back(check_interface_mtu(in_use, node));
  r.checks.push_back(check_roce_mtu(in_use, node));
  r.checks.push_back(check_gid_index(facts, in_use, node));
  r.checks.push_back(check_pcie_link(facts, node));
  r.checks.push_back(check_nccl_ib_hca(facts, groups, node));
  r.checks.push_back(check_socket_ifname(facts));
  r.checks.push_back(check_memlock(facts, node));
  r.checks.push_back(check_nccl_version(facts, node));
  return r;
}

namespace {

std::string rank_label(const ClusterPreflightReport& r, size_t rank) {
  return fmt::format("rank {} ({})", rank, r.nodes[rank].host);
}

/// Per rank, one value ("3", "9000 B"), and whether they all agree.
struct PerRank {
  std::vector<std::optional<std::string>> values;
  [[nodiscard]] bool all_known() const {
    return std::all_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); });
  }
  [[nodiscard]] bool differ() const {
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (v) seen.insert(*v);
    }
    return seen.size() > 1;
  }
  [[nodiscard]] std::string listed(const ClusterPreflightReport& r) const {
    std::vector<std::string> parts;
    for (size_t i = 0; i < values.size(); ++i) {
      parts.push_back(rank_label(r, i) + " " + values[i].value_or("not known"));
    }
    return joined_list(parts, "; ");
  }
};

/// The values of the devices NCCL uses on one node, "a 3, b 3" -> "3".
template <typename Get>
std::optional<std::string> node_value(const PreflightReport& n, Get get) {
  std::set<std::string> values;
  for (const auto& d : n.devices) {
    if (!d.active || !d.nccl_uses) continue;
    const std::optional<std::string> v = get(d);
    if (!v) return std::nullopt;
    values.insert(*v);
  }
  if (values.empty()) return std::nullopt;
  return joined_list(std::vector<std::string>(values.begin(), values.end()), "/");
}

PreflightCheck cluster_gid_index(const ClusterPreflightReport& r,
                                 const std::vector<NodeFacts>& facts, const NodeSpec& node) {
  PerRank indices;
  for (const auto& n : r.nodes) {
    indices.values.push_back(node_value(n, [](const PreflightDevice& d) {
      return d.roce_v2_index ? std::optional<std::string>(std::to_string(*d.roce_v2_index))
                             : std::nullopt;
    }));
  }
  if (!indices.differ()) {
    return make_check("cluster_gid_index",
                      indices.all_known() ? CheckStatus::holds : CheckStatus::not_judged,
                      "RoCE v2 GID index: " + indices.listed(r));
  }
  std::vector<std::string> wrong;
  bool all_set = true;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const auto env = env_value(facts[i], "NCCL_IB_GID_INDEX");
    if (!env) {
      all_set = false;
      continue;
    }
    if (indices.values[i] && trim_space(*env) != *indices.values[i]) {
      wrong.push_back(fmt::format("{} sets NCCL_IB_GID_INDEX={} but its GID is at {}",
                                  rank_label(r, i), trim_space(*env), *indices.values[i]));
    }
  }
  const std::string listed = "RoCE v2 GID index differs between nodes: " + indices.listed(r);
  if (!wrong.empty()) {
    PreflightCheck c = make_check("cluster_gid_index", CheckStatus::fails,
                                  listed + "; " + joined_list(wrong, "; "));
    add_cost(c, node, "gid_index",
             "set NCCL_IB_GID_INDEX on each node to its own index, or unset it everywhere");
    return c;
  }
  if (all_set) {
    return make_check("cluster_gid_index", CheckStatus::holds,
                      listed + "; each node's NCCL_IB_GID_INDEX names its own");
  }
  PreflightCheck c = make_check(
      "cluster_gid_index", CheckStatus::warns,
      listed + "; a launcher that passes one NCCL_IB_GID_INDEX to every rank breaks this cluster");
  add_cost(c, node, "gid_index", "leave NCCL_IB_GID_INDEX unset, or set it per node");
  return c;
}

PreflightCheck cluster_differ(const ClusterPreflightReport& r, const std::string& name,
                              const std::string& what, const PerRank& values,
                              CheckStatus when_differ, const std::string& fix) {
  if (!values.differ()) {
    return make_check(name, values.all_known() ? CheckStatus::holds : CheckStatus::not_judged,
                      what + ": " + values.listed(r));
  }
  PreflightCheck c =
      make_check(name, when_differ, what + " differs between nodes: " + values.listed(r));
  c.fix = fix;
  return c;
}

}  // namespace

ClusterPreflightReport run_cluster_preflight(const ClusterPreflightRequest& request) {
  ClusterPreflightReport r;
  for (const auto& facts : request.nodes) {
    r.nodes.push_back(run_preflight(PreflightRequest{facts, request.node}));
  }
  if (r.nodes.size() < 2) {
    r.warnings.emplace_back("one node: the cluster checks compare nodes and need two or more");
  }
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    for (const auto& w : r.nodes[i].warnings) r.warnings.push_back(rank_label(r, i) + ": " + w);
  }
  r.checks.push_back(cluster_gid_index(r, request.nodes, request.node));

  PerRank mtu;
  PerRank roce;
  PerRank rate;
  PerRank nccl;
  PerRank hca;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const PreflightReport& n = r.nodes[i];
    mtu.values.push_back(node_value(n, [](const PreflightDevice& d) {
      return d.interface_mtu ? std::optional<std::string>(fmt::format("{} B", *d.interface_mtu))
                             : std::nullopt;
    }));
    roce.values.push_back(node_value(n, [](const PreflightDevice& d) {
      return d.roce_mtu ? std::optional<std::string>(fmt::format("{} B", *d.roce_mtu))
                        : std::nullopt;
    }));
    rate.values.push_back(node_value(n, [](const PreflightDevice& d) {
      return d.rate ? std::optional<std::string>(gb(*d.rate)) : std::nullopt;
    }));
    const NodeFacts& f = request.nodes[i];
    nccl.values.push_back(f.nccl.empty() ? std::nullopt
                                         : std::optional<std::string>(f.nccl.front().version));
    if (f.nccl_environment) {
      hca.values.emplace_back(env_value(f, "NCCL_IB_HCA").value_or("(not set)"));
    } else {
      hca.values.emplace_back();
    }
  }
  PreflightCheck mtu_check =
      cluster_differ(r, "cluster_mtu", "interface MTU", mtu, CheckStatus::fails,
                     "give every node's fabric interfaces the same MTU");
  add_cost(mtu_check, request.node, "mtu", mtu_check.fix);
  if (mtu_check.status != CheckStatus::fails) {
    mtu_check.cost.clear();
    mtu_check.source.clear();
    mtu_check.fix.clear();
  }
  r.checks.push_back(mtu_check);
  PreflightCheck roce_check = cluster_differ(
      r, "cluster_roce_mtu", "RoCE MTU", roce, CheckStatus::fails,
      "the path runs at the smaller RoCE MTU: raise the interface MTU where it is low");
  r.checks.push_back(roce_check);
  r.checks.push_back(cluster_differ(
      r, "cluster_port_rate", "port rate", rate, CheckStatus::fails,
      "a ring runs at its slowest link: check the slower node's cable and switch port"));
  r.checks.push_back(cluster_differ(
      r, "cluster_nccl_version", "NCCL version", nccl, CheckStatus::fails,
      "run one NCCL release on every node (the same container image, or the same package)"));
  r.checks.push_back(cluster_differ(r, "cluster_nccl_ib_hca", "NCCL_IB_HCA", hca,
                                    CheckStatus::warns,
                                    "right when each node names its own port's devices (each "
                                    "node's nccl_ib_hca check says whether it does)"));
  return r;
}

}  // namespace tpnet
