#include "tilegrid/codegen/config_block.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {
namespace {

bool fitsInt(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

std::string integer(int64_t v) { return fitsInt(v) ? std::to_string(v) : std::to_string(v) + "LL"; }

}  // namespace

ConfigBlock& ConfigBlock::type(const std::string& name, const std::string& cuda_type) {
  for (const auto& [known, t] : types_) TG_INTERNAL_CHECK(known != name) << "config type tg_" << name << " given twice";
  types_.emplace_back(name, cuda_type);
  return *this;
}

ConfigBlock& ConfigBlock::add(Entry e) {
  for (const Entry& known : entries_) {
    TG_INTERNAL_CHECK(known.group != e.group || known.name != e.name)
        << "config value " << (e.group.empty() ? "" : e.group + "::") << e.name << " given twice";
  }
  entries_.push_back(std::move(e));
  return *this;
}

ConfigBlock& ConfigBlock::value(const std::string& name, int64_t v, const std::string& why, const std::string& group) {
  return add({group, name, fitsInt(v) ? "int" : "long long", integer(v), why});
}

ConfigBlock& ConfigBlock::flag(const std::string& name, bool v, const std::string& why, const std::string& group) {
  return add({group, name, "bool", v ? "true" : "false", why});
}

ConfigBlock& ConfigBlock::array(const std::string& name, const std::vector<int64_t>& v, const std::string& why,
                                const std::string& group) {
  TG_INTERNAL_CHECK(!v.empty()) << "config array " << name << " is empty";
  TG_INTERNAL_CHECK(std::all_of(v.begin(), v.end(), fitsInt)) << "config array " << name << " holds values past int";
  std::string items;
  for (size_t i = 0; i < v.size(); ++i) items += (i ? ", " : "") + integer(v[i]);
  return add({group, name, fmt::format("tg_ints<{}>", v.size()), "{{" + items + "}}", why});
}

std::vector<std::string> ConfigBlock::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) {
    out.push_back(e.group.empty() ? e.name : e.group + "::" + e.name);
  }
  return out;
}

std::string ConfigBlock::print() const {
  std::string out = "// ---- configuration ----\n#define TG_KERNEL_NAME " + kernel_name_ + "\n";
  for (const auto& [name, t] : types_) out += fmt::format("typedef {} tg_{};\n", t, name);
  out += "namespace tg_config {\n";
  const auto line = [](const Entry& e, const char* indent, const char* storage) {
    std::string text = e.why.empty() ? "" : fmt::format("{}// {}\n", indent, e.why);
    return text + fmt::format("{}{}constexpr {} {} = {};\n", indent, storage, e.cuda_type, e.name, e.text);
  };
  std::vector<std::string> groups;
  for (const Entry& e : entries_) {
    if (e.group.empty()) {
      out += line(e, "", "");
    } else if (std::find(groups.begin(), groups.end(), e.group) == groups.end()) {
      groups.push_back(e.group);
    }
  }
  for (const std::string& g : groups) {
    out += "struct " + g + " {\n";
    for (const Entry& e : entries_) {
      if (e.group == g) out += line(e, "  ", "static ");
    }
    out += "};\n";
  }
  return out + "}  // namespace tg_config\n";
}

}  // namespace tilegrid::codegen
