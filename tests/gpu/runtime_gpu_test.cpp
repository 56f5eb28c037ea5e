// Runtime tests on a real GPU. Each skips itself (GTEST_SKIP) when there is no driver or device.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <span>

#include "measure/l2_flush.h"
#include "tilegrid/codegen/device_helpers.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/builtin_kernels.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/runtime/tensor_map.h"
#include "tilegrid/scheduler/smem_atom.h"

namespace tilegrid::runtime {
namespace {

#define REQUIRE_DEVICE()                              \
  do {                                                \
    try {                                             \
      currentDevice();                                \
    } catch (const NoDeviceError& e) {                \
      GTEST_SKIP() << e.what();                       \
    }                                                 \
  } while (0)

scheduler::Arch deviceArch() { return currentDeviceSpec().arch(); }

LoadedKernel load(const codegen::KernelSource& source) {
  return LoadedKernel(*KernelCache::global().get(source, deviceArch()));
}

TEST(Gpu, DeviceSpecComesFromTheDevice) {
  REQUIRE_DEVICE();
  const scheduler::DeviceSpec spec = currentDeviceSpec();
  EXPECT_GE(spec.cc_major, 8);
  EXPECT_GT(spec.sm_count, 0);
  EXPECT_GE(spec.smem_per_block, 96 * 1024);
  EXPECT_GT(spec.l2_bytes, 0);
  EXPECT_NO_THROW(spec.validate());
  std::cout << "device: " << spec.toString() << "\n";
}

TEST(Gpu, LaunchesAKernelAndChecksItsOutput) {
  REQUIRE_DEVICE();
  const codegen::KernelSource source{
      "tg_gpu_axpy",
      "extern \"C\" __global__ void tg_gpu_axpy(const float* x, float* y, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = a * x[i] + y[i];\n"
      "}\n",
      {},
      {}};
  const LoadedKernel kernel = load(source);
  const int n = 100003;
  const std::vector<float> x = randomValues(n, 1), y = randomValues(n, 2);
  DeviceBuffer dx(n * 4), dy(n * 4);
  dx.copyFromHost(x.data(), n * 4);
  dy.copyFromHost(y.data(), n * 4);
  KernelArgs args;
  args.add(dx.ptr()).add(dy.ptr()).add(2.5f).add(n);
  codegen::LaunchConfig config;
  config.grid = {(n + 255) / 256, 1, 1};
  config.block = {256, 1, 1};
  kernel.launch(config, args);
  const auto out = dy.toHost<float>();
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    // The GPU fuses a * x + y into one rounding; std::fma does the same.
    ASSERT_EQ(out[i], std::fma(2.5f, x[i], y[i])) << i;
  }
}

// Negative controls for bench/device_sanitize.sh: kernels with a known bug, which memcheck and
// racecheck must report (run with --gtest_also_run_disabled_tests). Disabled in normal runs.
void launchControl(const char* name, const char* body) {
  const codegen::KernelSource source{name, std::string("extern \"C\" __global__ void ") + name + "(int* x) {\n" + body + "}\n",
                                     {}, {}};
  const LoadedKernel kernel = load(source);
  DeviceBuffer x(64 * sizeof(int));
  KernelArgs args;
  args.add(x.ptr());
  codegen::LaunchConfig config;
  config.grid = {1, 1, 1};
  config.block = {64, 1, 1};
  kernel.launch(config, args);
  synchronizeDevice();
}

TEST(SanitizerControl, DISABLED_WritesOnePastTheEnd) {
  REQUIRE_DEVICE();
  launchControl("tg_control_oob", "  x[threadIdx.x + 1] = 1;\n");
}

TEST(SanitizerControl, DISABLED_RacesOnSharedMemory) {
  REQUIRE_DEVICE();
  // Each thread reads what a thread of the other warp wrote, with no barrier between.
  launchControl("tg_control_race",
                "  __shared__ int s[64];\n  s[threadIdx.x] = threadIdx.x;\n  x[threadIdx.x] = s[(threadIdx.x + 32) % 64];\n");
}

TEST(Gpu, EventTimerStreamAndL2Flush) {
  REQUIRE_DEVICE();
  const scheduler::DeviceSpec spec = currentDeviceSpec();
  Stream stream;
  L2Flusher flusher(spec.l2_bytes);
  DeviceBuffer big(size_t{256} << 20);
  EventTimer timer;
  timer.start(stream.get());
  flusher.flush(stream.get());
  big.fill(7, stream.get());
  timer.stop(stream.get());
  const float ms = timer.elapsedMs();
  stream.synchronize();
  // 256 MiB plus twice the L2 written at no more than ~10 TB/s takes at least a few microseconds.
  EXPECT_GT(ms, 0.005f);
  EXPECT_LT(ms, 1000.0f);
  const auto bytes = big.toHost<uint8_t>();
  EXPECT_EQ(bytes.front(), 7);
  EXPECT_EQ(bytes.back(), 7);
}

TEST(Gpu, DynamicSharedMemoryAbove48KiB) {
  REQUIRE_DEVICE();
  const codegen::KernelSource source{
      "tg_gpu_big_smem",
      "extern \"C\" __global__ void tg_gpu_big_smem(int* out, int words) {\n"
      "  extern __shared__ int smem[];\n"
      "  for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = i * 3;\n"
      "  __syncthreads();\n"
      "  int sum = 0;\n"
      "  for (int i = threadIdx.x; i < words; i += blockDim.x) sum += smem[words - 1 - i];\n"
      "  atomicAdd(out, sum);\n"
      "}\n",
      {},
      {}};
  const LoadedKernel kernel = load(source);
  const int words = 100 * 1024 / 4;
  DeviceBuffer out(4);
  out.fill(0);
  KernelArgs args;
  args.add(out.ptr()).add(words);
  codegen::LaunchConfig config;
  config.block = {256, 1, 1};
  config.dynamic_smem_bytes = words * 4;
  kernel.launch(config, args);
  const int64_t expected = 3LL * words * (words - 1) / 2;
  EXPECT_EQ(out.toHost<int>()[0], static_cast<int>(expected));
}

TEST(Gpu, ClusterLaunch) {
  REQUIRE_DEVICE();
  if (deviceArch() != scheduler::Arch::Sm90) GTEST_SKIP() << "clusters need sm_90";
  const codegen::KernelSource source{
      "tg_gpu_cluster",
      "extern \"C\" __global__ void tg_gpu_cluster(unsigned* out) {\n"
      "  unsigned rank, size;\n"
      "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(rank));\n"
      "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(size));\n"
      "  if (threadIdx.x == 0) out[blockIdx.x] = rank * 100 + size;\n"
      "}\n",
      {},
      {}};
  const LoadedKernel kernel = load(source);
  DeviceBuffer out(8 * 4);
  KernelArgs args;
  args.add(out.ptr());
  codegen::LaunchConfig config;
  config.grid = {8, 1, 1};
  config.block = {32, 1, 1};
  config.cluster = {2, 1, 1};
  kernel.launch(config, args);
  const auto values = out.toHost<unsigned>();
  for (unsigned b = 0; b < 8; ++b) EXPECT_EQ(values[b], (b % 2) * 100 + 2) << b;
}

TEST(Gpu, RandomFillOnDeviceEqualsHostFill) {
  REQUIRE_DEVICE();
  for (scheduler::DType t : {scheduler::DType::BF16, scheduler::DType::FP16, scheduler::DType::FP32}) {
    const size_t count = 1 << 20;
    const size_t bytes = count * static_cast<size_t>(scheduler::bytes(t));
    DeviceBuffer device(bytes), host(bytes);
    fillRandomOnDevice(device, t, count, 42, -1.0f, 1.0f);
    fillRandomFromHost(host, t, count, 42, -1.0f, 1.0f);
    const auto a = device.toHost<uint8_t>();
    const auto b = host.toHost<uint8_t>();
    ASSERT_EQ(a, b) << scheduler::toString(t);
    const auto values = decode(a, t);
    size_t zeros = 0;
    for (float v : values) {
      ASSERT_GE(v, -1.0f);
      ASSERT_LE(v, 1.0f);
      zeros += v == 0.0f;
    }
    EXPECT_LT(zeros, count / 100);
  }
}

// Padded operand copies land every byte of every row at its padded place, for odd pitches (rows
// starting 2 bytes past a 16-byte boundary), the last rows near the end of the buffer, and 4-byte
// elements.
TEST(Gpu, PadRowsCopiesEveryRow) {
  REQUIRE_DEVICE();
  struct Case {
    uint64_t rows, row_bytes, src_pitch, dst_pitch;
  };
  // The source also starts off 16 bytes (a user's pointer into the middle of an allocation).
  for (const Case& c : {Case{4096, 4097 * 2, 4097 * 2, 4104 * 2}, Case{3, 6, 6, 16}, Case{257, 77 * 2, 77 * 2, 80 * 2},
                        Case{100, 35 * 4, 35 * 4, 36 * 4}, Case{5, 2, 2, 16}, Case{64, 64 * 2, 64 * 2, 64 * 2}}) {
    for (uint64_t offset : {0, 2, 6}) {
      const uint64_t src_bytes = (c.rows - 1) * c.src_pitch + c.row_bytes;
      std::vector<uint8_t> host(src_bytes + offset);
      for (uint64_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
      DeviceBuffer src(host.size()), dst(c.rows * c.dst_pitch);
      src.copyFromHost(host.data(), host.size());
      Stream stream;
      padRows(src.ptr() + offset, src_bytes, dst.ptr(),
              codegen::PaddedCopy{c.rows, c.row_bytes, c.src_pitch, c.dst_pitch, c.rows, c.rows * c.src_pitch},
              stream.get());
      stream.synchronize();
      const auto out = dst.toHost<uint8_t>();
      for (uint64_t r = 0; r < c.rows; ++r) {
        for (uint64_t b = 0; b < c.row_bytes; ++b) {
          ASSERT_EQ(out[r * c.dst_pitch + b], host[offset + r * c.src_pitch + b])
              << "row " << r << " byte " << b << " of rows of " << c.row_bytes << " bytes, source " << offset
              << " bytes into its buffer";
        }
      }
    }
  }
}

// One launch makes two copies (a GEMM's A and B): each lands at its own destination, whole, though
// the copies differ in size, pitch and source alignment.
TEST(Gpu, PadRowsMakesTwoCopiesInOneLaunch) {
  REQUIRE_DEVICE();
  const codegen::PaddedCopy first{1001, 257 * 2, 257 * 2, 320 * 2, 1001, 1001 * 257 * 2};
  const codegen::PaddedCopy second{515, 257 * 2, 257 * 2, 320 * 2, 515, 515 * 257 * 2};
  const auto source_bytes = [](const codegen::PaddedCopy& c) { return (c.rows - 1) * c.src_pitch + c.row_bytes; };
  std::vector<uint8_t> host(source_bytes(first) + source_bytes(second) + 2);
  for (uint64_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>((i * 2654435761u) >> 11);
  DeviceBuffer src(host.size()), dst(first.rows * first.dst_pitch + second.rows * second.dst_pitch);
  src.copyFromHost(host.data(), host.size());
  // The second source starts 2 bytes past the first's end: off 16 bytes.
  const uint64_t second_at = source_bytes(first) + 2;
  const std::array<PadJob, 2> jobs = {PadJob{src.ptr(), source_bytes(first), dst.ptr(), first},
                                      PadJob{src.ptr() + second_at, source_bytes(second),
                                             dst.ptr() + first.rows * first.dst_pitch, second}};
  Stream stream;
  padRows(std::span<const PadJob>(jobs), stream.get());
  stream.synchronize();
  const auto out = dst.toHost<uint8_t>();
  uint64_t dst_at = 0, src_at = 0;
  for (const codegen::PaddedCopy& c : {first, second}) {
    for (uint64_t r = 0; r < c.rows; ++r) {
      for (uint64_t b = 0; b < c.row_bytes; ++b) {
        ASSERT_EQ(out[dst_at + r * c.dst_pitch + b], host[src_at + r * c.src_pitch + b])
            << (src_at == 0 ? "first" : "second") << " copy, row " << r << " byte " << b;
      }
    }
    dst_at += c.rows * c.dst_pitch;
    src_at = second_at;
  }
}

// The IR's Swizzle is the hardware's: TMA-load a box with 32B, 64B and 128B swizzle, and find every
// element in shared memory at the byte offset the IR's allocation domain for that atom gives.
TEST(Gpu, TmaSwizzleIsTheIrSwizzle) {
  REQUIRE_DEVICE();
  if (deviceArch() != scheduler::Arch::Sm90) GTEST_SKIP() << "TMA needs sm_90";
  const codegen::KernelSource source{
      "tg_gpu_tma_probe",
      codegen::deviceHelperSource({"mbarrier", "tma"}) +
          R"(extern "C" __global__ void tg_gpu_tma_probe(const __grid_constant__ tg_tensor_map map, unsigned short* out,
                                                 int c0, int c1, int bytes) {
  extern __shared__ unsigned char smem_raw[];
  // Swizzled TMA destinations must sit on a 1024-byte boundary; dynamic smem only promises 16.
  unsigned char* tile = smem_raw + ((1024 - (tg_smem_addr(smem_raw) & 1023)) & 1023);
  __shared__ tg_u64 bar;
  if (threadIdx.x == 0) {
    tg_mbarrier_init(&bar, 1);
    tg_mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tg_mbarrier_arrive_expect_tx(&bar, bytes);
    tg_tma_load_2d(tile, &map, c0, c1, &bar);
  }
  tg_mbarrier_wait(&bar, 0);
  for (int i = threadIdx.x; i < bytes / 2; i += blockDim.x) out[i] = reinterpret_cast<unsigned short*>(tile)[i];
}
)",
      {},
      {}};
  const LoadedKernel kernel = load(source);
  const int64_t rows = 64, cols = 256;  // a 64 x 256 bf16 global tensor, element value = its index
  std::vector<uint16_t> global(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < global.size(); ++i) global[i] = static_cast<uint16_t>(i);
  DeviceBuffer dglobal(global.size() * 2);
  dglobal.copyFromHost(global.data(), global.size() * 2);
  for (scheduler::AtomKind kind : {scheduler::AtomKind::SW32, scheduler::AtomKind::SW64, scheduler::AtomKind::SW128}) {
    const scheduler::SmemAtom atom{kind, scheduler::Major::K, scheduler::DType::BF16};
    const int64_t box_cols = atom.contiguousElems();
    TensorMapSpec spec;
    spec.dtype = scheduler::DType::BF16;
    spec.dims = {static_cast<uint64_t>(cols), static_cast<uint64_t>(rows)};
    spec.strides_bytes = {static_cast<uint64_t>(cols * 2)};
    spec.box = {static_cast<uint32_t>(box_cols), static_cast<uint32_t>(rows)};
    spec.swizzle = static_cast<TmaSwizzle>(atom.tmaSwizzle());
    const CUtensorMap map = encodeTensorMap(spec, dglobal.ptr());
    const int c0 = static_cast<int>(box_cols);  // the second column block: a non-zero origin
    const int bytes = static_cast<int>(rows * box_cols * 2);
    DeviceBuffer out(static_cast<size_t>(bytes));
    out.fill(0xff);
    KernelArgs args;
    args.add(map).add(out.ptr()).add(c0).add(0).add(bytes);
    codegen::LaunchConfig config;
    config.block = {128, 1, 1};
    config.dynamic_smem_bytes = static_cast<uint32_t>(bytes + 1024);
    kernel.launch(config, args);
    const auto smem = out.toHost<uint16_t>();

    const ir::TensorDomain tile = scheduler::buildSmemTile("probe", {"row", ir::Val(rows)}, {"col", ir::Val(box_cols)}, 1, atom);
    ir::Indexer indexer(tile);
    const auto loop = indexer.defaultLoopIndices();
    ir::CompiledVal offset(indexer.allocationIndex(loop).indices[0], {loop[0].name(), loop[1].name(), loop[2].name()});
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < box_cols; ++c) {
        const int64_t at[3] = {r, c, 0};
        const int64_t position = offset(at);
        ASSERT_EQ(smem[static_cast<size_t>(position)], global[static_cast<size_t>(r * cols + c0 + c)])
            << scheduler::toString(kind) << " row " << r << " col " << c;
      }
    }
  }
}

}  // namespace
}  // namespace tilegrid::runtime
