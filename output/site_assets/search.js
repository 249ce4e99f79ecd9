/* errcat site search: `errcat explain`'s matching (analyzers/explain.py) on the index
   that output/site_search.py exports. Keep the two in step: tests/test_site_browser.py
   checks that they rank a table of messages alike. Catalog text is only ever put into
   the page as text (textContent), never as HTML. */
(function (root) {
  "use strict";

  var W = "[\\p{L}\\p{N}_]";  // Python's \w on str
  var ERROR_LINE = new RegExp("^(?:(?:" + W + "|\\.)+\\.)?(?<type>[A-Z]" + W +
    "*(?:Error|Exception|Exit|Warning)|AssertionError)(?::\\s?(?<message>[^\\n]*))?$", "u");
  var LOG_LINE = /^(\[|\d{4}-\d\d-\d\d|(INFO|WARNING|ERROR|DEBUG|CRITICAL)\b)/;
  var FRAME = /^\s*File "(?<path>[^"]+)", line (?<line>\d+)/;
  var WORD = /[A-Za-z][A-Za-z0-9_\-]{2,}/g;
  var MAX_CANDIDATES = 40, MAX_CLOSE = 3;
  var has = function (obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); };

  function errorTexts(text) {
    var lines = text.split("\r\n").join("\n").split("\n");
    var found = [], frame = null;
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i], at = FRAME.exec(line), err;
      if (at) {
        frame = [at.groups.path, parseInt(at.groups.line, 10)];
      } else if ((err = ERROR_LINE.exec(line))) {
        var body = [err.groups.message || ""];
        while (i + 1 < lines.length && lines[i + 1].trim() && !FRAME.test(lines[i + 1]) &&
               !lines[i + 1].startsWith("Traceback") && !ERROR_LINE.test(lines[i + 1]) &&
               !LOG_LINE.test(lines[i + 1])) {
          i += 1;
          body.push(lines[i]);
        }
        found.push({message: body.join("\n"), exception: err.groups.type,
                    path: frame ? frame[0] : null, line: frame ? frame[1] : null});
        frame = null;
      }
    }
    if (!found.length && text.trim()) {
      found.push({message: text.trim(), exception: null, path: null, line: null});
    }
    return found.reverse();
  }

  function words(text) {
    return (text.match(WORD) || []).map(function (w) { return w.toLowerCase(); });
  }

  function escapeRe(text) { return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"); }

  function matcher(parts, loose) {
    var source = parts.map(function (p) {
      if (typeof p !== "string") return "([\\s\\S]*?)";
      return escapeRe(loose ? p.replace(/[ \t]+\n/g, "\n") : p);
    }).join("");
    return new RegExp("^" + source + "$");
  }

  function unpadded(text) {
    return text.trim().split("\n").map(function (l) { return l.replace(/\s+$/, ""); }).join("\n");
  }

  function sameFile(printed, catalogued) {
    printed = printed.split("\\").join("/");
    var at = printed.lastIndexOf("site-packages/");
    var tail = at < 0 ? printed : printed.slice(at + "site-packages/".length);
    return catalogued.endsWith("/" + tail) || catalogued === tail || printed.endsWith("/" + catalogued);
  }

  function candidates(index, error) {
    var shared = new Map(), order = [];
    new Set(words(error.message)).forEach(function (word) {
      (has(index.by_word, word) ? index.by_word[word] : []).forEach(function (i) {
        if (!shared.has(i)) { shared.set(i, 0); order.push(i); }
        shared.set(i, shared.get(i) + 1);
      });
    });
    var ranked = order.slice().sort(function (a, b) { return shared.get(b) - shared.get(a); });
    return {tried: ranked.slice(0, MAX_CANDIDATES).concat(index.wordless), ranked: ranked, shared: shared};
  }

  function exact(index, i, error) {
    var t = index.targets[i];  // [entry, row, parts, exception, builtin, path, line, end, own]
    var parts = t[2];
    index._re = index._re || {};
    var re = index._re[i] || (index._re[i] = [matcher(parts, false), matcher(parts, true)]);
    var found = re[0].exec(error.message) || re[1].exec(unpadded(error.message));
    if (!found) return null;
    var holes = {}, k = 1;
    parts.forEach(function (p) { if (typeof p !== "string") holes[p.h] = found[k++]; });
    var score = t[8] / Math.max(Array.from(error.message).length, 1);
    var named = error.path !== null && error.line !== null && t[6] <= error.line && error.line <= t[7] &&
      sameFile(error.path, t[5]);
    if (named) score += 10;
    if (error.exception !== null && error.exception === t[3]) score += 1;
    if (t[1] !== null) score += 0.01;
    return {entry: t[0], row: t[1], holes: holes, exact: true, score: score, own: t[8], named: named,
            exception: t[3], builtin: t[4]};
  }

  /* The templates `error` renders, best first; none: the closest by shared words, not exact. */
  function find(index, error) {
    var c = candidates(index, error), seen = new Set(), matches = [];
    c.tried.forEach(function (i) {
      if (seen.has(i)) return;
      seen.add(i);
      var m = exact(index, i, error);
      if (m && (m.own || m.named || (m.exception === error.exception && !m.builtin))) matches.push(m);
    });
    /* a row of a table that renders the message says it all: its entry's general template is no other error */
    var rows = new Set(matches.filter(function (m) { return m.row !== null; }).map(function (m) { return m.entry; }));
    matches = matches.filter(function (m) { return m.row !== null || !rows.has(m.entry); });
    if (matches.length) return matches.sort(function (a, b) { return b.score - a.score; });
    return c.ranked.slice(0, MAX_CLOSE).map(function (i) {
      var t = index.targets[i];
      return {entry: t[0], row: t[1], holes: {}, exact: false, score: c.shared.get(i)};
    });
  }

  function explained(index, text) {
    return errorTexts(text).map(function (error) { return [error, find(index, error)]; });
  }

  var api = {errorTexts: errorTexts, find: find, explained: explained, words: words};
  root.ErrcatSearch = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;

  // ------------------------------------------------------------------ the page

  var MAX_SHOWN = 50;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fillOptions(select, values) {
    while (select.options.length > 1) select.remove(1);
    values.forEach(function (v) { select.appendChild(el("option", {value: v}, v)); });
  }

  function start() {
    var form = document.getElementById("search");
    if (!form || !root.ERRCAT_INDEX) return;
    var box = document.getElementById("q"), release = document.getElementById("release");
    var out = document.getElementById("results"), all = document.getElementById("all");
    var status = document.getElementById("status");
    var filters = ["exception", "flag", "env", "file"].map(function (n) { return document.getElementById("f-" + n); });
    var base = form.getAttribute("data-base") || "";

    function index() { return root.ERRCAT_INDEX[release.value]; }

    function loadRelease(done) {
      if (root.ERRCAT_INDEX[release.value]) return done();
      var s = el("script", {src: base + "assets/index-" + release.value + ".js"});
      s.onload = done;
      document.head.appendChild(s);
    }

    function refreshFilters() {
      var entries = index().entries, sets = [new Set(), new Set(), new Set(), new Set()];
      Object.keys(entries).forEach(function (id) {
        var e = entries[id];
        sets[0].add(e.exception);
        e.flags.forEach(function (f) { sets[1].add(f); });
        e.env.forEach(function (v) { sets[2].add(v); });
        sets[3].add(e.path);
      });
      filters.forEach(function (select, k) {
        var keep = select.value;
        fillOptions(select, Array.from(sets[k]).filter(Boolean).sort());
        select.value = keep;
        if (select.value !== keep) select.value = "";
      });
    }

    function passes(e) {
      var want = filters.map(function (s) { return s.value; });
      return (!want[0] || e.exception === want[0]) && (!want[1] || e.flags.indexOf(want[1]) >= 0) &&
        (!want[2] || e.env.indexOf(want[2]) >= 0) && (!want[3] || e.path === want[3]);
    }

    function item(id, note) {
      var e = index().entries[id], li = el("li");
      var a = el("a", {href: base + e.page}, e.template);
      li.appendChild(a);
      li.appendChild(el("span", {"class": "meta"}, " " + e.exception + " · " + e.path + ":" + e.line +
        (note ? " · " + note : "")));
      return li;
    }

    function run() {
      var text = box.value, idx = index(), ids = [], notes = {}, exactFound = false;
      var filtering = filters.some(function (s) { return s.value; });
      out.textContent = "";
      if (text.trim()) {
        explained(idx, text).forEach(function (pair) {
          pair[1].forEach(function (m) {
            if (notes[m.entry] !== undefined) return;
            exactFound = exactFound || m.exact;
            ids.push(m.entry);
            notes[m.entry] = m.exact ? (m.row !== null ? "table row " + m.row : "matches") : "close";
          });
        });
        if (!exactFound) {  // typed words: every entry sharing them, most shared first (explain's candidates)
          var c = candidates(idx, {message: text});
          c.ranked.forEach(function (i) {
            var id = idx.targets[i][0];
            if (notes[id] === undefined) { ids.push(id); notes[id] = "shares words"; }
          });
        }
      } else if (filtering) {
        ids = Object.keys(idx.entries);
      }
      if (!text.trim() && !filtering) {
        all.hidden = false;
        status.textContent = "";
        return;
      }
      all.hidden = true;
      ids = ids.filter(function (id) { return passes(idx.entries[id]); });
      if (!ids.length) status.textContent = "No entry found.";
      else if (!text.trim()) status.textContent = ids.length + " errors match the filters:";
      else if (exactFound) status.textContent = "The message matches:";
      else status.textContent = "No entry renders this text exactly; entries that share its words:";
      ids.slice(0, MAX_SHOWN).forEach(function (id) { out.appendChild(item(id, notes[id])); });
      if (ids.length > MAX_SHOWN) out.appendChild(el("li", {}, "… and " + (ids.length - MAX_SHOWN) + " more"));
    }

    form.addEventListener("submit", function (ev) { ev.preventDefault(); run(); });
    box.addEventListener("input", run);
    filters.forEach(function (s) { s.addEventListener("change", run); });
    release.addEventListener("change", function () { loadRelease(function () { refreshFilters(); run(); }); });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "/" && document.activeElement !== box && !/^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) {
        ev.preventDefault();
        box.focus();
      }
    });
    var q = new URLSearchParams(root.location.search).get("q");
    if (q) box.value = q;
    refreshFilters();
    run();
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})(typeof window !== "undefined" ? window : globalThis);
