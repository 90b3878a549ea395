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
#include <functional>
#include <optional>
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
constexpr std::size_t kGateBatch = 64;  ///< runs queued behind one StreamGate
/// Launches (matmuls and events) queued behind one gate at most: a stream
/// holds only so much pending work, and a launch that finds it full waits
/// for the gate, which opens only once everything is queued.
constexpr std::size_t kMaxGatedLaunches = 512;
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

  /// Copies of a set of operands of `set_bytes` that cover twice the L2
  /// cache, within a quarter of the free memory: what a timing rotates over
  /// so that weights come from memory, as in a real forward pass.
  [[nodiscard]] std::size_t rotation_copies(std::size_t set_bytes) const {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", id());
    const std::size_t set = std::max<std::size_t>(set_bytes, 1);
    std::size_t copies = (2 * device.l2_bytes + set - 1) / set;
    copies = std::min(copies, free_bytes / 4 / set);
    return std::clamp<std::size_t>(copies, 1, kMaxRotation);
  }

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
    set_scale_pointers(plan, p, w.block_scales.get(), x.block_scales.get(), tensor_scales);
  }

  /// Points the descriptor at NVFP4 block scales (`a_block`, `b_block`) or,
  /// for FP8, at the two tensor scales.
  void set_scale_pointers(const Plan& plan, GemmPrecision p, const void* a_block,
                          const void* b_block, const DeviceBuffer& tensor_scales) const {
    const void* a_scale = nullptr;
    const void* b_scale = nullptr;
    if (p == GemmPrecision::nvfp4) {
      a_scale = a_block;
      b_scale = b_block;
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
    return make_plan(p, dims, w.block_scales.get(), x.block_scales.get(), tensor_scales, 1);
  }

  /// A plan for `batch` GEMMs of `dims` whose operands follow each other
  /// with no gap (a strided batch: each expert of a grouped bin).
  Plan make_plan(GemmPrecision p, LtDims dims, const void* a_block, const void* b_block,
                 const DeviceBuffer& tensor_scales, long long batch) const {
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
    set_scale_pointers(plan, p, a_block, b_block, tensor_scales);

    const auto make_layout = [&](cudaDataType_t type, long long rows, long long cols,
                                 std::string_view what) {
      cublasLtMatrixLayout_t layout = nullptr;
      lt_ok(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                       static_cast<std::uint64_t>(cols), rows),
            fmt::format("cublasLtMatrixLayoutCreate({})", what), id());
      Layout owned(layout);
      if (batch > 1) {
        const auto count = static_cast<std::int32_t>(batch);
        const std::int64_t offset = rows * cols;  // elements from one matrix to the next
        lt_ok(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                               sizeof(count)),
              fmt::format("cublasLtMatrixLayoutSetAttribute({} BATCH_COUNT)", what), id());
        lt_ok(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                               &offset, sizeof(offset)),
              fmt::format("cublasLtMatrixLayoutSetAttribute({} STRIDED_BATCH_OFFSET)", what), id());
      }
      return owned;
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
    matmul_at(plan, w.data.get(), x.data.get(), out.get());
  }

  void matmul_at(const Plan& plan, const void* a, const void* b, void* d) const {
    const float alpha = 1.0F;
    const float beta = 0.0F;
    lt_ok(cublasLtMatmul(handle, plan.op.get(), &alpha, a, plan.a.get(), b, plan.b.get(), &beta, d,
                         plan.d.get(), d, plan.d.get(), &plan.algo, workspace.get(),
                         workspace.bytes(), stream),
          "cublasLtMatmul", id());
  }

  /// Median seconds of `launch(i)` (one run: `launches` matmuls) over
  /// `repeats` runs after `warmup`, each between two CUDA events.
  double median_of(const std::function<void(std::size_t)>& launch, std::size_t launches, int warmup,
                   int repeats) {
    // One run waited for before anything queues behind the gate, even with
    // --warmup 0: CUDA loads a kernel at its first launch, and loading may wait
    // for the whole context, which the gated stream would never let finish.
    launch(0);
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize", id());
    for (int i = 0; i < warmup; ++i) launch(static_cast<std::size_t>(i));
    const auto runs = static_cast<std::size_t>(repeats);
    // Runs per gate: as many as fit kMaxGatedLaunches with their two events;
    // none when one run alone is more (then the host's launches are timed too).
    const std::size_t per_gate = std::min(kGateBatch, kMaxGatedLaunches / (launches + 2));
    const std::size_t batch_size = std::max<std::size_t>(per_gate, 1);
    ensure_events(2 * batch_size);
    std::vector<double> seconds;
    seconds.reserve(runs);
    for (std::size_t first = 0; first < runs; first += batch_size) {
      const std::size_t batch = std::min(batch_size, runs - first);
      // The stream waits at the gate until the whole batch is queued, so the
      // GPU runs it back to back and each event pair times the kernels, not the
      // host's launch latency.
      std::optional<StreamGate> gate;
      if (per_gate > 0) gate.emplace(stream, id());
      for (std::size_t r = 0; r < batch; ++r) {
        cuda_ok(cudaEventRecord(events[2 * r], stream), "cudaEventRecord", id());
        launch(static_cast<std::size_t>(warmup) + first + r);
        cuda_ok(cudaEventRecord(events[2 * r + 1], stream), "cudaEventRecord", id());
      }
      if (gate) {
        gate->release();
      } else {
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize", id());
      }
      for (std::size_t r = 0; r < batch; ++r) {
        float ms = 0.0F;
        cuda_ok(cudaEventElapsedTime(&ms, events[2 * r], events[2 * r + 1]), "cudaEventElapsedTime",
                id());
        seconds.push_back(static_cast<double>(ms) * 1e-3);
      }
    }
    std::sort(seconds.begin(), seconds.end());
    const std::size_t mid = runs / 2;
    return runs % 2 == 1 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]);
  }

  /// A bin's plan: one strided-batched matmul over its experts where
  /// cuBLASLt has an algorithm for it, else one matmul per expert.
  struct BinPlan {
    Plan plan;
    bool batched = true;
  };

  BinPlan make_bin_plan(GemmPrecision p, const GroupedDims& dims, const GroupedBin& bin,
                        const std::byte* a_block, const std::byte* b_block,
                        const DeviceBuffer& tensor_scales) const {
    const LtDims one{dims.out, bin.rows, dims.k};
    BinPlan b{make_plan(p, one, a_block, b_block, tensor_scales, bin.experts), true};
    if (!b.plan.found && bin.experts > 1) {
      b = BinPlan{make_plan(p, one, a_block, b_block, tensor_scales, 1), false};
    }
    if (!b.plan.found) no_algorithm(p, one);
    return b;
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

  const std::size_t set_bytes =
      w.data.size() + w.block_scales.size() + x.data.size() + x.block_scales.size();
  const std::size_t copies = s.rotation_copies(set_bytes);

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
  return s.median_of(launch, 1, warmup, repeats);
}

