#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The journal as one self-contained web page, a debug console for a run: every event in a list filterable by
/// kind, status and text, a timing bar per response, and each event's (already redacted) headers and body on
/// demand.
///
/// Rules and reasons:
/// - One file, no network: the style, the script and the events are inline, so the page opens from a bug report
///   on any machine, offline, and loads nothing a reader did not choose to open.
/// - The events go in as JSON data (`<script type="application/json">`, every `<` written as `\u003c` so no text
///   can close the element) and the script puts them in the page with `textContent` only: a message holding
///   markup shows as text and never runs.
/// - It shows only what the journal holds, and the journal holds only redacted text: the page adds no secret.
/// - Filters start from the address's fragment (`#kind=response&status=4xx&q=sessions`) and keep it in step,
///   so a filtered view can be linked to (and tested in a headless browser).
///
/// ```swift
/// let page = JournalPage.html(journal.events, title: "companion run")
/// try Data(page.utf8).write(to: URL(fileURLWithPath: "journal.html"))
/// ```
public enum JournalPage {
    /// The page for `events`, oldest first, under `title`.
    public static func html(_ events: [JournalEvent], title: String = "CompanionKit journal") -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .companionISO8601
        let json = (try? encoder.encode(events)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let data = json.replacing("<", with: "\\u003c")
        let kinds = JournalEvent.Kind.allCases.map { "<option>\($0.rawValue)</option>" }.joined()
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
            script-src 'unsafe-inline'; img-src data:">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>\(style)</style></head>
            <body>
            <header><h1>\(escape(title))</h1>
            <form id="filters" onsubmit="return false">
            <label>Kind <select id="kind"><option value="">all</option>\(kinds)</select></label>
            <label>Status <select id="status"><option value="">all</option><option>2xx</option><option>3xx</option>\
            <option>4xx</option><option>5xx</option><option value="failed">failed</option></select></label>
            <label>Text <input id="q" type="search" placeholder="path, message, header…"></label>
            <span id="count"></span></form></header>
            <main><ol id="events"></ol></main>
            <script type="application/json" id="journal-data">\(data)</script>
            <script>\(script)</script>
            </body></html>

            """
    }

    static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }

    static let style = """
        body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:8px 12px}
        h1{font-size:15px;margin:0 0 6px}form{display:flex;gap:12px;flex-wrap:wrap;align-items:center}
        ol{list-style:none;margin:0;padding:0}li{border-bottom:1px solid #eee;padding:4px 12px}
        li[hidden]{display:none}.row{display:grid;grid-template-columns:5em 7em 6em 1fr 14em;gap:8px;align-items:center}
        .kind{font-weight:600}.status{font-family:monospace}.s2{color:#1a7f37}.s3{color:#0969da}
        .s4{color:#bf8700}.s5,.failed{color:#cf222e}.message{font-family:monospace;overflow-wrap:anywhere}
        .bar{height:8px;background:#eee;position:relative}.bar span{position:absolute;top:0;bottom:0}
        .head{background:#54aeff}.rest{background:#0969da}details{margin:4px 0 4px 5em}
        pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f3f3;padding:6px;margin:2px 0}
        """

    static let script = """
        "use strict";
        const events = JSON.parse(document.getElementById("journal-data").textContent);
        const list = document.getElementById("events");
        const kind = document.getElementById("kind"), status = document.getElementById("status");
        const q = document.getElementById("q"), count = document.getElementById("count");
        const longest = Math.max(1, ...events.map(e => Number(e.fields.totalMs || e.fields.headMs || 0)));
        function statusClass(e) {
          if (e.kind === "error" || e.fields.error) return "failed";
          const s = Number(e.fields.status || 0);
          return s >= 100 ? Math.floor(s / 100) + "xx" : "";
        }
        function cell(cls, text) {
          const d = document.createElement("span"); d.className = cls; d.textContent = text; return d;
        }
        const rows = events.map(e => {
          const li = document.createElement("li");
          const st = statusClass(e);
          li.dataset.kind = e.kind; li.dataset.status = st; li.dataset.id = e.id;
          li.dataset.text = (e.message + " " + Object.entries(e.fields).map(([k, v]) => k + ": " + v).join(" "))
            .toLowerCase();
          const row = document.createElement("div"); row.className = "row";
          row.append(cell("id", "#" + e.id), cell("kind", e.kind),
            cell("status " + (st === "failed" ? "failed" : "s" + st.charAt(0)), e.fields.status || (st ? st : "")),
            cell("message", e.message));
          const bar = document.createElement("div"); bar.className = "bar";
          const total = Number(e.fields.totalMs || e.fields.headMs || 0), head = Number(e.fields.headMs || total);
          if (total > 0) {
            bar.title = (e.fields.headMs ? "headers " + e.fields.headMs + " ms, " : "") + "total " + total + " ms";
            const h = document.createElement("span"); h.className = "head";
            h.style.left = "0"; h.style.width = (100 * Math.min(head, total) / longest) + "%";
            const r = document.createElement("span"); r.className = "rest";
            r.style.left = h.style.width; r.style.width = (100 * Math.max(0, total - head) / longest) + "%";
            bar.append(h, r);
          }
          row.append(bar); li.append(row);
          const names = Object.keys(e.fields).sort();
          if (names.length) {
            const details = document.createElement("details");
            const summary = document.createElement("summary");
            summary.textContent = "details (" + names.join(", ") + ") at " + e.date;
            details.append(summary);
            details.addEventListener("toggle", () => {
              if (!details.open || details.dataset.filled) return;
              details.dataset.filled = "1";
              for (const name of names) {
                const pre = document.createElement("pre");
                pre.className = "field field-" + name;
                pre.textContent = name + ": " + e.fields[name];
                details.append(pre);
              }
            });
            li.append(details);
          }
          list.append(li);
          return li;
        });
        function apply() {
          const k = kind.value, s = status.value, t = q.value.trim().toLowerCase();
          let shown = 0;
          for (const li of rows) {
            const visible = (!k || li.dataset.kind === k) && (!s || li.dataset.status === s)
              && (!t || li.dataset.text.includes(t));
            li.hidden = !visible; if (visible) shown++;
          }
          count.textContent = shown + " of " + rows.length + " events";
          count.dataset.shown = shown;
          const p = new URLSearchParams();
          if (k) p.set("kind", k); if (s) p.set("status", s); if (t) p.set("q", t);
          try { history.replaceState(null, "", "#" + p.toString()); } catch (error) { /* file: pages may refuse */ }
        }
        const start = new URLSearchParams(location.hash.slice(1));
        kind.value = start.get("kind") || ""; status.value = start.get("status") || ""; q.value = start.get("q") || "";
        for (const el of [kind, status, q]) el.addEventListener("input", apply);
        apply();
        """
}
