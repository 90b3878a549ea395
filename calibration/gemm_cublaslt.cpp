#include "gemm_cublaslt.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "calibrate_command.hpp"
#include "gemm_formats.hpp"
#include "source_file_name.hpp"
#include "tpnet/base/error.hpp"

namespace tpnet::calibrate {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20U;  // 32 MiB
constexpr std::uint64_t kSeed = 20261129;
constexpr std::size_t kGateBatch = 64;    ///< runs queued behind one StreamGate
constexpr int kMaxRotation = 64;          ///< operand copies at most when rotating past L2
constexpr double kCheckTolerance = 1e-2;  ///< of |ref| + rms(ref); BF16 output rounds at 2^-9

/// The file name without its folders, for error messages.
// The file and line of the caller come from __builtin_FILE/__builtin_LINE
// (GCC and Clang; std::source_location needs a newer Clang than 14).
[[noreturn]] void fail(std::string_view call, const std::string& status, int device,
                       const char* file, int line) {
  throw MeasurementError(fmt::format("{} failed on device {}: {} [{}:{}]", call, device, status,
                                     source_file_name(file), line));
}

void cuda_ok(cudaError_t status, std::string_view call, int device,
             const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (status == cudaSuccess) return;
  fail(call, fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status)), device,
       file, line);
}

void lt_ok(cublasStatus_t status, std::string_view call, int device,
           const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  fail(call, fmt::format("{} ({})", cublasLtGetStatusName(status), cublasLtGetStatusString(status)),
       device, file, line);
}

long long round_up(long long value, long long multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::size_t size(long long value) { return static_cast<std::size_t>(value); }

/// Device memory freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, int device) : bytes_(bytes) {
    cuda_ok(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1)),
            fmt::format("cudaMalloc({} bytes)", bytes), device);
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) static_cast<void>(cudaFree(ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(other.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_ != nullptr) static_cast<void>(cudaFree(ptr_));
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = other.bytes_;
    }
    return *this;
  }

  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct MatmulDescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* p) const { cublasLtMatmulDescDestroy(p); }
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayoutOpaque_t* p) const { cublasLtMatrixLayoutDestroy(p); }
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, MatmulDescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LayoutDeleter>;

/// Each FP8 tensor scale in its own slot of this size: cublasLtMatmul refused
/// (CUBLAS_STATUS_NOT_SUPPORTED, H200, cuBLASLt 13) the B scale at 4 bytes
/// past the A scale, though the heuristic accepted the descriptor; cudaMalloc
/// aligns every other operand to 256 bytes.
constexpr std::size_t kScaleSlotBytes = 256;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter>;

cudaDataType_t data_type(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::nvfp4:
      return CUDA_R_4F_E2M1;
    case GemmPrecision::fp8:
      return CUDA_R_8F_E4M3;
    case GemmPrecision::bf16:
      return CUDA_R_16BF;
  }
  return CUDA_R_16BF;
}

/// Bytes of a rows x k operand.
std::size_t operand_bytes(GemmPrecision p, long long rows, long long k) {
  const std::size_t elements = size(rows) * size(k);
  switch (p) {
    case GemmPrecision::nvfp4:
      return (elements + 1) / 2;
    case GemmPrecision::fp8:
      return elements;
    case GemmPrecision::bf16:
      return elements * 2;
  }
  return elements * 2;
}

/// One operand on the host: data bytes as the GPU reads them, and its scales.
struct HostOperand {
  long long rows = 0;
  long long k = 0;
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> block_scales;  ///< NVFP4: UE4M3 in the 128x4 tiled layout
  float tensor_scale = 1.0F;               ///< FP8: one FP32 scale for the tensor
};

