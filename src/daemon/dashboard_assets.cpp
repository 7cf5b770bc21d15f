#include "daemon/dashboard_assets.h"

namespace burst::daemon {

const char* const kDashboardCss = R"CSS(
body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
nav{background:#223;color:#fff;padding:.6em 1em}nav a{color:#cde;margin-left:1em}
main{padding:1em;max-width:1100px;margin:auto}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em;background:#fff}
th,td{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.state-succeeded{color:#176}.state-failed{color:#b00}.state-running{color:#05a}
.state-interrupted{color:#a60}.notice{background:#ffd;padding:.5em;border:1px solid #cc8}
pre#log{background:#111;color:#eee;padding:.6em;max-height:28em;overflow:auto;white-space:pre-wrap}
svg.chart{max-width:100%;height:auto;background:#fff}
@media (max-width:640px){td,th{font-size:13px;padding:.2em}.wide{display:none}}
)CSS";

const char* const kDashboardJs = R"JS("use strict";
// burstd dashboard: live updates only. Without this script every page still works.
(function () {
  var log = document.getElementById("log");
  if (log && log.getAttribute("data-finished") !== "1") {
    var src = log.getAttribute("data-src");
    var offset = Number(log.getAttribute("data-offset")) || 0;
    var status = document.getElementById("live");
    var items = document.getElementById("job-items");
    // Items done: every worker's latest "BURST_PROGRESS d/t" line, summed, as burstd counts
    // them for the page (src/util/progress_line.h).
    var showItems = function () {
      if (!items) return;
      var latest = {}, any = false, done = 0, total = 0;
      log.textContent.split("\n").forEach(function (line) {
        var m = /^(\[w\d+\] )?[ \t]*BURST_PROGRESS[ \t]+(\d+)[ \t]*\/[ \t]*(\d+)[ \t\r]*$/.exec(line);
        if (m && Number(m[3]) > 0 && Number(m[2]) <= Number(m[3])) {
          latest[m[1] || ""] = [Number(m[2]), Number(m[3])];
          any = true;
        }
      });
      if (!any) return;
      Object.keys(latest).forEach(function (k) { done += latest[k][0]; total += latest[k][1]; });
      items.textContent = done + " of " + total + " (" + Math.floor(100 * done / total) + "%)";
    };
    var poll = function () {
      fetch(src + "?wait=1&offset=" + offset, {credentials: "same-origin"})
        .then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          var next = Number(r.headers.get("X-Burst-Log-Offset"));
          var finished = r.headers.get("X-Burst-Job-Finished") === "1";
          return r.text().then(function (text) {
            if (text) {
              log.appendChild(document.createTextNode(text));
              log.scrollTop = log.scrollHeight;
              showItems();
            }
            if (next >= offset) offset = next;
            if (finished) {
              if (status) status.textContent = "finished";
              location.reload();
            } else {
              poll();
            }
          });
        })
        .catch(function () {
          if (status) status.textContent = "disconnected; retrying";
          setTimeout(poll, 5000);
        });
    };
    if (status) status.textContent = "live";
    poll();
  }
  var main = document.getElementById("main");
  var every = main && Number(main.getAttribute("data-refresh"));
  if (every > 0 && !log) {
    setTimeout(function again() {
      if (document.hidden) return setTimeout(again, every * 1000);
      fetch(location.href, {credentials: "same-origin"})
        .then(function (r) { return r.text(); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("main");
          if (!fresh) return;
          if (doc.getElementById("log")) return location.reload();  // the job started: follow it
          main.innerHTML = fresh.innerHTML;
          if (fresh.getAttribute("data-refresh")) setTimeout(again, every * 1000);
        })
        .catch(function () { setTimeout(again, every * 5000); });
    }, every * 1000);
  }
})();
)JS";

}  // namespace burst::daemon
