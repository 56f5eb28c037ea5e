#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tilegrid/codegen/device_helpers.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/dump.h"
#include "tilegrid/runtime/kernel_cache.h"

namespace tilegrid::runtime {
namespace {

using scheduler::Arch;

codegen::KernelSource smallKernel(const std::string& name = "tg_test_scale") {
  return {name,
          "#include <cuda_bf16.h>\n"
          "extern \"C\" __global__ void " + name + "(__nv_bfloat16* x, float s, int n) {\n"
          "  __shared__ float tile[128];\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  tile[threadIdx.x] = i < n ? __bfloat162float(x[i]) : 0.f;\n"
          "  __syncthreads();\n"
          "  if (i < n) x[i] = __float2bfloat16(tile[threadIdx.x] * s);\n"
          "}\n",
          {},
          {}};
}

// A kernel that uses every sm_90a instruction family generated Hopper GEMMs need: mbarrier, TMA and
// wgmma with descriptors computed from shared-memory addresses.
codegen::KernelSource hopperKernel() {
  return {"tg_test_hopper",
          codegen::deviceHelperSource({"mbarrier", "tma", "wgmma_desc", "wgmma"}) +
              R"(extern "C" __global__ void __launch_bounds__(128, 1) tg_test_hopper(const __grid_constant__ tg_tensor_map map, float* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ tg_u64 bar;
  if (threadIdx.x == 0) { tg_mbarrier_init(&bar, 1); tg_mbarrier_init_fence(); }
  __syncthreads();
  if (threadIdx.x == 0) { tg_mbarrier_arrive_expect_tx(&bar, 64 * 128); tg_tma_load_2d(smem, &map, 0, 0, &bar); }
  tg_mbarrier_wait(&bar, 0);
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  const tg_u64 desc_a = tg_wgmma_desc(tg_smem_addr(smem), 16, 1024, 1);
  const tg_u64 desc_b = tg_wgmma_desc(tg_smem_addr(smem + 4096), 16, 1024, 1);
  tg_wgmma_fence();
  tg_wgmma_m64n8k16_bf16(d, desc_a, desc_b, 0);
  tg_wgmma_commit();
  tg_wgmma_wait<0>();
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
}
)",
          {},
          {}};
}

TEST(Compiler, CompilesForSm80AndSm90a) {
  for (Arch arch : {Arch::Sm80, Arch::Sm90}) {
    const CompiledKernel k = compile(smallKernel(), arch);
    EXPECT_NE(k.ptx.find(".entry tg_test_scale"), std::string::npos);
    EXPECT_NE(k.ptx.find(arch == Arch::Sm80 ? ".target sm_80" : ".target sm_90a"), std::string::npos);
    EXPECT_GT(k.cubin.size(), 1000u);
    const KernelStats& s = k.statsFor();
    EXPECT_GT(s.registers, 0);
    EXPECT_EQ(s.smem_bytes, 512);
    EXPECT_EQ(s.barriers, 1);
    EXPECT_EQ(s.spill_stores, 0);
    EXPECT_NE(k.log.find("ptxas info"), std::string::npos);
  }
}

TEST(Compiler, CompilesWgmmaTmaAndMbarrierForSm90a) {
  const CompiledKernel k = compile(hopperKernel(), Arch::Sm90);
  EXPECT_NE(k.ptx.find("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"), std::string::npos);
  EXPECT_NE(k.ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
  EXPECT_NE(k.ptx.find("mbarrier.try_wait.parity"), std::string::npos);
  for (const std::string& w : k.warnings) {
    EXPECT_EQ(w.find("C7510"), std::string::npos) << w;
    EXPECT_EQ(w.find("C7511"), std::string::npos) << w;
  }
  // Plain sm_80 has no wgmma: the error must say so with the full log.
  EXPECT_THROW(compile(hopperKernel(), Arch::Sm80), CompileError);
}

TEST(Compiler, BadSourceGivesTheLogAndFileName) {
  codegen::KernelSource bad{"tg_bad", "extern \"C\" __global__ void tg_bad(int* x) { x[0] = undefined_name; }\n", {}, {}};
  try {
    compile(bad, Arch::Sm80);
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tg_bad.cu"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_name"), std::string::npos) << what;
    EXPECT_NE(e.log().find("error"), std::string::npos);
  }
  codegen::KernelSource misnamed = smallKernel();
  misnamed.kernel_name = "not_there";
  EXPECT_THROW(compile(misnamed, Arch::Sm80), UserError);
  EXPECT_THROW(compile(codegen::KernelSource{"", "x", {}, {}}, Arch::Sm80), UserError);
  CompileOptions spaced;
  spaced.defines = {"A B"};
  EXPECT_THROW(compile(smallKernel(), Arch::Sm80, spaced), UserError);
}