/// Random, never all-zero, exactly representable operands from a fixed seed:
/// NVFP4 every E2M1 code with UE4M3 block scales 0.25 to 7.5; FP8 E4M3 of
/// magnitude 1/8 to 15 with a tensor scale; BF16 uniform in [-2, 2).
HostOperand random_operand(GemmPrecision p, long long rows, long long k, float tensor_scale,
                           std::mt19937_64& rng) {
  HostOperand op;
  op.rows = rows;
  op.k = k;
  op.data.resize(operand_bytes(p, rows, k));
  switch (p) {
    case GemmPrecision::nvfp4: {
      for (std::size_t i = 0; i < op.data.size(); i += 8) {
        const std::uint64_t bits = rng();
        for (std::size_t b = 0; b < 8 && i + b < op.data.size(); ++b) {
          op.data[i + b] = static_cast<std::uint8_t>(bits >> (8 * b));
        }
      }
      op.block_scales.resize(block_scale_bytes(size(rows), size(k) / 16));
      std::uniform_int_distribution<unsigned> exponent(5, 9);  // 0.25 .. 7.5
      std::uniform_int_distribution<unsigned> mantissa(0, 7);
      for (auto& s : op.block_scales) {
        s = static_cast<std::uint8_t>((exponent(rng) << 3U) | mantissa(rng));
      }
      break;
    }
    case GemmPrecision::fp8: {
      std::uniform_int_distribution<unsigned> exponent(4, 10);  // 2^-3 .. 2^3
      std::uniform_int_distribution<unsigned> low(0, 15);       // mantissa and sign
      for (auto& c : op.data) {
        const unsigned bits = low(rng);
        c = static_cast<std::uint8_t>(((bits & 8U) << 4U) | (exponent(rng) << 3U) | (bits & 7U));
      }
      op.tensor_scale = tensor_scale;
      break;
    }
    case GemmPrecision::bf16: {
      std::uniform_real_distribution<float> value(-2.0F, 2.0F);
      for (std::size_t i = 0; i + 1 < op.data.size(); i += 2) {
        const std::uint16_t bits = encode_bf16(value(rng));
        op.data[i] = static_cast<std::uint8_t>(bits & 0xFFU);
        op.data[i + 1] = static_cast<std::uint8_t>(bits >> 8U);
      }
      break;
    }
  }
  return op;
}

/// The value the GPU multiplies for element (row, kk), scales applied.
float operand_value(GemmPrecision p, const HostOperand& op, long long row, long long kk) {
  const std::size_t index = size(row) * size(op.k) + size(kk);
  switch (p) {
    case GemmPrecision::nvfp4: {
      const std::size_t scale = block_scale_offset(size(row), size(kk) / 16, size(op.k) / 16);
      return decode_e2m1(unpack_e2m1(op.data, index)) * decode_ue4m3(op.block_scales[scale]);
    }
    case GemmPrecision::fp8:
      return decode_e4m3(op.data[index]) * op.tensor_scale;
    case GemmPrecision::bf16: {
      const auto bits =
          static_cast<std::uint16_t>(op.data[2 * index] | (op.data[2 * index + 1] << 8U));
      return decode_bf16(bits);
    }
  }
  return 0.0F;
}

/// One operand on the device.
struct DeviceOperand {
  DeviceBuffer data;
  DeviceBuffer block_scales;
};

