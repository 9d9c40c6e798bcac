// EtcdHttpConn: etcd v3 requests as JSON over libcurl, and their answers
// back into the typed replies of locks/cp_client.hpp (etcd_http_client.hpp).
// Field names follow etcd 3.4's etcdserverpb/rpc.proto as grpc-gateway
// marshals them (lower snake case; the lease messages use "ID" and "TTL").
#include "live/etcd_http_client.hpp"

#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "live/curl_library.hpp"
#include "vocab/reply.hpp"

namespace locksim::live {

using json = nlohmann::json;
using namespace locks;

namespace {

constexpr const char* kIoError = "IOERR locksim: ";

std::string base64(const std::string& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<std::size_t>(std::max(n, 0)));
  return out;
}

std::string unbase64(const std::string& s) {
  if (s.empty()) return "";
  std::string out(3 * (s.size() / 4) + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  if (n < 0) return "";
  std::size_t len = static_cast<std::size_t>(n);
  for (std::size_t i = s.size(); i > 0 && s[i - 1] == '=' && len > 0; --i) --len;  // EVP counts the padding
  out.resize(len);
  return out;
}

// An int64 field: a JSON string (proto3 JSON's int64), a number, or absent (0).
std::int64_t int_field(const json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) return 0;
  const json& v = j.at(name);
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) {
    try {
      return std::stoll(v.get<std::string>());
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

std::string bytes_field(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j.at(name).is_string() ? unbase64(j.at(name).get<std::string>()) : "";
}

std::int64_t header_revision(const json& j) {
  return j.contains("header") ? int_field(j.at("header"), "revision") : 0;
}

// The parsed answer, or an error text: transport failure, not JSON, or an
// {"error": ...} answer (also inside a streaming {"error": ...} line).
std::string failure_of(const EtcdHttpConn::Answer& a, json& out) {
  if (!a.transport_error.empty()) return a.transport_error;
  out = json::parse(a.body, nullptr, false);
  if (out.is_discarded() || !out.is_object()) return std::string(kIoError) + "not a JSON answer: " + a.body.substr(0, 200);
  if (out.contains("error")) return out.at("error").is_string() ? out.at("error").get<std::string>() : out.at("error").dump();
  return "";
}

EtcdRange range_of(const json& j) {
  EtcdRange out;
  out.revision = header_revision(j);
  if (j.contains("kvs") && j.at("kvs").is_array())
    for (const json& kv : j.at("kvs"))
      out.kvs.push_back({bytes_field(kv, "key"), bytes_field(kv, "value"), int_field(kv, "create_revision"),
                         int_field(kv, "mod_revision"), int_field(kv, "version"), int_field(kv, "lease")});
  return out;
}

json key_range(const std::string& key, const std::string& range_end) {
  json j{{"key", base64(key)}};
  if (!range_end.empty()) j["range_end"] = base64(range_end);
  return j;
}

json put_request(const std::string& key, const std::string& value, std::int64_t lease) {
  json j{{"key", base64(key)}, {"value", base64(value)}};
  if (lease != 0) j["lease"] = std::to_string(lease);
  return j;
}

json compare_json(const EtcdCompare& c) {
  static const std::pair<const char*, const char*> results[] = {{"=", "EQUAL"}, {"!=", "NOT_EQUAL"},
                                                                {"<", "LESS"}, {">", "GREATER"}};
  json j{{"key", base64(c.key)}, {"result", c.op}};
  for (const auto& [op, name] : results)
    if (c.op == op) j["result"] = name;
  switch (c.target) {
    case EtcdCompare::Target::Create: j["target"] = "CREATE", j["create_revision"] = c.operand; break;
    case EtcdCompare::Target::Mod: j["target"] = "MOD", j["mod_revision"] = c.operand; break;
    case EtcdCompare::Target::Version: j["target"] = "VERSION", j["version"] = c.operand; break;
    case EtcdCompare::Target::Value: j["target"] = "VALUE", j["value"] = base64(c.operand); break;
  }
  return j;
}

json op_json(const EtcdOp& op) {
  switch (op.kind) {
    case EtcdOp::Kind::Put: return {{"request_put", put_request(op.key, op.value_or_end, op.lease)}};
    case EtcdOp::Kind::Range: return {{"request_range", key_range(op.key, op.value_or_end)}};
    case EtcdOp::Kind::Delete: return {{"request_delete_range", key_range(op.key, op.value_or_end)}};
  }
  return json::object();
}

json ops_json(const std::vector<EtcdOp>& ops) {
  json a = json::array();
  for (const EtcdOp& op : ops) a.push_back(op_json(op));
  return a;
}

std::chrono::milliseconds whole_ms(Duration d) {
  return std::max(std::chrono::ceil<std::chrono::milliseconds>(d), std::chrono::milliseconds(1));
}

// The watch stream's reader: every complete line is one JSON message.
struct WatchReader {
  std::string pending;
  EtcdDeleted result;
  bool done = false;

  // False once a DELETE event or an error ended the watch.
  bool take(const std::string& line) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return true;
    if (j.contains("error")) {
      result.error = j.at("error").is_string() ? j.at("error").get<std::string>() : j.at("error").dump();
      return false;
    }
    const json r = j.value("result", json::object());
    if (r.value("canceled", false)) {
      result.error = "watch canceled: " + r.value("cancel_reason", std::string("(no reason)"));
      return false;
    }
    if (!r.contains("events") || !r.at("events").is_array()) return true;
    for (const json& ev : r.at("events")) {
      if (ev.value("type", std::string()) != "DELETE") continue;
      const json kv = ev.value("kv", json::object());
      result.revision = int_field(kv, "mod_revision");
      result.key = bytes_field(kv, "key");
      return false;
    }
    return true;
  }

  static std::size_t on_data(char* data, std::size_t size, std::size_t n, void* self) {
    auto* w = static_cast<WatchReader*>(self);
    w->pending.append(data, size * n);
    for (std::size_t nl; (nl = w->pending.find('\n')) != std::string::npos;) {
      const std::string line = w->pending.substr(0, nl);
      w->pending.erase(0, nl + 1);
      if (!w->take(line)) {
        w->done = true;
        return 0;  // closes the stream: CURLE_WRITE_ERROR, which is our success
      }
    }
    return size * n;
  }
};

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// A curl handle for one POST of `json` to `url`; the caller performs it.
struct Request {
  const CurlLibrary& lib = curl_library();
  CURL* curl = lib.easy_init();
  curl_slist* headers = lib.slist_append(nullptr, "Content-Type: application/json");
  Request(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) {
    lib.easy_setopt(curl, CURLOPT_URL, url.c_str());
    lib.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    lib.easy_setopt(curl, CURLOPT_COPYPOSTFIELDS, body.c_str());
    lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for timeouts
    lib.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.count()));
    lib.easy_setopt(curl, CURLOPT_PROXY, "");  // loopback: never an http_proxy from the environment
  }
  ~Request() {
    lib.slist_free_all(headers);
    lib.easy_cleanup(curl);
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
};

}  // namespace