namespace {

/// The grouped operands on the device: each buffer laid out as grouped_layout says.
struct GroupedBuffers {
  DeviceBuffer weights;
  DeviceBuffer weight_scales;
  DeviceBuffer activations;
  DeviceBuffer activation_scales;
};

GroupedBuffers allocate(const GroupedLayout& layout, int device) {
  return {DeviceBuffer(layout.weight_bytes, device),
          DeviceBuffer(layout.weight_scale_bytes, device),
          DeviceBuffer(layout.activation_bytes, device),
          DeviceBuffer(layout.activation_scale_bytes, device)};
}

std::byte* at(const DeviceBuffer& buffer, std::size_t offset) {
  return static_cast<std::byte*>(buffer.get()) + offset;
}

/// Copies the first `bytes` of `from` to `offset` in `to`.
void put(const DeviceBuffer& to, std::size_t offset, const std::vector<std::uint8_t>& from,
         std::size_t bytes, int device) {
  if (bytes == 0) return;
  if (bytes > from.size() || offset + bytes > to.bytes()) {
    throw MeasurementError(fmt::format("grouped operand of {} bytes does not fit at {} of {}",
                                       bytes, offset, to.bytes()));
  }
  cuda_ok(cudaMemcpy(at(to, offset), from.data(), bytes, cudaMemcpyHostToDevice),
          "cudaMemcpy (grouped operand to device)", device);
}

void copy_whole(const DeviceBuffer& to, const DeviceBuffer& from, int device) {
  if (from.bytes() == 0) return;
  cuda_ok(cudaMemcpy(to.get(), from.get(), from.bytes(), cudaMemcpyDeviceToDevice),
          "cudaMemcpy (grouped operand copy)", device);
}

}  // namespace

