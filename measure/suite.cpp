#include "measure/suite.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/epilogue.h"

namespace tilegrid::runtime {
namespace {

int64_t wholeNumber(const nlohmann::json& c, const std::string& name, const char* key, int64_t fallback) {
  if (!c.contains(key)) return fallback;
  const nlohmann::json& v = c.at(key);
  TG_USER_CHECK(v.is_number_integer()) << "suite case '" << name << "': " << key << " must be a whole number, got "
                                       << v.dump();
  return v.get<int64_t>();
}

std::string text(const nlohmann::json& c, const std::string& name, const char* key, const std::string& fallback) {
  if (!c.contains(key)) return fallback;
  TG_USER_CHECK(c.at(key).is_string()) << "suite case '" << name << "': " << key << " must be a string";
  return c.at(key).get<std::string>();
}

bool flag(const nlohmann::json& c, const std::string& name, const char* key) {
  TG_USER_CHECK(c.at(key).is_boolean()) << "suite case '" << name << "': " << key << " must be true or false";
  return c.at(key).get<bool>();
}

// One entry of a case's "schedules": the overrides, and their text as `tilegrid run` options in the
// order the tile datasets name them.
std::pair<std::string, scheduler::ScheduleOverrides> parseSchedule(const nlohmann::json& s, const std::string& name) {
  static const std::set<std::string> kScheduleKeys = {"swap_ab", "cta_tile", "cluster", "stages", "pingpong",
                                                      "stream_k", "fixed_choices", "dot"};
  TG_USER_CHECK(s.is_object() && !s.empty())
      << "suite case '" << name
      << "': each schedule is an object of swap_ab, cta_tile, cluster, stages, pingpong, stream_k, fixed_choices and dot";
  for (const auto& [key, value] : s.items()) {
    TG_USER_CHECK(kScheduleKeys.count(key) > 0) << "suite case '" << name << "': unknown schedule field '" << key
                                                << "' (allowed: swap_ab, cta_tile, cluster, stages, pingpong, stream_k, fixed_choices, dot)";
  }
  scheduler::ScheduleOverrides o;
  std::string text;
  if (s.contains("swap_ab")) {
    o.swap_ab = flag(s, name, "swap_ab");
    text += std::string(" --swap-ab ") + (*o.swap_ab ? "on" : "off");
  }
  if (s.contains("cta_tile")) {
    const nlohmann::json& t = s.at("cta_tile");
    TG_USER_CHECK(t.is_array() && t.size() == 3 && t[0].is_number_integer() && t[1].is_number_integer() &&
                  t[2].is_number_integer())
        << "suite case '" << name << "': cta_tile is [M, N, K], got " << t.dump();
    o.cta_tile = scheduler::TileShape{t[0].get<int64_t>(), t[1].get<int64_t>(), t[2].get<int64_t>()};
    text += " --cta-tile " + o.cta_tile->toString();
  }
  if (s.contains("cluster")) {
    o.cluster_m = wholeNumber(s, name, "cluster", 1);
    text += " --cluster " + std::to_string(*o.cluster_m);
  }
  if (s.contains("pingpong")) {
    o.pingpong = flag(s, name, "pingpong");
    text += std::string(" --pingpong ") + (*o.pingpong ? "on" : "off");
  }
  if (s.contains("stream_k")) {
    o.stream_k = flag(s, name, "stream_k");
    text += std::string(" --stream-k ") + (*o.stream_k ? "on" : "off");
  }
  if (s.contains("stages")) {
    o.stages = wholeNumber(s, name, "stages", 0);
    text += " --stages " + std::to_string(*o.stages);
  }
  if (s.contains("fixed_choices")) {
    o.launch_choices_compiled = flag(s, name, "fixed_choices");
    text += std::string(" --fixed-choices ") + (*o.launch_choices_compiled ? "on" : "off");
  }
  if (s.contains("dot")) {
    o.dot = flag(s, name, "dot");
    text += std::string(" --dot ") + (*o.dot ? "on" : "off");
  }
  return {text.substr(1), o};
}

}  // namespace

std::string problemName(const std::string& case_name, const std::string& config) {
  const std::string suffix = " " + config;
  const bool scheduled = config != "default" && case_name.size() > suffix.size() &&
                         case_name.compare(case_name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return scheduled ? case_name.substr(0, case_name.size() - suffix.size()) : case_name;
}

std::vector<SuiteCase> parseSuite(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    TG_USER_ERROR() << "the suite is not JSON: " << e.what();
  }
  TG_USER_CHECK(j.is_object() && j.contains("cases") && j.at("cases").is_array())
      << "a suite is an object with a \"cases\" array";
  static const std::set<std::string> kKeys = {"name", "category", "m", "n", "k", "batch", "layouts", "dtype",
                                              "b_dtype", "scale", "out_dtype", "lda", "ldb", "ldc", "epilogue", "schedules"};
  std::vector<SuiteCase> cases;
  std::set<std::string> names;
  for (const nlohmann::json& c : j.at("cases")) {
    TG_USER_CHECK(c.is_object() && c.contains("name") && c.at("name").is_string())
        << "every suite case is an object with a \"name\"";
    const std::string name = c.at("name").get<std::string>();
    TG_USER_CHECK(names.insert(name).second) << "suite case '" << name << "' appears twice";
    for (const auto& [key, value] : c.items()) {
      TG_USER_CHECK(kKeys.count(key) > 0) << "suite case '" << name << "': unknown field '" << key << "'";
    }
    TG_USER_CHECK(c.contains("m") && c.contains("n") && c.contains("k"))
        << "suite case '" << name << "' needs m, n and k";
    std::vector<std::string> layouts = {"TN", "NT"};
    if (c.contains("layouts")) {
      TG_USER_CHECK(c.at("layouts").is_array() && !c.at("layouts").empty())
          << "suite case '" << name << "': layouts is a non-empty list such as [\"TN\", \"NT\"]";
      layouts.clear();
      for (const nlohmann::json& l : c.at("layouts")) {
        TG_USER_CHECK(l.is_string()) << "suite case '" << name << "': layouts are strings";
        layouts.push_back(l.get<std::string>());
      }
    }
    std::vector<std::pair<std::string, scheduler::ScheduleOverrides>> schedules;
    if (c.contains("schedules")) {
      TG_USER_CHECK(c.at("schedules").is_array()) << "suite case '" << name << "': schedules is a list of objects";
      for (const nlohmann::json& s : c.at("schedules")) schedules.push_back(parseSchedule(s, name));
    }
    for (const std::string& layout : layouts) {
      scheduler::MatmulProblem p;
      p.m = wholeNumber(c, name, "m", 0);
      p.n = wholeNumber(c, name, "n", 0);
      p.k = wholeNumber(c, name, "k", 0);
      p.batch = wholeNumber(c, name, "batch", 1);
      p.lda = wholeNumber(c, name, "lda", 0);
      p.ldb = wholeNumber(c, name, "ldb", 0);
      p.ldc = wholeNumber(c, name, "ldc", 0);
      p.layout = scheduler::parseLayout(layout);
      try {
        p.a_dtype = p.b_dtype = scheduler::parseInputDType(text(c, name, "dtype", "bf16"));
        p.b_dtype = scheduler::parseInputDType(text(c, name, "b_dtype", scheduler::toString(p.a_dtype)));
        p.out_dtype = scheduler::parseOutputDType(
            text(c, name, "out_dtype", scheduler::isFp8(p.a_dtype) ? "bf16" : scheduler::toString(p.a_dtype)));
        p.scale = scheduler::parseScaleMode(text(c, name, "scale", "none"));
        // A fused epilogue (ir/epilogue.h), its operands of C's type.
        if (c.contains("epilogue")) p.epilogue = ir::Epilogue::parse(text(c, name, "epilogue", ""));
        p.validate();
      } catch (const UserError& e) {
        TG_USER_ERROR() << "suite case '" << name << "' (" << layout << "): " << e.what();
      }
      const std::string category = text(c, name, "category", "uncategorized");
      cases.push_back({name + "/" + layout, category, p, "default", {}});
      for (const auto& [config, overrides] : schedules) {
        cases.push_back({name + "/" + layout + " " + config, category, p, config, overrides});
      }
    }
  }
  TG_USER_CHECK(!cases.empty()) << "the suite has no cases";
  std::set<std::string> expanded;
  for (const SuiteCase& c : cases) {
    TG_USER_CHECK(expanded.insert(c.name).second) << "suite case '" << c.name << "' appears twice (a schedule listed twice?)";
  }
  return cases;
}

std::vector<SuiteCase> readSuite(const std::string& path) {
  std::ifstream in(path);
  TG_USER_CHECK(in.good()) << "cannot read the suite file '" << path << "'";
  std::stringstream text;
  text << in.rdbuf();
  return parseSuite(text.str());
}

}  // namespace tilegrid::runtime
