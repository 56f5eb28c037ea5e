// The kernel templates take a configuration block and the printed index functions, and nothing else:
// a generated source is helpers, index functions, configuration, kernel parts and the template file
// verbatim, and every configuration value is read by the code after it.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tilegrid/codegen/device_helpers.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/compiler.h"
#include "support/kernel_config.h"
#include "support/gemm_cases.h"

namespace tilegrid::codegen {
namespace {

struct TemplateCase {
  const char* kernel_template;
  scheduler::Arch arch;
};

// The configuration's names: `NAME` of every `constexpr <type> NAME = ...;` in the block.
std::set<std::string> configNames(const std::string& cuda) {
  const size_t begin = cuda.find("namespace tg_config {");
  const std::string block = cuda.substr(begin, cuda.find("}  // namespace tg_config", begin) - begin);
  std::set<std::string> names;
  const std::regex entry("constexpr [a-z_<>0-9 ]+ ([A-Z_0-9]+) = ");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), entry); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

// The default configuration of each architecture, for a square problem, compiles from its template
// unchanged: the source ends with the template file, and the code after the configuration block reads
// every value in it.
TEST(KernelTemplate, EachTemplateCompilesWithADefaultConfigurationAndReadsAllOfIt) {
  for (const TemplateCase& c :
       {TemplateCase{"sm80_gemm", scheduler::Arch::Sm80}, TemplateCase{"sm90_gemm", scheduler::Arch::Sm90}}) {
    const auto problem = testing::makeProblem(4096, 4096, 4096, scheduler::Layout::TN, scheduler::DType::BF16,
                                              scheduler::DType::BF16);
    scheduler::ScheduleOverrides o;
    o.arch = c.arch;
    const KernelSource source = emit(scheduler::schedule(problem, scheduler::DeviceSpec::preset("sm_90"), o));
    const std::string text = kernelTemplate(c.kernel_template);
    ASSERT_GE(source.cuda.size(), text.size());
    EXPECT_EQ(source.cuda.substr(source.cuda.size() - text.size()), text) << c.kernel_template;
    const size_t config_end = source.cuda.find("}  // namespace tg_config");
    ASSERT_NE(config_end, std::string::npos);
    const std::string after = source.cuda.substr(config_end);
    const std::set<std::string> names = configNames(source.cuda);
    EXPECT_GE(names.size(), 20u);
    for (const std::string& name : names) {
      EXPECT_TRUE(std::regex_search(after, std::regex("\\b" + name + "\\b")))
          << c.kernel_template << ": configuration value " << name << " is read by nothing";
    }
    const runtime::CompiledKernel compiled = runtime::compile(source, scheduler::Arch::Sm90);
    EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
    EXPECT_EQ(compiled.statsFor().spill_stores, 0) << source.kernel_name;
  }
}

// A value that changes the code is a configuration value, not text: the sources of two
// configurations differ in their configuration block and index functions, never in the code after.
TEST(KernelTemplate, ConfigurationsDifferOnlyInTheirBlockAndIndexFunctions) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (scheduler::Arch arch : {scheduler::Arch::Sm80, scheduler::Arch::Sm90}) {
    const auto tn = testing::makeProblem(4096, 4096, 4096, scheduler::Layout::TN, scheduler::DType::BF16,
                                         scheduler::DType::BF16);
    const auto nt_odd = testing::makeProblem(1000, 999, 333, scheduler::Layout::NT, scheduler::DType::FP16,
                                             scheduler::DType::FP32);
    scheduler::ScheduleOverrides o;
    o.arch = arch;
    const KernelSource a = emit(scheduler::schedule(tn, device, o));
    const KernelSource b = emit(scheduler::schedule(nt_odd, device, o));
    EXPECT_NE(a.cuda, b.cuda);
    const auto tail = [](const std::string& cuda) { return cuda.substr(cuda.find("}  // namespace tg_config")); };
    EXPECT_EQ(tail(a.cuda), tail(b.cuda));
  }
}

}  // namespace
}  // namespace tilegrid::codegen
