#pragma once
// A kernel's configuration as CUDA: the only generated part of a kernel besides the index functions.
// Kernel templates and the device functions they call read it (namespace tg_config) and choose their
// variant code with `if constexpr` on it; nothing else of a kernel is built as text.
//
//   #define TG_KERNEL_NAME tilegrid_sm90_bf16_tn_128x256x64_s4_smerge8
//   typedef __nv_bfloat16 tg_in_t;
//   namespace tg_config {
//   constexpr int BM = 128;
//   struct operand_a {
//     static constexpr bool K_MAJOR = true;
//   };
//   }  // namespace tg_config
#include <cstdint>
#include <string>
#include <vector>

namespace tilegrid::codegen {

class ConfigBlock {
 public:
  explicit ConfigBlock(std::string kernel_name) : kernel_name_(std::move(kernel_name)) {}

  // A global typedef, tg_<name>: the element types the kernel's code is written in.
  ConfigBlock& type(const std::string& name, const std::string& cuda_type);
  // A constexpr value in tg_config, or in its struct `group` (one per operand, say). Integers are
  // int where they fit, else long long. `why` becomes a comment where the name alone does not say.
  ConfigBlock& value(const std::string& name, int64_t v, const std::string& why = {}, const std::string& group = {});
  ConfigBlock& flag(const std::string& name, bool v, const std::string& why = {}, const std::string& group = {});
  // A list of ints, as a tg_ints<N> (tilegrid/codegen/device/common.cuh) that device code indexes.
  ConfigBlock& array(const std::string& name, const std::vector<int64_t>& v, const std::string& why = {},
                     const std::string& group = {});

  // The values' names, "group::name" inside groups.
  std::vector<std::string> names() const;
  const std::string& kernelName() const { return kernel_name_; }
  std::string print() const;

 private:
  struct Entry {
    std::string group, name, cuda_type, text, why;
  };
  ConfigBlock& add(Entry e);

  std::string kernel_name_;
  std::vector<std::pair<std::string, std::string>> types_;
  std::vector<Entry> entries_;
};

}  // namespace tilegrid::codegen
