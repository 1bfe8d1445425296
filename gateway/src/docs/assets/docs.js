// Script of the Gantry docs page (/docs). Plain browser JavaScript, no build step.
// The API key lives in the variable `key` (memory) and, only when the user ticks "keep for this
// tab", in sessionStorage. It is sent only as the Authorization header of GET /v1/abilities, never
// in a URL. Everything from the API is inserted as text (textContent), never as HTML.
// The snippet builders mirror gateway/src/docs/content.ts (the Markdown docs); a browser test
// checks that both produce the same curl command.
(() => {
  const STORE = "gantry.docs.key";
  const KEY_ENV = "GANTRY_API_KEY";
  const base = document.body.dataset.baseUrl;
  const $ = (id) => document.getElementById(id);
  let key = "";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    return node;
  }

  function shellQuote(s) {
    return `'${s.replaceAll("'", "'\\''")}'`;
  }

  function curlSnippet(id, example) {
    return [
      `curl -sS -X POST ${base}/v1/abilities/${id} \\`,
      `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
      "  -H 'Content-Type: application/json' \\",
      `  -d ${shellQuote(JSON.stringify({ input: example }))}`,
    ].join("\n");
  }

  function fetchSnippet(id, example) {
    const body = JSON.stringify({ input: example }, null, 2).replaceAll("\n", "\n  ");
    return [
      `const res = await fetch("${base}/v1/abilities/${id}", {`,
      '  method: "POST",',
      `  headers: { Authorization: \`Bearer \${process.env.${KEY_ENV}}\`, "Content-Type": "application/json" },`,
      `  body: JSON.stringify(${body}),`,
      "});",
      "const body = await res.json(); // {ok, ability, result, duration} or {ok: false, error, code, ...}",
      "if (!body.ok) throw new Error(`${body.code}: ${body.error}`);",
    ].join("\n");
  }

  function abilityErrors(a) {
    const out = ["400 validation_failed (details)", "401 unauthorized", "403 forbidden", "429 rate_limited"];
    const needs = a.needs || [];
    if (a.status !== "live" && a.status !== "unavailable") out.push("501 not_implemented");
    else if (needs.length > 0) out.push(`501 not_implemented (${needs.map((n) => n.part).join(", ")})`);
    out.push("503 unavailable (owner down)", "5xx (sanitized; quote X-Request-Id)");
    return out;
  }

  function snippet(text, cls) {
    return el(
      "div",
      { class: "snippet" },
      el("button", { type: "button", class: "copy", "data-copy": true, text: "Copy" }),
      el("pre", {}, el("code", { class: cls, text })),
    );
  }

  function fieldsTable(fields) {
    if (!fields.length) return el("p", { class: "nofields" }, "Input: ", el("code", { text: "{}" }), " (no fields).");
    const body = el("tbody");
    for (const f of fields) {
      const extra = [
        f.values ? `One of: ${f.values.map((v) => JSON.stringify(v)).join(", ")}.` : "",
        f.default !== undefined ? `Default ${JSON.stringify(f.default)}.` : "",
        f.variant ? `(${f.variant})` : "",
      ]
        .filter(Boolean)
        .join(" ");
      body.append(
        el(
          "tr",
          {},
          el("td", {}, el("code", { text: f.name })),
          el("td", { class: "type", text: f.type }),
          el("td", { text: f.required ? "yes" : "no" }),
          el("td", { text: `${f.description} ${extra}`.trim() }),
        ),
      );
    }
    return el(
      "table",
      { class: "fields" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { text: "Field" }),
          el("th", { text: "Type" }),
          el("th", { text: "Required" }),
          el("th", { text: "Description" }),
        ),
      ),
      body,
    );
  }

  function abilityCard(a, statuses) {
    const tabs = el("div", { class: "tabs" });
    const curl = snippet(curlSnippet(a.id, a.example), "lang-shell");
    const fetchBox = snippet(fetchSnippet(a.id, a.example), "lang-js");
    fetchBox.hidden = true;
    const curlTab = el("button", { type: "button", class: "tab active", text: "curl" });
    const fetchTab = el("button", { type: "button", class: "tab", text: "fetch" });
    curlTab.addEventListener("click", () => {
      curl.hidden = false;
      fetchBox.hidden = true;
      curlTab.classList.add("active");
      fetchTab.classList.remove("active");
    });
    fetchTab.addEventListener("click", () => {
      curl.hidden = true;
      fetchBox.hidden = false;
      fetchTab.classList.add("active");
      curlTab.classList.remove("active");
    });
    tabs.append(curlTab, fetchTab);
    const details = el(
      "details",
      {},
      el(
        "summary",
        {},
        el("code", { class: "id", text: a.id }),
        el("span", { class: `badge ${a.status}`, text: a.status.replaceAll("_", " ") }),
        el("span", { class: "desc", text: a.description }),
      ),
      el(
        "div",
        { class: "body" },
        el("p", { class: "status-text" }, el("strong", { text: `Status: ${a.status}. ` }), statuses[a.status] || ""),
        (a.needs || []).length
          ? el(
              "p",
              { class: "needs" },
              el("strong", { text: "Not on this deployment: " }),
              a.needs.map((n) => (n.part ? `${n.part}: ${n.message}` : n.message)).join(" "),
            )
          : null,
        a.notes ? el("p", { class: "notes", text: `Input notes: ${a.notes}` }) : null,
        fieldsTable(a.fields || []),
        el("h4", { text: "Example request" }),
        tabs,
        curl,
        fetchBox,
        el("p", { class: "errors" }, el("strong", { text: "Errors: " }), `${abilityErrors(a).join("; ")}.`),
        el(
          "details",
          { class: "schema" },
          el("summary", { text: "Input JSON Schema" }),
          el("pre", {}, el("code", { class: "lang-json", text: JSON.stringify(a.input, null, 2) })),
        ),
      ),
    );
    return el(
      "article",
      {
        class: "ability",
        id: `ability-${a.id}`,
        "data-search": `${a.id} ${a.description} ${(a.fields || []).map((f) => f.name).join(" ")}`.toLowerCase(),
      },
      details,
    );
  }

  function setStatus(text, kind) {
    const s = $("load-status");
    s.textContent = text;
    s.className = `status-line${kind ? ` ${kind}` : ""}`;
  }

  function render(data) {
    const list = $("ability-list");
    const toc = $("toc-areas");
    list.replaceChildren();
    toc.replaceChildren();
    const summary = $("key-summary");
    summary.replaceChildren(
      el("span", {}, "Tenant ", el("code", { text: data.tenant })),
      el("span", {}, "Key ", el("code", { text: data.keyId })),
      el("span", { text: `${data.count} abilities, ${data.live} live` }),
      el("span", { text: `Version ${data.version}` }),
    );
    summary.hidden = false;
    const rl = data.limits.rateLimit;
    const row = $("rate-limit-row");
    if (row) {
      row.querySelector(".value").textContent = `${rl.limit} requests per ${rl.windowSeconds} s`;
      row.querySelector(".applies").textContent = "this key (429 with retryAfterMs beyond it)";
    }
    // Rows about one ability are shown only for the abilities this key may call.
    const own = new Set(data.abilities.map((a) => a.id));
    for (const tr of document.querySelectorAll("#limits tr[data-ability]")) {
      tr.hidden = !own.has(tr.getAttribute("data-ability"));
    }
    const byArea = new Map();
    for (const a of data.abilities) byArea.set(a.area, [...(byArea.get(a.area) || []), a]);
    for (const area of [...byArea.keys()].sort()) {
      const abilities = byArea.get(area);
      const group = el(
        "section",
        { class: "area", id: `area-${area}` },
        el("h3", {}, area, el("span", { class: "count", text: String(abilities.length) })),
      );
      for (const a of abilities) group.append(abilityCard(a, data.statuses || {}));
      list.append(group);
      toc.append(el("a", { href: `#area-${area}`, class: "sub", text: `${area} (${abilities.length})` }));
    }
    $("filter").hidden = data.abilities.length === 0;
    setStatus(
      data.abilities.length
        ? `This key may call ${data.count} abilities (${data.live} live right now).`
        : "This key may call no abilities.",
      "ok",
    );
  }

  async function load() {
    if (!key) {
      setStatus("Paste an API key first.", "error");
      return;
    }
    setStatus("Loading…");
    let res;
    try {
      res = await fetch(`${base}/v1/abilities`, {
        headers: { Authorization: `Bearer ${key}`, Accept: "application/json" },
        cache: "no-store",
        referrerPolicy: "no-referrer",
      });
    } catch (err) {
      setStatus(`Could not reach the API: ${err.message}`, "error");
      return;
    }
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      $("ability-list").replaceChildren();
      $("key-summary").hidden = true;
      const wait = body.retryAfterMs ? ` Retry in ${Math.ceil(body.retryAfterMs / 1000)} s.` : "";
      setStatus(
        (res.status === 401 ? "The key was not recognised (401): " : `Error ${res.status}: `) +
          (body.error || res.statusText) +
          wait,
        "error",
      );
      return;
    }
    render(body);
    $("forget").hidden = false;
  }

  function useKey() {
    key = $("api-key").value.trim();
    if ($("remember").checked && key) sessionStorage.setItem(STORE, key);
    else sessionStorage.removeItem(STORE);
    void load();
  }

  $("load").addEventListener("click", useKey);
  $("api-key").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") useKey();
  });
  $("remember").addEventListener("change", () => {
    if (!$("remember").checked) sessionStorage.removeItem(STORE);
    else if (key) sessionStorage.setItem(STORE, key);
  });
  $("forget").addEventListener("click", () => {
    key = "";
    $("api-key").value = "";
    $("remember").checked = false;
    sessionStorage.removeItem(STORE);
    $("ability-list").replaceChildren();
    $("toc-areas").replaceChildren();
    $("key-summary").hidden = true;
    $("filter").hidden = true;
    for (const tr of document.querySelectorAll("#limits tr[data-ability]")) tr.hidden = false;
    $("forget").hidden = true;
    setStatus("Key forgotten. Paste a key above to list the abilities it may call.");
  });
  $("filter").addEventListener("input", () => {
    const q = $("filter").value.trim().toLowerCase();
    for (const card of document.querySelectorAll("article.ability"))
      card.hidden = q !== "" && !q.split(/\s+/).every((w) => card.dataset.search.includes(w));
    for (const group of document.querySelectorAll("section.area"))
      group.hidden = [...group.querySelectorAll("article.ability")].every((c) => c.hidden);
  });
  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest ? ev.target.closest("button[data-copy]") : null;
    if (!btn) return;
    const code = btn.parentElement.querySelector("pre");
    navigator.clipboard.writeText(code.textContent).then(
      () => {
        btn.textContent = "Copied";
        setTimeout(() => (btn.textContent = "Copy"), 1500);
      },
      () => {
        btn.textContent = "Select and copy";
      },
    );
  });

  const stored = sessionStorage.getItem(STORE);
  if (stored) {
    key = stored;
    $("api-key").value = stored;
    $("remember").checked = true;
    void load();
  }
})();
