#include "cli/kernels_command.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/parse.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::cli {
namespace {

// The most shapes one call schedules: every shape is scheduled on the host, about a millisecond each.
constexpr int64_t kMaxShapes = 1 << 20;

struct Range {
  int64_t first = 0, last = 0, step = 1;
  int64_t count() const { return (last - first) / step + 1; }
};

// "V", "FIRST:LAST" or "FIRST:LAST:STEP".
Range parseRange(const std::string& text, const std::string& option) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t at = text.find(':', start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  TG_USER_CHECK(parts.size() <= 3) << option << ": '" << text << "' is not a value, FIRST:LAST or FIRST:LAST:STEP";
  Range r;
  r.first = parseInt(parts[0], option);
  r.last = parts.size() > 1 ? parseInt(parts[1], option) : r.first;
  r.step = parts.size() > 2 ? parseInt(parts[2], option) : 1;
  TG_USER_CHECK(r.first >= 1 && r.last >= r.first && r.step >= 1)
      << option << ": '" << text << "' must run from a first value >= 1 up to a last value >= it, in steps >= 1";
  return r;
}

// One distinct kernel: the source every shape it serves is emitted as.
struct Kernel {
  codegen::KernelSource source;
  scheduler::Arch arch = scheduler::Arch::Sm90;
  int64_t shapes = 0;
  std::string first_shape, last_shape;
  double compile_seconds = 0;
};

}  // namespace

CLI::App* addKernelsCommand(CLI::App& app, KernelsOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "kernels", "List the distinct compiled kernels a range of shapes needs (--m, --n, --k take FIRST:LAST[:STEP])");
  addPlanOptions(*cmd, options.plan);
  cmd->add_flag("--compile", options.compile, "Compile each distinct kernel with NVRTC, bypassing every cache, and report the time");
  cmd->add_option("--format", options.format, "text | json")->capture_default_str();
  return cmd;
}

void runKernelsCommand(const KernelsOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"text", "json"});
  const Range m = parseRange(options.plan.m, "--m"), n = parseRange(options.plan.n, "--n"),
              k = parseRange(options.plan.k, "--k");
  const int64_t shapes = m.count() * n.count() * k.count();
  TG_USER_CHECK(shapes <= kMaxShapes) << "--m, --n and --k span " << shapes << " shapes; at most " << kMaxShapes
                                      << " a call (use a STEP)";
  // Kernels are told apart by their source: what NVRTC compiles and the cache keys on.
  std::map<std::string, Kernel> kernels;
  std::vector<std::string> order;
  std::map<std::string, const std::string*> names;
  PlanOptions plan = options.plan;
  for (int64_t vm = m.first; vm <= m.last; vm += m.step) {
    for (int64_t vn = n.first; vn <= n.last; vn += n.step) {
      for (int64_t vk = k.first; vk <= k.last; vk += k.step) {
        plan.m = std::to_string(vm);
        plan.n = std::to_string(vn);
        plan.k = std::to_string(vk);
        const PlanRequest request = parsePlanOptions(plan);
        const scheduler::MatmulSchedule s = scheduler::schedule(request.problem, request.device, request.overrides);
        codegen::KernelSource source = codegen::emit(s);
        const std::string shape = fmt::format("{}x{}x{}", vm, vn, vk);
        auto [it, inserted] = kernels.try_emplace(source.cuda);
        // A kernel's name is its configuration: two sources of one name would be a bug in naming.
        const auto [named, new_name] = names.try_emplace(source.kernel_name, &it->first);
        TG_INTERNAL_CHECK(*named->second == source.cuda)
            << source.kernel_name << " names two different sources (first seen for " << kernels.at(*named->second).first_shape
            << ", again for " << shape << ")";
        if (inserted) {
          it->second.source = std::move(source);
          it->second.arch = s.params.arch;
          it->second.first_shape = shape;
          order.push_back(it->first);
        }
        ++it->second.shapes;
        it->second.last_shape = shape;
      }
    }
  }
  double total_seconds = 0;
  if (options.compile) {
    for (const std::string& key : order) {
      Kernel& kernel = kernels.at(key);
      const auto start = std::chrono::steady_clock::now();
      runtime::compile(kernel.source, kernel.arch);
      kernel.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      total_seconds += kernel.compile_seconds;
    }
  }
  if (options.format == "json") {
    nlohmann::json j{{"shapes", shapes}, {"kernels", order.size()}};
    if (options.compile) j["compile_seconds"] = total_seconds;
    j["list"] = nlohmann::json::array();
    for (const std::string& key : order) {
      const Kernel& kernel = kernels.at(key);
      j["list"].push_back({{"name", kernel.source.kernel_name},
                           {"shapes", kernel.shapes},
                           {"first", kernel.first_shape},
                           {"last", kernel.last_shape}});
      if (options.compile) j["list"].back()["compile_seconds"] = kernel.compile_seconds;
    }
    out << j.dump(2) << "\n";
    return;
  }
  for (const std::string& key : order) {
    const Kernel& kernel = kernels.at(key);
    out << fmt::format("{}  {} shapes ({} .. {})", kernel.source.kernel_name, kernel.shapes, kernel.first_shape,
                       kernel.last_shape);
    if (options.compile) out << fmt::format(", compiled in {:.2f} s", kernel.compile_seconds);
    out << "\n";
  }
  out << fmt::format("{} distinct kernels for {} shapes", order.size(), shapes);
  if (options.compile) out << fmt::format("; cold NVRTC compile {:.1f} s in all", total_seconds);
  out << "\n";
}

}  // namespace tilegrid::cli
