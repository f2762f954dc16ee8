#include "results/json_format.h"

#include <stdexcept>

namespace flabench {

using nlohmann::json;

namespace {

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

template <class T>
void get_optional(const json& j, const char* key, std::optional<T>& value) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) value = it->get<T>();
}

}  // namespace

void to_json(json& j, const RunContext& c) {
  j = json{
      {"schema", c.schema},       {"schema_version", c.schema_version},       {"started_utc", c.started_utc},
      {"host", c.host},           {"fla_bench_version", c.fla_bench_version}, {"git_sha", c.git_sha},
      {"git_dirty", c.git_dirty}, {"command_line", c.command_line},           {"device", c.device},
      {"settings", c.settings}};
  if (!c.environment.empty()) j["environment"] = c.environment;
}

void from_json(const json& j, RunContext& c) {
  j.at("schema").get_to(c.schema);
  j.at("schema_version").get_to(c.schema_version);
  j.at("started_utc").get_to(c.started_utc);
  j.at("host").get_to(c.host);
  j.at("fla_bench_version").get_to(c.fla_bench_version);
  j.at("git_sha").get_to(c.git_sha);
  j.at("git_dirty").get_to(c.git_dirty);
  j.at("command_line").get_to(c.command_line);
  j.at("device").get_to(c.device);
  j.at("settings").get_to(c.settings);
  c.environment = j.value("environment", std::map<std::string, std::string>{});  // added in schema 1.7
}

void to_json(json& j, const CaseRecord& r) {
  j = json{
      {"name", r.name},
      {"op", r.op},
      {"variant", r.variant},
      {"mode", r.mode},
      {"dtype", r.dtype},
      {"axes", {{"B", r.B}, {"T", r.T}, {"H", r.H}, {"K", r.K}, {"V", r.V}, {"chunk_size", r.chunk_size}}},
      {"scale", r.scale},
      {"status", status_name(r.status)},
      {"reason", r.reason}};
  if (!r.family.empty()) j["family"] = r.family;
  if (!r.reproduce.empty()) j["reproduce"] = r.reproduce;
  if (!r.device.empty()) j["device"] = r.device;
  if (r.M > 0) j["axes"]["M"] = r.M;
  if (r.G > 1) j["axes"]["G"] = r.G;
  put_optional(j, "timing", r.timing);
  put_optional(j, "derived", r.derived);
  put_optional(j, "memory", r.memory);
  put_optional(j, "check", r.check);
  put_optional(j, "counters", r.counters);
  put_optional(j, "kernel_times", r.kernel_times);
  put_optional(j, "timeline", r.timeline);
}

void from_json(const json& j, CaseRecord& r) {
  j.at("name").get_to(r.name);
  r.family = j.value("family", "");  // family, reproduce and a tensor's detail: added in schema 1.1
  r.reproduce = j.value("reproduce", "");
  r.device = j.value("device", "");  // added in schema 1.3
  j.at("op").get_to(r.op);
  j.at("variant").get_to(r.variant);
  j.at("mode").get_to(r.mode);
  j.at("dtype").get_to(r.dtype);
  const json& axes = j.at("axes");
  axes.at("B").get_to(r.B);
  axes.at("T").get_to(r.T);
  axes.at("H").get_to(r.H);
  axes.at("K").get_to(r.K);
  axes.at("V").get_to(r.V);
  axes.at("chunk_size").get_to(r.chunk_size);
  r.M = axes.value("M", std::int64_t{0});
  r.G = axes.value("G", std::int64_t{1});
  j.at("scale").get_to(r.scale);
  const auto status = parse_status(j.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("unknown case status '" + j.at("status").get<std::string>() + "'");
  r.status = *status;
  j.at("reason").get_to(r.reason);
  get_optional(j, "timing", r.timing);
  get_optional(j, "derived", r.derived);
  get_optional(j, "memory", r.memory);  // added in schema 1.6
  get_optional(j, "check", r.check);
  get_optional(j, "counters", r.counters);
  get_optional(j, "kernel_times", r.kernel_times);
  get_optional(j, "timeline", r.timeline);  // added in schema 1.4
}

json result_file_json(const ResultFile& file) {
  json j{{"schema", file.context.schema},
         {"schema_version", file.context.schema_version},
         {"complete", file.complete},
         {"context", file.context},
         {"cases", file.cases}};
  if (file.summary) j["summary"] = *file.summary;
  return j;
}

}  // namespace flabench