EtcdHttpConn::EtcdHttpConn(std::vector<std::string> endpoints, std::chrono::milliseconds timeout)
    : endpoints_(std::move(endpoints)), timeout_(timeout) {
  curl_library();  // loads libcurl now: a missing library is an error here, not at the first call
}

EtcdHttpConn::Answer EtcdHttpConn::post(const std::string& path, const std::string& body,
                                        std::chrono::milliseconds timeout) {
  ++calls_;
  const std::size_t at = current_.load() % endpoints_.size();
  Request req("http://" + endpoints_[at] + path, body, timeout);
  Answer answer;
  req.lib.easy_setopt(req.curl, CURLOPT_WRITEFUNCTION, append_body);
  req.lib.easy_setopt(req.curl, CURLOPT_WRITEDATA, &answer.body);
  const CURLcode rc = req.lib.easy_perform(req.curl);
  if (rc != CURLE_OK) {
    answer.transport_error = std::string(kIoError) + req.lib.easy_strerror(rc);
    std::size_t expected = current_.load();
    current_.compare_exchange_strong(expected, expected + 1);  // the next endpoint (once, if calls race)
  }
  return answer;
}

Task<EtcdWrite> EtcdHttpConn::put(std::string key, std::string value, std::int64_t lease) {
  json j;
  EtcdWrite out;
  out.error = failure_of(post("/v3/kv/put", put_request(key, value, lease).dump(), timeout_), j);
  if (out.ok()) out.revision = header_revision(j);
  co_return out;
}