TEST(Compiler, ParsesPtxasStatistics) {
  const std::string log =
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem\n";
  const auto stats = parsePtxasLog(log);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0], (KernelStats{"k", 168, 1, 1024, 24, 8, 12}));
}

// Two compiles differ only in their logs (ptxas reports its compile time).
void expectSameArtefacts(const CompiledKernel& a, const CompiledKernel& b) {
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.stats, b.stats);
}

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/tilegrid-test-XXXXXX";
    path_ = mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(KernelCache, MemoryAndDiskHits) {
  TempDir dir;
  const auto source = smallKernel("tg_cache_probe");
  {
    KernelCache cache(dir.path());
    const auto first = cache.get(source, Arch::Sm80);
    const auto second = cache.get(source, Arch::Sm80);
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(cache.stats().compiles, 1);
    EXPECT_EQ(cache.stats().memory_hits, 1);
    // Another arch or other options is another entry.
    cache.get(source, Arch::Sm90);
    CompileOptions line_info;
    line_info.line_info = true;
    cache.get(source, Arch::Sm80, line_info);
    EXPECT_EQ(cache.stats().compiles, 3);
  }
  KernelCache fresh(dir.path());
  const auto from_disk = fresh.get(source, Arch::Sm80);
  EXPECT_EQ(fresh.stats().compiles, 0);
  EXPECT_EQ(fresh.stats().disk_hits, 1);
  expectSameArtefacts(*from_disk, compile(source, Arch::Sm80));
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().extension(), ".tgk") << entry.path();
  }
}

TEST(KernelCache, CorruptOrTruncatedEntriesAreRecompiled) {
  TempDir dir;
  const auto source = smallKernel("tg_cache_corrupt");
  const std::string key = KernelCache::key(source, Arch::Sm80, {});
  KernelCache(dir.path()).get(source, Arch::Sm80);
  const auto path = *KernelCache(dir.path()).diskPath(key);
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto size = std::filesystem::file_size(path);
  for (const std::string damage : {"flip", "truncate", "empty"}) {
    KernelCache(dir.path()).get(source, Arch::Sm80);  // make sure a good entry is there
    if (damage == "flip") {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size / 2));
      char c = 0;
      f.read(&c, 1);
      f.seekp(static_cast<std::streamoff>(size / 2));
      c = static_cast<char>(c ^ 0x5a);
      f.write(&c, 1);
    } else {
      std::filesystem::resize_file(path, damage == "truncate" ? size - 7 : 0);
    }
    KernelCache cache(dir.path());
    const auto kernel = cache.get(source, Arch::Sm80);
    EXPECT_EQ(cache.stats().corrupt_entries, 1) << damage;
    EXPECT_EQ(cache.stats().compiles, 1) << damage;
    expectSameArtefacts(*kernel, compile(source, Arch::Sm80));
    // Rewritten whole: the log inside may differ by a digit (ptxas prints timings), so read it back.
    std::ifstream entry(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(entry)), std::istreambuf_iterator<char>());
    const auto reread = deserialize(bytes, KernelCache::keyMaterial(source, Arch::Sm80, {}));
    ASSERT_TRUE(reread.has_value()) << "not rewritten after " << damage;
    expectSameArtefacts(*reread, *kernel);
  }
}

