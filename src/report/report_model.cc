// The data step's top: checks documents, writes each run's header, groups results by test
// and hands each group to its section builders (report_sections.h).
#include "report/report_model.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>

#include "report/chart_model.h"
#include "report/compare_model.h"
#include "report/report_sections.h"
#include "report/reporter.h"

namespace fabperf::report {

std::optional<double> number_at(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> number_at_path(const nlohmann::json& j, std::string_view path) {
  const nlohmann::json* at = &j;
  while (true) {
    const size_t dot = path.find('.');
    if (dot == std::string_view::npos) return number_at(*at, path);
    if (!at->is_object()) return std::nullopt;
    auto it = at->find(path.substr(0, dot));
    if (it == at->end()) return std::nullopt;
    at = &*it;
    path.remove_prefix(dot + 1);
  }
}

std::string string_at(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string text_of(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json section(const std::string& id, const std::string& title) {
  return {{"id", id},
          {"title", title},
          {"charts", nlohmann::json::array()},
          {"tables", nlohmann::json::array()},
          {"notes", nlohmann::json::array()}};
}

namespace {

std::string joined(const nlohmann::json& words) {
  std::string out;
  if (!words.is_array()) return out;
  for (const nlohmann::json& w : words) {
    if (w.is_string()) out += (out.empty() ? "" : " ") + w.get<std::string>();
  }
  return out;
}

std::string node_text(const nlohmann::json& node) {
  std::string out = string_at(node, "node");
  for (const char* key : {"os", "cpu", "version"}) {
    std::string v = string_at(node, key);
    if (!v.empty())
      out += (out.empty() ? "" : ", ") +
             std::string(key == std::string("version") ? "fabperf " : "") + v;
  }
  return out;
}

// Parameter values every result shares, as "name=value": the run's settings at a glance.
std::string common_params(const nlohmann::json& results) {
  std::map<std::string, std::string> common;
  bool first = true;
  for (const nlohmann::json& r : results) {
    auto params = r.find("params");
    if (params == r.end() || !params->is_object()) continue;
    std::map<std::string, std::string> mine;
    for (auto it = params->begin(); it != params->end(); ++it) {
      mine[it.key()] = text_of(*it);
    }
    if (first) {
      common = mine;
      first = false;
    } else {
      std::erase_if(common, [&](const auto& kv) {
        return mine.count(kv.first) == 0 || mine[kv.first] != kv.second;
      });
    }
  }
  std::string out;
  for (const auto& [k, v] : common) {
    if (!v.empty()) out += (out.empty() ? "" : " ") + k + "=" + v;
  }
  return out;
}

// Seconds as people read them: "1.5 s".
std::string seconds_text(double s) { return format_value(s, {"s", 1}); }

// How a run document's run ended: "ok" (every result measured to its end), "interrupted"
// (SIGINT/SIGTERM cut one short; later runs of the plan were never started) or "error".
std::string run_status(const nlohmann::json& doc) {
  if (doc.contains("matrix")) {
    const nlohmann::json& m = doc["matrix"];
    auto complete = m.find("complete");
    return complete != m.end() && complete->is_boolean() && !complete->get<bool>() ? "interrupted"
                                                                                   : "ok";
  }
  std::string status = "ok";
  for (const nlohmann::json& r : doc["results"]) {
    const std::string s = string_at(r, "status");
    if (s == "interrupted") return s;
    if (s != "ok" && s != "not run") status = "error";
  }
  return status;
}

// The header's status line: what ended the run, and what its figures cover.
std::string status_text(const nlohmann::json& doc) {
  if (doc.contains("matrix")) {
    const nlohmann::json& m = doc["matrix"];
    if (run_status(doc) == "ok") return "complete";
    std::string stopped = string_at(m, "stopped");
    return "incomplete: stopped" + (stopped.empty() ? "" : " (" + stopped + ")") +
           "; the values measured before are shown";
  }
  size_t total = 0, failed = 0;
  std::string interrupted;
  for (const nlohmann::json& r : doc["results"]) {
    ++total;
    const std::string s = string_at(r, "status");
    if (s == "interrupted") {
      interrupted = string_at(r, "test");
      if (auto e = number_at(r, "elapsed_s")) interrupted += " after " + seconds_text(*e);
    } else if (s != "ok" && s != "not run") {
      ++failed;
    }
  }
  std::string out;
  if (!interrupted.empty()) {
    out = "interrupted (SIGINT/SIGTERM) during " + interrupted +
          ": its figures cover only the time it ran, and runs after it were not started";
  }
  if (failed > 0) {
    out += (out.empty() ? "" : "; ") + std::to_string(failed) + " of " + std::to_string(total) +
           " result(s) failed";
  }
  return out.empty() ? "complete: " + std::to_string(total) + " result(s)" : out;
}

nlohmann::json run_header(const nlohmann::json& doc) {
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const std::string& name, const std::string& text) {
    if (!text.empty()) rows.push_back({name, text});
  };
  add("fabperf version", string_at(doc, "version"));
  add("started", string_at(doc, "started"));
  add("clock", string_at(doc, "clock"));
  add("command", joined(doc.value("command", nlohmann::json())));
  if (doc.contains("matrix")) {
    const nlohmann::json& m = doc["matrix"];
    add("mode", "cluster matrix, pattern " + string_at(m, "pattern"));
    std::string hosts;
    if (m.contains("ranks") && m["ranks"].is_array()) {
      // A fleet's hosts are the JSON's to list: the first 32 here.
      size_t listed = 0;
      for (const nlohmann::json& r : m["ranks"]) {
        if (++listed > 32) break;
        hosts += (hosts.empty() ? "" : " ") + string_at(r, "host");
      }
      if (m["ranks"].size() > 32)
        hosts += " ... (" + std::to_string(m["ranks"].size() - 32) + " more)";
      add("ranks", std::to_string(m["ranks"].size()) + ": " + hosts);
    }
    add("status", status_text(doc));
    return rows;
  }
  add("client", node_text(doc.value("client", nlohmann::json())));
  add("server", node_text(doc.value("server", nlohmann::json())));
  std::set<std::string> providers, tests;
  for (const nlohmann::json& r : doc["results"]) {
    tests.insert(string_at(r, "test"));
    if (auto info = r.find("info"); info != r.end() && info->is_object() && info->contains("loc")) {
      std::string p = string_at((*info)["loc"], "provider");
      if (!p.empty()) providers.insert(p);
    }
  }
  std::string provider_text, test_text;
  for (const std::string& p : providers) provider_text += (provider_text.empty() ? "" : ", ") + p;
  for (const std::string& t : tests) test_text += (test_text.empty() ? "" : " ") + t;
  add("provider", provider_text.empty() ? "kernel sockets" : provider_text);
  add("tests", test_text);
  add("parameters", common_params(doc["results"]));
  add("status", status_text(doc));
  return rows;
}

// What distinguishes a result from the run's other results of the same test: the loop values
// and msg_size where they differ ("msg_size 64K").
std::string variant_label(const nlohmann::json& result, const std::set<std::string>& varying) {
  std::string out;
  for (const std::string& var : varying) {
    std::optional<double> v;
    if (auto p = result.find("params"); p != result.end()) v = number_at(*p, var);
    if (!v) {
      if (auto l = result.find("loop"); l != result.end()) v = number_at(*l, var);
    }
    if (!v) continue;
    out += (out.empty() ? "" : " ") + var + " " +
           (var == "msg_size" ? size_text(*v) : format_value(*v, {"", 1}, 6));
  }
  return out;
}

// "tcp_lat: measured under host noise: the server's measuring thread was preempted 1,234
// times (3.1% of samples); results are not trustworthy", or "" for a quiet run.
std::string noise_banner(const ResultRef& r) {
  const nlohmann::json& res = *r.result;
  auto noise = res.find("host_noise");
  if (noise == res.end() || !noise->is_object() || string_at(*noise, "verdict") != "noisy") {
    return "";
  }
  std::string why;
  for (const auto& [side, name] : {std::pair{"loc", "client"}, std::pair{"rem", "server"}}) {
    auto s = noise->find(side);
    if (s == noise->end() || !s->is_object()) continue;
    auto causes = s->find("causes");
    if (causes == s->end() || !causes->is_array() || causes->empty()) continue;
    std::string text;
    for (const nlohmann::json& c : *causes) {
      if (c.is_object()) text += (text.empty() ? "" : ", ") + string_at(c, "text");
    }
    why += (why.empty() ? "" : "; ") + std::string("the ") + name + "'s measuring thread " + text;
  }
  return r.label + ": measured under host noise" + (why.empty() ? "" : ": " + why) +
         "; its figures are not trustworthy.";
}

// Notes on results whose figures need a caveat: interrupted ones (they cover only the time
// measured) and those measured while other clients' runs shared the server (--concurrent).
nlohmann::json result_notes(const std::vector<ResultRef>& refs) {
  nlohmann::json notes = nlohmann::json::array();
  for (const ResultRef& r : refs) {
    const nlohmann::json& res = *r.result;
    if (string_at(res, "status") == "interrupted") {
      std::string note = r.label + ": interrupted";
      if (auto e = number_at(res, "elapsed_s")) note += " after " + seconds_text(*e);
      if (auto asked = number_at_path(res, "params.time");
          asked && *asked > 0 && !(number_at_path(res, "params.no_msgs").value_or(0) > 0)) {
        note += " of the " + seconds_text(*asked) + " asked for";
      }
      notes.push_back(note + "; its figures cover only the time it ran.");
    }
    auto overlapped = res.find("overlapped");
    if (overlapped != res.end() && overlapped->is_array() && !overlapped->empty()) {
      std::string who;
      for (const nlohmann::json& o : *overlapped) who += (who.empty() ? "" : ", ") + text_of(o);
      notes.push_back(r.label + ": measured while " + std::to_string(overlapped->size()) +
                      " other client run(s) shared the server (--concurrent): " + who + ".");
    }
  }
  return notes;
}

// What the runs give the page as they are read: the tests in the order first met, each
// test's drawable results, every result (the table), what matrix documents measured.
struct PageParts {
  std::vector<std::string> labels;
  std::vector<std::string> test_order;
  std::vector<std::string> title_parts;  // what matrix documents measured
  std::map<std::string, std::vector<ResultRef>> by_test;
  std::vector<ResultRef> every;
  bool interrupted = false;
};

// Which variables tell one pair run's results of one test apart (test -> variables).
std::map<std::string, std::set<std::string>> varying_variables(const nlohmann::json& doc) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> seen;  // test->var->values
  for (const nlohmann::json& r : doc["results"]) {
    const std::string test = string_at(r, "test");
    if (auto p = r.find("params"); p != r.end() && p->is_object() && p->contains("msg_size")) {
      seen[test]["msg_size"].insert(text_of((*p)["msg_size"]));
    }
    if (auto l = r.find("loop"); l != r.end() && l->is_object()) {
      for (auto it = l->begin(); it != l->end(); ++it) seen[test][it.key()].insert(text_of(*it));
    }
  }
  std::map<std::string, std::set<std::string>> varying;
  for (const auto& [test, vars] : seen) {
    for (const auto& [var, values] : vars) {
      if (values.size() > 1) varying[test].insert(var);
    }
  }
  return varying;
}

// A matrix document: its sections, and its tests for the title.
void add_matrix_run(const RunDocument& run, size_t index, size_t run_count, nlohmann::json& model,
                    PageParts& parts) {
  const nlohmann::json& m = run.doc["matrix"];
  if (auto tests = m.find("tests"); tests != m.end() && tests->is_array()) {
    for (const nlohmann::json& t : *tests) {
      const std::string name = "matrix " + string_at(t, "test");
      if (std::find(parts.title_parts.begin(), parts.title_parts.end(), name) ==
          parts.title_parts.end()) {
        parts.title_parts.push_back(name);
      }
    }
  }
  for (nlohmann::json& sec :
       matrix_sections(m, run_count > 1 ? run.label : "", "r" + std::to_string(index))) {
    model["sections"].push_back(std::move(sec));
  }
}

// A pair run's results: each labelled by what tells it apart, its noise banner, and the
// measured ones kept for their test's charts.
void add_pair_results(const RunDocument& run, size_t index, size_t run_count, nlohmann::json& model,
                      PageParts& parts) {
  std::map<std::string, std::set<std::string>> varying = varying_variables(run.doc);
  for (const nlohmann::json& r : run.doc["results"]) {
    const std::string test = string_at(r, "test");
    std::string label = variant_label(r, varying[test]);
    // --repeat: each repetition its own series, numbered.
    if (auto n = number_at(r, "repetitions"); n && *n > 1) {
      label = (label.empty() ? test : label) + " #" +
              format_value(number_at(r, "repetition").value_or(0), {"", 1}, 6);
    }
    if (run_count > 1) label = run.label + (label.empty() ? "" : " " + label);
    const std::string status = string_at(r, "status");
    // An interrupted result's figures are real, over the time it ran: drawn, and said so.
    if (status == "interrupted") label += (label.empty() ? test : "") + " (interrupted)";
    ResultRef ref{index, &r, label.empty() ? test : label};
    parts.every.push_back(ref);
    // A run measured under host noise gets a banner at the top of the page (the JSON's
    // host_noise verdict, each noisy side's causes).
    if (std::string banner = noise_banner(ref); !banner.empty()) {
      model["banners"].push_back(banner);
    }
    if (status != "ok" && status != "interrupted") continue;
    if (!parts.by_test.count(test)) parts.test_order.push_back(test);
    parts.by_test[test].push_back(ref);
  }
}

std::string page_title(const PageParts& parts, size_t run_count) {
  std::string title;
  for (const std::string& t : parts.title_parts) title += (title.empty() ? "" : ", ") + t;
  for (const std::string& t : parts.test_order) title += (title.empty() ? "" : ", ") + t;
  if (run_count > 1) {
    title = std::to_string(run_count) + " runs" + (title.empty() ? "" : ": " + title);
  }
  return "fabperf report" + (title.empty() ? "" : ": " + title) +
         (parts.interrupted ? " (interrupted)" : "");
}

// One test's sections: its sweep, its latency distributions (repetitions merged), its
// intervals, each carrying the notes every reader of this test's charts must see.
void add_test_sections(const std::string& test, const std::string& id, const PageParts& parts,
                       nlohmann::json& model) {
  const std::vector<ResultRef>& refs = parts.by_test.at(test);
  const size_t first = model["sections"].size();
  if (auto s = sweep_section(test, refs, parts.labels, id + "-sweep")) {
    model["sections"].push_back(std::move(*s));
  }
  std::vector<ResultRef> with_latency;
  for (const ResultRef& r : refs) {
    if (r.result->contains("latency_ns") && (*r.result)["latency_ns"].is_object()) {
      with_latency.push_back(r);
    }
  }
  std::deque<nlohmann::json> merged;
  if (!with_latency.empty()) {
    model["sections"].push_back(
        latency_section(test, merge_repetitions(with_latency, &merged), id + "-latency"));
  }
  if (auto s = interval_section(test, refs, id + "-intervals")) {
    model["sections"].push_back(std::move(*s));
  }
  // What a reader of any of this test's charts must know: cut short, or shared the server.
  const nlohmann::json notes = result_notes(refs);
  for (size_t i = first; i < model["sections"].size(); ++i) {
    nlohmann::json& sec_notes = model["sections"][i]["notes"];
    sec_notes.insert(sec_notes.begin(), notes.begin(), notes.end());
  }
}

}  // namespace

Result<nlohmann::json> build_report_model(const std::vector<RunDocument>& runs) {
  nlohmann::json model = {{"generator", std::string("fabperf ") + FABPERF_VERSION},
                          {"runs", nlohmann::json::array()},
                          {"banners", nlohmann::json::array()},
                          {"sections", nlohmann::json::array()}};
  PageParts parts;
  for (size_t run = 0; run < runs.size(); ++run) {
    const nlohmann::json& doc = runs[run].doc;
    if (Status s = check_run_document(doc); !s.ok()) return s.prefixed(runs[run].label);
    const bool matrix = doc.contains("matrix");
    parts.labels.push_back(runs[run].label);
    const std::string status = run_status(doc);
    if (status == "interrupted") parts.interrupted = true;
    model["runs"].push_back({{"label", runs[run].label},
                             {"mode", matrix ? "matrix" : "pair"},
                             {"status", status},
                             {"header", run_header(doc)}});
    if (matrix) {
      add_matrix_run(runs[run], run, runs.size(), model, parts);
    } else {
      add_pair_results(runs[run], run, runs.size(), model, parts);
    }
  }
  model["title"] = page_title(parts, runs.size());
  size_t n = 0;
  for (const std::string& test : parts.test_order) {
    add_test_sections(test, "t" + std::to_string(n++), parts, model);
  }
  if (!parts.every.empty()) model["sections"].push_back(results_section(parts.every, "results"));
  // Several pair runs: what differs between them, shown above everything else.
  std::vector<RunDocument> pairs;
  for (const RunDocument& r : runs) {
    if (!r.doc.contains("matrix")) pairs.push_back(r);
  }
  if (pairs.size() > 1) model["differences"] = parameter_differences(pairs);
  return model;
}

}  // namespace fabperf::report