Task<EtcdRange> EtcdHttpConn::range(std::string key, std::string range_end) {
  json j;
  const std::string error = failure_of(post("/v3/kv/range", key_range(key, range_end).dump(), timeout_), j);
  EtcdRange out = error.empty() ? range_of(j) : EtcdRange{};
  out.error = error;
  co_return out;
}

Task<EtcdWrite> EtcdHttpConn::delete_range(std::string key, std::string range_end) {
  json j;
  EtcdWrite out;
  out.error = failure_of(post("/v3/kv/deleterange", key_range(key, range_end).dump(), timeout_), j);
  if (out.ok()) out.revision = header_revision(j), out.deleted = int_field(j, "deleted");
  co_return out;
}

Task<EtcdTxn> EtcdHttpConn::txn(std::vector<EtcdCompare> compares, std::vector<EtcdOp> success,
                                std::vector<EtcdOp> failure) {
  json request{{"compare", json::array()}, {"success", ops_json(success)}, {"failure", ops_json(failure)}};
  for (const EtcdCompare& c : compares) request["compare"].push_back(compare_json(c));
  json j;
  EtcdTxn out;
  out.error = failure_of(post("/v3/kv/txn", request.dump(), timeout_), j);
  if (!out.ok()) co_return out;
  out.revision = header_revision(j);
  out.succeeded = j.value("succeeded", false);
  const std::vector<EtcdOp>& taken = out.succeeded ? success : failure;
  const json responses = j.value("responses", json::array());
  for (std::size_t i = 0; i < taken.size(); ++i) {
    const bool read = taken[i].kind == EtcdOp::Kind::Range && i < responses.size();
    out.ranges.push_back(read ? range_of(responses[i].value("response_range", json::object())) : EtcdRange{});
  }
  co_return out;
}

Task<EtcdLease> EtcdHttpConn::lease_grant(std::int64_t ttl_seconds) {
  json j;
  EtcdLease out;
  out.error = failure_of(post("/v3/lease/grant", json{{"TTL", std::to_string(ttl_seconds)}}.dump(), timeout_), j);
  if (out.ok()) out.id = int_field(j, "ID"), out.ttl = int_field(j, "TTL");
  co_return out;
}

Task<EtcdLease> EtcdHttpConn::lease_keep_alive_once(std::int64_t id) {
  json j;
  EtcdLease out;
  out.error = failure_of(post("/v3/lease/keepalive", json{{"ID", std::to_string(id)}}.dump(), timeout_), j);
  if (!out.ok()) co_return out;
  const json r = j.value("result", json::object());  // a stream of one answer
  out.id = int_field(r, "ID");
  out.ttl = int_field(r, "TTL");  // absent (0): the lease is gone
  co_return out;
}

Task<CpStatus> EtcdHttpConn::lease_revoke(std::int64_t id) {
  json j;
  co_return CpStatus{failure_of(post("/v3/lease/revoke", json{{"ID", std::to_string(id)}}.dump(), timeout_), j)};
}

Task<EtcdDeleted> EtcdHttpConn::wait_delete(std::string key, std::string range_end, std::int64_t start_revision,
                                            Duration timeout) {
  ++calls_;
  json create = key_range(key, range_end);
  create["start_revision"] = std::to_string(start_revision);
  create["filters"] = json::array({"NOPUT"});
  const std::size_t at = current_.load() % endpoints_.size();
  Request req("http://" + endpoints_[at] + "/v3/watch", json{{"create_request", create}}.dump(), whole_ms(timeout));
  WatchReader reader;
  req.lib.easy_setopt(req.curl, CURLOPT_WRITEFUNCTION, WatchReader::on_data);
  req.lib.easy_setopt(req.curl, CURLOPT_WRITEDATA, &reader);
  const CURLcode rc = req.lib.easy_perform(req.curl);
  if (reader.done) co_return reader.result;
  EtcdDeleted out;
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    out.error = kTimeoutError;  // no deletion within the wait: the simulated client's answer
  } else {
    out.error = std::string(kIoError) + (rc == CURLE_OK ? "the watch stream ended" : req.lib.easy_strerror(rc));
    std::size_t expected = current_.load();
    current_.compare_exchange_strong(expected, expected + 1);
  }
  co_return out;
}

}  // namespace locksim::live