DeviceOperand upload(const HostOperand& op, int device) {
  DeviceOperand d{DeviceBuffer(op.data.size(), device),
                  DeviceBuffer(op.block_scales.size(), device)};
  cuda_ok(cudaMemcpy(d.data.get(), op.data.data(), op.data.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy (operand to device)", device);
  if (!op.block_scales.empty()) {
    cuda_ok(cudaMemcpy(d.block_scales.get(), op.block_scales.data(), op.block_scales.size(),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy (block scales to device)", device);
  }
  return d;
}

DeviceOperand copy_of(const DeviceOperand& from, int device) {
  DeviceOperand d{DeviceBuffer(from.data.bytes(), device),
                  DeviceBuffer(from.block_scales.bytes(), device)};
  cuda_ok(cudaMemcpy(d.data.get(), from.data.get(), from.data.bytes(), cudaMemcpyDeviceToDevice),
          "cudaMemcpy (operand copy)", device);
  if (from.block_scales.bytes() > 0) {
    cuda_ok(cudaMemcpy(d.block_scales.get(), from.block_scales.get(), from.block_scales.bytes(),
                       cudaMemcpyDeviceToDevice),
            "cudaMemcpy (block scale copy)", device);
  }
  return d;
}

/// Holds a stream at a host function until released: work queued meanwhile
/// starts together once the gate opens. Destroyed unreleased (a launch in
/// between threw), it opens the gate and drains the stream quietly.
class StreamGate {
 public:
  StreamGate(cudaStream_t stream, int device) : stream_(stream), device_(device) {
    cuda_ok(cudaLaunchHostFunc(stream_, &StreamGate::wait, &open_), "cudaLaunchHostFunc", device_);
  }
  ~StreamGate() {
    if (released_) return;
    open_.store(true, std::memory_order_release);
    static_cast<void>(cudaStreamSynchronize(stream_));
  }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  StreamGate(StreamGate&&) = delete;
  StreamGate& operator=(StreamGate&&) = delete;

  /// Opens the gate and waits until the queued work has run.
  void release() {
    open_.store(true, std::memory_order_release);
    released_ = true;
    cuda_ok(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", device_);
  }

 private:
  static void CUDART_CB wait(void* flag) {
    const auto* open = static_cast<const std::atomic<bool>*>(flag);
    while (!open->load(std::memory_order_acquire)) std::this_thread::yield();
  }

  cudaStream_t stream_;
  int device_;
  std::atomic<bool> open_{false};
  bool released_ = false;
};

}  // namespace

LtDims padded(LtDims dims, GemmPrecision precision) {
  const long long k_multiple = precision == GemmPrecision::nvfp4 ? 64 : 16;
  return {round_up(std::max(1LL, dims.out), 16), round_up(std::max(1LL, dims.tokens), 16),
          round_up(std::max(1LL, dims.k), k_multiple)};
}

DeviceInfo open_device(int index) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    throw MeasurementError(
        fmt::format("no CUDA device: cudaGetDeviceCount returned {} ({}) and {} devices",
                    cudaGetErrorName(status), cudaGetErrorString(status), count));
  }
  if (index < 0 || index >= count) {
    throw InputError(fmt::format("{} is not a CUDA device here; allowed 0 to {}", index, count - 1),
                     InputLocation::for_key("--device"));
  }
  cuda_ok(cudaSetDevice(index), "cudaSetDevice", index);
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties", index);
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  std::replace(info.name.begin(), info.name.end(), ',', ' ');
  info.cc = {prop.major, prop.minor};
  info.l2_bytes = static_cast<std::size_t>(std::max(0, prop.l2CacheSize));
  info.memory_bytes = prop.totalGlobalMem;
  return info;
}

struct LtRunner::State {
  DeviceInfo device;
  cublasLtHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  DeviceBuffer workspace;
  std::vector<cudaEvent_t> events;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  State(State&&) = delete;
  State& operator=(State&&) = delete;
  ~State() {
    for (cudaEvent_t e : events) static_cast<void>(cudaEventDestroy(e));
    if (stream != nullptr) static_cast<void>(cudaStreamDestroy(stream));
    if (handle != nullptr) static_cast<void>(cublasLtDestroy(handle));
  }

  [[nodiscard]] int id() const { return device.index; }

  /// Descriptors and the heuristic's algorithm for one problem.
  struct Plan {
    MatmulDesc op;
    Layout a;
    Layout b;
    Layout d;
    cublasLtMatmulAlgo_t algo{};
    bool found = false;
  };

  void set_attribute(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attribute,
                     const void* value, std::size_t bytes, std::string_view what) const {
    lt_ok(cublasLtMatmulDescSetAttribute(op, attribute, value, bytes),
          fmt::format("cublasLtMatmulDescSetAttribute({})", what), id());
  }

  /// Points the descriptor at one operand set's scales.
  void set_scales(const Plan& plan, GemmPrecision p, const DeviceOperand& w, const DeviceOperand& x,
                  const DeviceBuffer& tensor_scales) const {
    const void* a_scale = nullptr;
    const void* b_scale = nullptr;
    if (p == GemmPrecision::nvfp4) {
      a_scale = w.block_scales.get();
      b_scale = x.block_scales.get();
    } else if (p == GemmPrecision::fp8) {
      a_scale = tensor_scales.get();
      b_scale = static_cast<const std::byte*>(tensor_scales.get()) + kScaleSlotBytes;
    } else {
      return;
    }
    set_attribute(plan.op.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof(a_scale),
                  "A_SCALE_POINTER");
    set_attribute(plan.op.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof(b_scale),
                  "B_SCALE_POINTER");
  }

  Plan make_plan(GemmPrecision p, LtDims dims, const DeviceOperand& w, const DeviceOperand& x,
                 const DeviceBuffer& tensor_scales) const {
    Plan plan;
    cublasLtMatmulDesc_t op = nullptr;
    lt_ok(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate",
          id());
    plan.op.reset(op);
    // TN: A (the weights, k x out, column-major) transposed, B (the activations, k x tokens) not.
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t none = CUBLAS_OP_N;
    set_attribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose), "TRANSA");
    set_attribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof(none), "TRANSB");
    if (p == GemmPrecision::nvfp4) {
      const std::int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
      set_attribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode), "A_SCALE_MODE");
      set_attribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode), "B_SCALE_MODE");
    }
    set_scales(plan, p, w, x, tensor_scales);

    const auto make_layout = [&](cudaDataType_t type, long long rows, long long cols,
                                 std::string_view what) {
      cublasLtMatrixLayout_t layout = nullptr;
      lt_ok(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                       static_cast<std::uint64_t>(cols), rows),
            fmt::format("cublasLtMatrixLayoutCreate({})", what), id());
      return Layout(layout);
    };
    plan.a = make_layout(data_type(p), dims.k, dims.out, "A");
    plan.b = make_layout(data_type(p), dims.k, dims.tokens, "B");
    plan.d = make_layout(CUDA_R_16BF, dims.out, dims.tokens, "D");

    cublasLtMatmulPreference_t pref = nullptr;
    lt_ok(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", id());
    const Preference preference(pref);
    const std::uint64_t workspace_bytes = workspace.bytes();
    lt_ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &workspace_bytes, sizeof(workspace_bytes)),
          "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", id());
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(handle, op, plan.a.get(), plan.b.get(), plan.d.get(),
                                       plan.d.get(), pref, 1, &result, &found);
    // NOT_SUPPORTED means no algorithm for this precision here; anything else is a failure.
    if (status != CUBLAS_STATUS_NOT_SUPPORTED) {
      lt_ok(status, "cublasLtMatmulAlgoGetHeuristic", id());
    }
    plan.found =
        status == CUBLAS_STATUS_SUCCESS && found > 0 && result.state == CUBLAS_STATUS_SUCCESS;
    if (plan.found) plan.algo = result.algo;
    return plan;
  }

  void matmul(const Plan& plan, const DeviceOperand& w, const DeviceOperand& x,
              const DeviceBuffer& out) const {
    const float alpha = 1.0F;
    const float beta = 0.0F;
    lt_ok(cublasLtMatmul(handle, plan.op.get(), &alpha, w.data.get(), plan.a.get(), x.data.get(),
                         plan.b.get(), &beta, out.get(), plan.d.get(), out.get(), plan.d.get(),
                         &plan.algo, workspace.get(), workspace.bytes(), stream),
          "cublasLtMatmul", id());
  }

  DeviceBuffer upload_tensor_scales(const HostOperand& w, const HostOperand& x) const {
    DeviceBuffer scales(2 * kScaleSlotBytes, id());
    cuda_ok(cudaMemcpy(scales.get(), &w.tensor_scale, sizeof(float), cudaMemcpyHostToDevice),
            "cudaMemcpy (weight tensor scale)", id());
    cuda_ok(cudaMemcpy(static_cast<std::byte*>(scales.get()) + kScaleSlotBytes, &x.tensor_scale,
                       sizeof(float), cudaMemcpyHostToDevice),
            "cudaMemcpy (activation tensor scale)", id());
    return scales;
  }

  [[noreturn]] void no_algorithm(GemmPrecision p, LtDims dims) const {
    throw MeasurementError(fmt::format(
        "cublasLtMatmulAlgoGetHeuristic found no {} algorithm for {} x {} x {} on device {} ({}, "
        "compute capability {})",
        to_string(p), dims.out, dims.tokens, dims.k, id(), device.name, device.cc.text()));
  }

  void ensure_events(std::size_t count) {
    while (events.size() < count) {
      cudaEvent_t e = nullptr;
      cuda_ok(cudaEventCreate(&e), "cudaEventCreate", id());
      events.push_back(e);
    }
  }
};