GroupedTiming LtRunner::grouped_median_seconds(GemmPrecision precision, const GroupedDims& dims,
                                               int warmup, int repeats) {
  State& s = *state_;
  const GroupedDims run = padded_grouped(dims, precision);
  const GroupedLayout layout = grouped_layout(precision, run);
  long long most_rows = 1;
  for (const GroupedBin& b : run.bins) most_rows = std::max(most_rows, b.rows);
  // One expert's weights and the largest bin's activations, random as for one
  // GEMM, copied into every expert's place: the values do not change the
  // time, and generating gigabytes on the host would.
  std::mt19937_64 rng(kSeed);
  const HostOperand w = random_operand(precision, run.out, run.k, 0.5F, rng);
  const HostOperand x = random_operand(precision, most_rows, run.k, 0.25F, rng);

  const std::size_t set_bytes = layout.weight_bytes + layout.weight_scale_bytes +
                                layout.activation_bytes + layout.activation_scale_bytes;
  const std::size_t copies = s.rotation_copies(set_bytes);

  std::vector<GroupedBuffers> sets;
  sets.push_back(allocate(layout, s.id()));
  for (std::size_t b = 0; b < run.bins.size(); ++b) {
    const BinPlacement& p = layout.bins[b];
    for (std::size_t e = 0; e < static_cast<std::size_t>(run.bins[b].experts); ++e) {
      put(sets[0].weights, p.weights + e * p.weight_stride, w.data, p.weight_stride, s.id());
      put(sets[0].weight_scales, p.weight_scales + e * p.weight_scale_stride, w.block_scales,
          p.weight_scale_stride, s.id());
      put(sets[0].activations, p.activations + e * p.activation_stride, x.data, p.activation_stride,
          s.id());
      put(sets[0].activation_scales, p.activation_scales + e * p.activation_scale_stride,
          x.block_scales, p.activation_scale_stride, s.id());
    }
  }
  for (std::size_t i = 1; i < copies; ++i) {
    sets.push_back(allocate(layout, s.id()));
    copy_whole(sets[i].weights, sets[0].weights, s.id());
    copy_whole(sets[i].weight_scales, sets[0].weight_scales, s.id());
    copy_whole(sets[i].activations, sets[0].activations, s.id());
    copy_whole(sets[i].activation_scales, sets[0].activation_scales, s.id());
  }
  const DeviceBuffer scales = s.upload_tensor_scales(w, x);
  const DeviceBuffer out(layout.output_bytes, s.id());

  GroupedTiming timing;
  std::vector<State::BinPlan> plans;
  std::size_t launches = 0;
  for (std::size_t b = 0; b < run.bins.size(); ++b) {
    const BinPlacement& p = layout.bins[b];
    plans.push_back(s.make_bin_plan(precision, run, run.bins[b],
                                    at(sets[0].weight_scales, p.weight_scales),
                                    at(sets[0].activation_scales, p.activation_scales), scales));
    timing.batched = timing.batched && plans.back().batched;
    launches += plans.back().batched ? 1 : static_cast<std::size_t>(run.bins[b].experts);
  }
  const auto launch = [&](std::size_t i) {
    const GroupedBuffers& set = sets[i % copies];
    for (std::size_t b = 0; b < run.bins.size(); ++b) {
      const BinPlacement& p = layout.bins[b];
      const State::BinPlan& bin = plans[b];
      const std::size_t experts = bin.batched ? 1 : static_cast<std::size_t>(run.bins[b].experts);
      for (std::size_t e = 0; e < experts; ++e) {
        if (precision == GemmPrecision::nvfp4) {
          s.set_scale_pointers(
              bin.plan, precision,
              at(set.weight_scales, p.weight_scales + e * p.weight_scale_stride),
              at(set.activation_scales, p.activation_scales + e * p.activation_scale_stride),
              scales);
        }
        s.matmul_at(bin.plan, at(set.weights, p.weights + e * p.weight_stride),
                    at(set.activations, p.activations + e * p.activation_stride),
                    at(out, p.output + e * p.output_stride));
      }
    }
  };
  timing.median_s = s.median_of(launch, launches, warmup, repeats);
  return timing;
}

namespace {

/// The values the GPU multiplies, in double, row after row.
std::vector<double> values_of(GemmPrecision p, const HostOperand& op) {
  std::vector<double> v;
  v.reserve(size(op.rows) * size(op.k));
  for (long long r = 0; r < op.rows; ++r) {
    for (long long kk = 0; kk < op.k; ++kk)
      v.push_back(static_cast<double>(operand_value(p, op, r, kk)));
  }
  return v;
}

/// BF16 results read back, as doubles.
std::vector<double> decoded(const std::vector<std::uint16_t>& bits) {
  std::vector<double> v;
  v.reserve(bits.size());
  for (const std::uint16_t b : bits) v.push_back(static_cast<double>(decode_bf16(b)));
  return v;
}

void fill(CheckResult& result, const Comparison& c) {
  result.outputs = c.outputs;
  result.wrong = c.wrong;
  result.max_rel_error = c.max_rel_error;
  result.reference_rms = c.reference_rms;
}

}  // namespace

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
  // The reference in double from the very codes and scales the GPU read: a
  // grouped GEMM of one expert.
  const std::vector<double> reference = grouped_reference(
      dims.out, dims.k, {dims.tokens}, values_of(precision, w), values_of(precision, x));
  fill(result, compare_to_reference(decoded(gpu), reference, result.tolerance));
  return result;
}