TEST(KernelCache, ConcurrentRequestsCompileOnce) {
  KernelCache cache;
  const auto source = smallKernel("tg_cache_threads");
  std::vector<std::thread> threads;
  std::vector<const CompiledKernel*> results(16, nullptr);
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] { results[static_cast<size_t>(t)] = cache.get(source, Arch::Sm90).get(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_EQ(cache.stats().memory_hits, 15);
  for (const CompiledKernel* r : results) EXPECT_EQ(r, results[0]);
}

TEST(KernelCache, SerializationRoundTripsAndRejectsDamage) {
  const CompiledKernel k = compile(smallKernel(), Arch::Sm80);
  const std::string bytes = serialize(k, "key material");
  EXPECT_EQ(*deserialize(bytes, "key material"), k);
  EXPECT_FALSE(deserialize(bytes, "another key").has_value());
  EXPECT_FALSE(deserialize(bytes.substr(0, bytes.size() - 1), "key material").has_value());
  EXPECT_FALSE(deserialize("", "key material").has_value());
  EXPECT_FALSE(deserialize(bytes + "x", "key material").has_value());
}

// The cache folder is trusted, so what it serves must be this user's entry for exactly this key:
// an entry copied over another key, a link, a FIFO or a file past the size bound is a miss, and the
// kernel is compiled (never read from /dev/zero, never blocked on).
TEST(KernelCache, OnlyThisUsersRegularEntryForTheKeyIsServed) {
  TempDir dir;
  const auto a = smallKernel("tg_cache_a"), b = smallKernel("tg_cache_b");
  KernelCache(dir.path()).get(a, Arch::Sm80);
  KernelCache(dir.path()).get(b, Arch::Sm80);
  const auto path_a = *KernelCache(dir.path()).diskPath(KernelCache::key(a, Arch::Sm80, {}));
  const auto path_b = *KernelCache(dir.path()).diskPath(KernelCache::key(b, Arch::Sm80, {}));
  const auto expectRecompiled = [&](const char* what) {
    KernelCache cache(dir.path());
    const auto kernel = cache.get(b, Arch::Sm80);
    EXPECT_EQ(kernel->kernel_name, "tg_cache_b") << what;
    EXPECT_EQ(cache.stats().compiles, 1) << what;
    EXPECT_EQ(cache.stats().corrupt_entries, 1) << what;
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(path_b))) << what << ": not replaced";
  };
  std::filesystem::copy_file(path_a, path_b, std::filesystem::copy_options::overwrite_existing);
  expectRecompiled("another key's entry");
  std::filesystem::remove(path_b);
  std::filesystem::create_symlink("/dev/zero", path_b);
  expectRecompiled("a link to /dev/zero");
  std::filesystem::remove(path_b);
  ASSERT_EQ(mkfifo(path_b.c_str(), 0600), 0);
  expectRecompiled("a FIFO");
  std::filesystem::resize_file(path_b, KernelCache::kMaxEntryBytes + 1);
  expectRecompiled("an entry past the size bound");
}

// A folder other users can write to could hold a planted kernel: refused unless declared trusted.
TEST(KernelCache, AFolderOthersCanWriteIsRefusedUnlessTrusted) {
  TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);  // 0777, no sticky bit
  try {
    KernelCache cache(dir.path());
    ADD_FAILURE() << "used a world-writable cache folder";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("writable by other users"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("TILEGRID_CACHE_TRUSTED=1"), std::string::npos) << e.what();
  }
  ::setenv("TILEGRID_CACHE_TRUSTED", "1", 1);
  EXPECT_NO_THROW(KernelCache cache(dir.path()));
  ::unsetenv("TILEGRID_CACHE_TRUSTED");
  // A folder the cache makes itself is private, even under a umask of 0.
  const mode_t old_mask = ::umask(0);
  const std::filesystem::path fresh = dir.path() / "fresh";
  EXPECT_NO_THROW(KernelCache cache(fresh));
  ::umask(old_mask);
  EXPECT_EQ(std::filesystem::status(fresh).permissions(), std::filesystem::perms::owner_all);
  // The sticky bit (as on /tmp) keeps others from replacing this user's entries.
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
  EXPECT_NO_THROW(KernelCache cache(dir.path()));
}

TEST(Dump, ParsesNamesAndWritesFiles) {
  EXPECT_THROW(DumpConfig::parse("cuda,bogus"), UserError);
  try {
    DumpConfig::parse("ptx,cubin");
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda, ptx, sass, params, ir, launch"), std::string::npos) << e.what();
  }
  TempDir dir;
  const DumpConfig config = DumpConfig::parse("cuda,launch", dir.path().string());
  EXPECT_TRUE(config.enabled(DumpKind::Cuda));
  EXPECT_FALSE(config.enabled(DumpKind::Ptx));
  config.write(DumpKind::Cuda, "tg_k", "source text");
  config.write(DumpKind::Ptx, "tg_k", "not written");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "tg_k.cuda"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "tg_k.ptx"));
  EXPECT_FALSE(DumpConfig::parse("").any());
  // A folder that cannot be created is a clear error, not "unexpected error".
  const DumpConfig nowhere = DumpConfig::parse("cuda", "/dev/null/dumps");
  try {
    nowhere.write(DumpKind::Cuda, "tg_k", "text");
    ADD_FAILURE() << "wrote under /dev/null";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("TILEGRID_DUMP_DIR: cannot create /dev/null/dumps"), std::string::npos)
        << e.what();
  }
}

TEST(Dump, SassNeedsATool) {
  const CompiledKernel k = compile(smallKernel(), Arch::Sm80);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  setenv("PATH", "/nonexistent", 1);
  try {
    disassemble(k.cubin);
    ADD_FAILURE() << "disassembled without a tool";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cuobjdump or nvdisasm"), std::string::npos);
  }
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace
}  // namespace tilegrid::runtime