LtRunner::LtRunner(const DeviceInfo& device) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.device = device;
  cuda_ok(cudaSetDevice(device.index), "cudaSetDevice", device.index);
  lt_ok(cublasLtCreate(&s.handle), "cublasLtCreate", device.index);
  cuda_ok(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate",
          device.index);
  s.workspace = DeviceBuffer(kWorkspaceBytes, device.index);
}

LtRunner::~LtRunner() = default;

bool LtRunner::supports(GemmPrecision precision) {
  State& s = *state_;
  const LtDims dims{256, 256, 256};
  std::mt19937_64 rng(kSeed);
  const HostOperand w = random_operand(precision, dims.out, dims.k, 1.0F, rng);
  const HostOperand x = random_operand(precision, dims.tokens, dims.k, 1.0F, rng);
  const DeviceOperand dw = upload(w, s.id());
  const DeviceOperand dx = upload(x, s.id());
  const DeviceBuffer scales = s.upload_tensor_scales(w, x);
  return s.make_plan(precision, dims, dw, dx, scales).found;
}

double LtRunner::median_seconds(GemmPrecision precision, LtDims dims, int warmup, int repeats) {
  State& s = *state_;
  const LtDims run = padded(dims, precision);
  std::mt19937_64 rng(kSeed);
  const HostOperand w = random_operand(precision, run.out, run.k, 0.5F, rng);
  const HostOperand x = random_operand(precision, run.tokens, run.k, 0.25F, rng);

  // Enough copies of the operands to cover twice the L2 cache, within a
  // quarter of the free memory.
  const std::size_t set_bytes =
      w.data.size() + w.block_scales.size() + x.data.size() + x.block_scales.size();
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", s.id());
  std::size_t copies =
      (2 * s.device.l2_bytes + set_bytes - 1) / std::max<std::size_t>(set_bytes, 1);
  copies = std::min(copies, free_bytes / 4 / std::max<std::size_t>(set_bytes, 1));
  copies = std::clamp<std::size_t>(copies, 1, kMaxRotation);

  std::vector<DeviceOperand> weights;
  std::vector<DeviceOperand> activations;
  weights.push_back(upload(w, s.id()));
  activations.push_back(upload(x, s.id()));
  for (std::size_t i = 1; i < copies; ++i) {
    weights.push_back(copy_of(weights.front(), s.id()));
    activations.push_back(copy_of(activations.front(), s.id()));
  }
  const DeviceBuffer scales = s.upload_tensor_scales(w, x);
  const DeviceBuffer out(size(run.out) * size(run.tokens) * 2, s.id());
  const State::Plan plan = s.make_plan(precision, run, weights[0], activations[0], scales);
  if (!plan.found) s.no_algorithm(precision, run);

  const auto launch = [&](std::size_t i) {
    const std::size_t set = i % copies;
    if (copies > 1) s.set_scales(plan, precision, weights[set], activations[set], scales);
    s.matmul(plan, weights[set], activations[set], out);
  };
  // One run waited for before anything queues behind the gate, even with
  // --warmup 0: CUDA loads a kernel at its first launch, and loading may wait
  // for the whole context, which the gated stream would never let finish.
  launch(0);
  cuda_ok(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize", s.id());
  for (int i = 0; i < warmup; ++i) launch(static_cast<std::size_t>(i));
  const auto runs = static_cast<std::size_t>(repeats);
  s.ensure_events(2 * kGateBatch);
  std::vector<double> seconds;
  seconds.reserve(runs);
  for (std::size_t first = 0; first < runs; first += kGateBatch) {
    const std::size_t batch = std::min(kGateBatch, runs - first);
    // The stream waits at the gate until the whole batch is queued, so the
    // GPU runs it back to back and each event pair times the kernel, not the
    // host's launch latency.
    StreamGate gate(s.stream, s.id());
    for (std::size_t r = 0; r < batch; ++r) {
      cuda_ok(cudaEventRecord(s.events[2 * r], s.stream), "cudaEventRecord", s.id());
      launch(static_cast<std::size_t>(warmup) + first + r);
      cuda_ok(cudaEventRecord(s.events[2 * r + 1], s.stream), "cudaEventRecord", s.id());
    }
    gate.release();
    for (std::size_t r = 0; r < batch; ++r) {
      float ms = 0.0F;
      cuda_ok(cudaEventElapsedTime(&ms, s.events[2 * r], s.events[2 * r + 1]),
              "cudaEventElapsedTime", s.id());
      seconds.push_back(static_cast<double>(ms) * 1e-3);
    }
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t mid = runs / 2;
  return runs % 2 == 1 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]);
}

