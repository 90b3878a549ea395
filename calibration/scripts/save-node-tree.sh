#!/bin/sh
# Saves what `tpnet preflight` reads from this node into a folder, so the
# check can run elsewhere (`tpnet preflight --root DIR`) or the tree can be
# attached to a bug report. Layout: docs/preflight.md.
#
#   calibration/scripts/save-node-tree.sh DIR
#
# Run it as the user, and in the container, that runs NCCL: the environment
# (only its NCCL_* variables are kept: the rest may hold secrets), the
# memlock limit and the capabilities saved are this shell's. It copies
# sysfs attributes with cat and reads nothing else, except `ibv_devinfo -v`
# when that tool is installed (the active RoCE MTU is not in sysfs).
set -eu

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out"

# One attribute: copied when readable (the kernel refuses some, such as the
# type of an unused GID), skipped otherwise.
save() {
  [ -r "$1" ] || return 0
  mkdir -p "$out$(dirname "$1")"
  cat "$1" > "$out$1" 2>/dev/null || rm -f "$out$1"
}

for dev in /sys/class/infiniband/*; do
  [ -d "$dev" ] || continue
  save "$dev/hca_type"
  save "$dev/fw_ver"
  save "$dev/device/uevent"
  for net in "$dev"/device/net/*; do
    [ -e "$net" ] || continue
    save "$dev/device/net/$(basename "$net")/uevent"
  done
  for port in "$dev"/ports/*; do
    [ -d "$port" ] || continue
    save "$port/state"
    save "$port/phys_state"
    save "$port/rate"
    for gid in "$port"/gids/*; do
      i=$(basename "$gid")
      value=$(cat "$gid" 2>/dev/null || true)
      case "$value" in
        "" | 0000:0000:0000:0000:0000:0000:0000:0000) continue ;;
      esac
      save "$gid"
      save "$port/gid_attrs/types/$i"
      save "$port/gid_attrs/ndevs/$i"
    done
  done
  slot=$(sed -n 's/^PCI_SLOT_NAME=//p' "$dev/device/uevent" 2>/dev/null || true)
  if [ -n "$slot" ]; then
    for attr in current_link_speed current_link_width max_link_speed max_link_width; do
      save "/sys/bus/pci/devices/$slot/$attr"
    done
  fi
done

for net in /sys/class/net/*; do
  save "$net/mtu"
  save "$net/operstate"
done

cat /proc/sys/kernel/hostname > "$out/hostname"
mkdir -p "$out/proc/self"
cat /proc/self/status > "$out/proc/self/status"
env | grep '^NCCL_' > "$out/env" || true
ulimit -l > "$out/limits"

# NCCL's version: from the library's file name, else from nccl.h.
version=""
for dir in /usr/lib/aarch64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib \
  /usr/local/lib /usr/local/cuda/lib64 /usr/local/nccl/lib /opt/nccl/lib \
  ${NCCL_HOME:+"$NCCL_HOME/lib"}; do
  for lib in "$dir"/libnccl.so.*.*.*; do
    [ -e "$lib" ] || continue
    version=${lib##*/libnccl.so.}
    break 2
  done
done
if [ -z "$version" ]; then
  for header in ${NCCL_HOME:+"$NCCL_HOME/include/nccl.h"} /usr/include/nccl.h \
    /usr/local/cuda/include/nccl.h; do
    [ -r "$header" ] || continue
    version=$(awk '$1 == "#define" && $2 == "NCCL_MAJOR" {a = $3}
                   $1 == "#define" && $2 == "NCCL_MINOR" {b = $3}
                   $1 == "#define" && $2 == "NCCL_PATCH" {c = $3}
                   $1 == "#define" && $2 == "NCCL_SUFFIX" {gsub(/"/, "", $3); d = $3}
                   END {if (a != "") print a "." b "." c d}' "$header")
    [ -n "$version" ] && break
  done
fi
[ -n "$version" ] && echo "$version" > "$out/nccl_version"

if command -v ibv_devinfo > /dev/null 2>&1; then
  ibv_devinfo -v > "$out/ibv_devinfo.txt" 2>/dev/null || rm -f "$out/ibv_devinfo.txt"
fi
echo "saved to $out: tpnet preflight --root $out" >&2