CheckResult LtRunner::check_grouped(GemmPrecision precision) {
  State& s = *state_;
  const GroupedDims dims = grouped_check_dims();
  CheckResult result;
  result.precision = precision;
  result.dims = {dims.out, dims.rows(), dims.k};
  result.bins = dims.bins;
  result.tolerance = kCheckTolerance;
  const GroupedLayout layout = grouped_layout(precision, dims);
  const GroupedBuffers set = allocate(layout, s.id());
  // Every expert its own random operands (one FP8 tensor scale for all, as
  // the descriptor has one), placed where the timing places them.
  std::mt19937_64 rng(kSeed + 1);
  std::vector<long long> rows;
  std::vector<double> weights;
  std::vector<double> activations;
  for (std::size_t b = 0; b < dims.bins.size(); ++b) {
    const BinPlacement& p = layout.bins[b];
    for (std::size_t e = 0; e < static_cast<std::size_t>(dims.bins[b].experts); ++e) {
      const HostOperand w = random_operand(precision, dims.out, dims.k, 0.5F, rng);
      const HostOperand x = random_operand(precision, dims.bins[b].rows, dims.k, 0.25F, rng);
      put(set.weights, p.weights + e * p.weight_stride, w.data, p.weight_stride, s.id());
      put(set.weight_scales, p.weight_scales + e * p.weight_scale_stride, w.block_scales,
          p.weight_scale_stride, s.id());
      put(set.activations, p.activations + e * p.activation_stride, x.data, p.activation_stride,
          s.id());
      put(set.activation_scales, p.activation_scales + e * p.activation_scale_stride,
          x.block_scales, p.activation_scale_stride, s.id());
      rows.push_back(dims.bins[b].rows);
      const std::vector<double> wv = values_of(precision, w);
      const std::vector<double> xv = values_of(precision, x);
      weights.insert(weights.end(), wv.begin(), wv.end());
      activations.insert(activations.end(), xv.begin(), xv.end());
    }
  }
  HostOperand scale_source;
  scale_source.tensor_scale = 0.5F;
  HostOperand activation_scale;
  activation_scale.tensor_scale = 0.25F;
  const DeviceBuffer scales = s.upload_tensor_scales(scale_source, activation_scale);
  const DeviceBuffer out(layout.output_bytes, s.id());
  for (std::size_t b = 0; b < dims.bins.size(); ++b) {
    const BinPlacement& p = layout.bins[b];
    const State::BinPlan bin =
        s.make_bin_plan(precision, dims, dims.bins[b], at(set.weight_scales, p.weight_scales),
                        at(set.activation_scales, p.activation_scales), scales);
    result.batched = result.batched && bin.batched;
    const std::size_t experts = bin.batched ? 1 : static_cast<std::size_t>(dims.bins[b].experts);
    for (std::size_t e = 0; e < experts; ++e) {
      if (precision == GemmPrecision::nvfp4) {
        s.set_scale_pointers(
            bin.plan, precision, at(set.weight_scales, p.weight_scales + e * p.weight_scale_stride),
            at(set.activation_scales, p.activation_scales + e * p.activation_scale_stride), scales);
      }
      s.matmul_at(bin.plan, at(set.weights, p.weights + e * p.weight_stride),
                  at(set.activations, p.activations + e * p.activation_stride),
                  at(out, p.output + e * p.output_stride));
    }
    // The plan's descriptors must outlive the matmuls queued with them.
    cuda_ok(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize", s.id());
  }
  // Each expert's D, in expert order, as grouped_reference lays them out.
  std::vector<std::uint16_t> gpu;
  for (std::size_t b = 0; b < dims.bins.size(); ++b) {
    const BinPlacement& p = layout.bins[b];
    const std::size_t values = p.output_stride / 2;
    for (std::size_t e = 0; e < static_cast<std::size_t>(dims.bins[b].experts); ++e) {
      std::vector<std::uint16_t> part(values);
      cuda_ok(cudaMemcpy(part.data(), at(out, p.output + e * p.output_stride), p.output_stride,
                         cudaMemcpyDeviceToHost),
              "cudaMemcpy (grouped result to host)", s.id());
      gpu.insert(gpu.end(), part.begin(), part.end());
    }
  }
  fill(result, compare_to_reference(decoded(gpu),
                                    grouped_reference(dims.out, dims.k, rows, weights, activations),
                                    result.tolerance));
  return result;
}

}  // namespace tpnet::calibrate