CheckResult LtRunner::check(GemmPrecision precision) {
  State& s = *state_;
  CheckResult result;
  result.precision = precision;
  result.dims = {256, 192, 512};
  result.tolerance = kCheckTolerance;
  const LtDims dims = result.dims;
  std::mt19937_64 rng(kSeed);
  const HostOperand w = random_operand(precision, dims.out, dims.k, 0.5F, rng);
  const HostOperand x = random_operand(precision, dims.tokens, dims.k, 0.25F, rng);
  const DeviceOperand dw = upload(w, s.id());
  const DeviceOperand dx = upload(x, s.id());
  const DeviceBuffer scales = s.upload_tensor_scales(w, x);
  const DeviceBuffer out(size(dims.out) * size(dims.tokens) * 2, s.id());
  const State::Plan plan = s.make_plan(precision, dims, dw, dx, scales);
  if (!plan.found) s.no_algorithm(precision, dims);
  s.matmul(plan, dw, dx, out);
  std::vector<std::uint16_t> gpu(size(dims.out) * size(dims.tokens));
  cuda_ok(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize", s.id());
  cuda_ok(cudaMemcpy(gpu.data(), out.get(), gpu.size() * 2, cudaMemcpyDeviceToHost),
          "cudaMemcpy (result to host)", s.id());

  // The reference in double from the very codes and scales the GPU read.
  std::vector<double> wv(size(dims.out) * size(dims.k));
  std::vector<double> xv(size(dims.tokens) * size(dims.k));
  for (long long i = 0; i < dims.out; ++i) {
    for (long long kk = 0; kk < dims.k; ++kk) {
      wv[size(i * dims.k + kk)] = static_cast<double>(operand_value(precision, w, i, kk));
    }
  }
  for (long long j = 0; j < dims.tokens; ++j) {
    for (long long kk = 0; kk < dims.k; ++kk) {
      xv[size(j * dims.k + kk)] = static_cast<double>(operand_value(precision, x, j, kk));
    }
  }
  std::vector<double> reference(gpu.size());
  double sum_squares = 0.0;
  for (long long j = 0; j < dims.tokens; ++j) {
    for (long long i = 0; i < dims.out; ++i) {
      double acc = 0.0;
      for (long long kk = 0; kk < dims.k; ++kk) {
        acc += wv[size(i * dims.k + kk)] * xv[size(j * dims.k + kk)];
      }
      reference[size(i + j * dims.out)] = acc;  // D is out x tokens, column-major
      sum_squares += acc * acc;
    }
  }
  result.reference_rms = std::sqrt(sum_squares / static_cast<double>(reference.size()));
  for (std::size_t e = 0; e < reference.size(); ++e) {
    const auto got = static_cast<double>(decode_bf16(gpu[e]));
    const double error =
        std::fabs(got - reference[e]) / (std::fabs(reference[e]) + result.reference_rms);
    if (!(error <= result.tolerance)) ++result.wrong;  // NaN counts as wrong
    if (std::isfinite(error)) result.max_rel_error = std::max(result.max_rel_error, error);
  }
  return result;
}

}  // namespace tpnet::calibrate
