/* The hall screen (/hall/{id}), an ES module: keeps the page current without a reload.
 *
 * - The countdown ticks every second from data-seconds-left (the server's figure).
 * - The live stream (data-hall-stream: /api/v1/events/{id}/live?hall=true) sends `hall`
 *   messages (the screen's data, at most every 5 s, when it changed): drawn at once.
 *   An `auction` or `event` message (an auction opened, closed, a reveal step; the course
 *   window changed) makes the page fetch data-hall-data (the same data) and draw it.
 * - Fallback: without a `hello` within 10 s, or when the stream fails, data-hall-data is
 *   polled every 5 s.
 * Everything is written with textContent and SVG attributes (no HTML from data).
 */

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 5000;
const HELLO_MS = 10000;
const CHART_WIDTH = 400;  // the SVG's units, as hall.html draws it

const root = document.getElementById("hall");

function field(name) {
  return root.querySelector(`[data-hall="${name}"]`);
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, key) =>
    Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole);
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

function item(parts, className) {
  const li = document.createElement("li");
  if (className) li.className = className;
  parts.forEach(([tag, text, cls], index) => {
    if (index) li.appendChild(document.createTextNode(" "));
    const el = document.createElement(tag);
    el.textContent = text;
    if (cls) el.className = cls;
    li.appendChild(el);
  });
  return li;
}

/**
 * Where a bar's time label sits: under the bar's middle, except the first (from the
 * bar's left edge) and the last (to its right edge), so no label is cut by the chart's
 * edge (a "13:52" is wider than a narrow bar).
 * @param {number} i the bar
 * @param {number} count the bars
 * @param {number} width one bar's width (chart units)
 * @returns {{x: number, "text-anchor": string}}
 */
function labelPlace(i, count, width) {
  const round = (value) => Math.round(value * 10) / 10;
  if (count > 1 && i === 0) return { x: round(width * 0.1), "text-anchor": "start" };
  if (count > 1 && i === count - 1) {
    return { x: round(i * width + width * 0.9), "text-anchor": "end" };
  }
  return { x: round(i * width + width / 2), "text-anchor": "middle" };
}

function svgEl(name, attributes, text) {
  const el = document.createElementNS(SVG, name);
  Object.entries(attributes).forEach(([key, value]) => el.setAttribute(key, String(value)));
  if (text !== undefined) el.textContent = String(text);
  return el;
}

function localTime(iso, timeZone, date) {
  const parts = { hour: "2-digit", minute: "2-digit", hour12: false, timeZone, ...date };
  try {
    const found = {};
    new Intl.DateTimeFormat("en-GB", parts).formatToParts(new Date(iso))
      .forEach(({ type, value }) => { found[type] = value; });
    const time = `${found.hour}:${found.minute}`;
    return date ? `${found.day}.${found.month} ${time}` : time;  // as the server writes it
  } catch (e) {
    return iso.slice(11, 16);
  }
}

class Hall {
  constructor() {
    this.text = JSON.parse(root.dataset.hallText);
    this.timezone = root.dataset.timezone;
    this.dataUrl = root.dataset.hallData;
    this.streamUrl = root.dataset.hallStream;
    this.countdown = field("countdown");
    this.deadline = Date.now() + Number(this.countdown.dataset.secondsLeft) * 1000;
    this.phase = this.countdown.dataset.phase;
    this.pollTimer = null;
    this.fetching = false;
    this.lastShown = "";
    setInterval(() => this.tick(), 1000);
    this.connect();
  }

  tick() {
    if (this.phase === "closed") {
      this.countdown.textContent = this.text.closed;
      return;
    }
    const left = (this.deadline - Date.now()) / 1000;
    this.countdown.textContent = clock(left);
    if (left <= 0) this.refresh();  // the course opened or closed: ask the server
  }

  connect() {
    if (!window.EventSource) {
      this.startPolling();
      return;
    }
    const stream = new EventSource(this.streamUrl);
    const noHello = setTimeout(() => { stream.close(); this.startPolling(); }, HELLO_MS);
    stream.addEventListener("hello", () => {
      clearTimeout(noHello);
      field("offline").hidden = true;
    });
    stream.addEventListener("hall", (message) => this.draw(JSON.parse(message.data)));
    stream.addEventListener("auction", () => this.refresh());
    stream.addEventListener("event", () => this.refresh());
    stream.addEventListener("error", () => {
      if (stream.readyState === EventSource.CLOSED) {
        clearTimeout(noHello);
        this.startPolling();
      }
    });
  }

  startPolling() {
    if (this.pollTimer) return;
    field("offline").hidden = false;
    this.pollTimer = setInterval(() => this.refresh(), POLL_MS);
  }

  async refresh() {
    if (this.fetching) return;
    this.fetching = true;
    try {
      const response = await fetch(this.dataUrl, { headers: { Accept: "application/json" } });
      if (response.ok) this.draw(await response.json());
    } catch (e) {
      // a failed poll: the next one (or the stream) brings the data
    } finally {
      this.fetching = false;
    }
  }

  draw(data) {
    if (!data || !data.event) return;
    this.drawClock(data);
    ["on_course", "finished", "participants", "combinations"].forEach((name) => {
      field(name).textContent = String(data[name]);
    });
    const shown = JSON.stringify([data.chart, data.checkpoints, data.ceremony, data.podium]);
    if (shown === this.lastShown) return;
    this.lastShown = shown;
    this.drawChart(data.chart);
    this.drawCheckpoints(data.checkpoints);
    this.drawCeremony(data.ceremony, data.podium);
  }

  drawClock(data) {
    this.phase = data.phase;
    this.deadline = Date.now() + data.seconds_left * 1000;
    this.countdown.dataset.phase = data.phase;
    const label = { open: "closes_in", before: "opens_in" }[data.phase];
    field("clock-label").textContent = label ? this.text[label] : "";
    field("closes").textContent = fill(this.text.closes_at, {
      when: localTime(data.event.closes_at, this.timezone, { day: "2-digit", month: "2-digit" }),
    });
    this.tick();
  }

  drawChart(chart) {
    const box = field("chart");
    box.replaceChildren();
    const takes = chart.takes;
    if (!takes.length) {
      const p = document.createElement("p");
      p.className = "muted";
      p.textContent = this.text.no_takes;
      box.appendChild(p);
      return;
    }
    const width = CHART_WIDTH / takes.length;
    const top = Math.max(1, ...takes);
    const label = document.getElementById("hall-chart-title").textContent;
    const svg = svgEl("svg", {
      viewBox: `0 0 ${CHART_WIDTH} 220`, role: "img", class: "hall-svg",
      "aria-label": `${label}: ${takes.join(", ")}`,
    });
    takes.forEach((count, i) => {
      const h = Math.round((count / top) * 1600) / 10;
      const middle = Math.round((i * width + width / 2) * 10) / 10;
      svg.appendChild(svgEl("rect", {
        class: "hall-bar", x: Math.round((i * width + width * 0.1) * 10) / 10, y: 185 - h,
        width: Math.round(width * 8) / 10, height: h,
      }));
      svg.appendChild(svgEl("text", {
        class: "hall-bar-value", x: middle, y: 178 - h, "text-anchor": "middle",
      }, count));
      if (i % 2 === 0 || takes.length <= 6) {
        svg.appendChild(svgEl("text", {
          class: "hall-bar-label", y: 210, ...labelPlace(i, takes.length, width),
        }, localTime(chart.start[i], this.timezone)));
      }
    });
    box.appendChild(svg);
  }

  drawCheckpoints(checkpoints) {
    const list = field("checkpoints");
    const rows = checkpoints.slice(0, 12).map((cp) => item([
      ["span", fill(this.text.cp, { number: cp.number }), "hall-cp-number"],
      ["span", cp.hint, "hall-cp-hint"],
      ["span", fill(this.text.taken, { count: cp.taken }), "hall-cp-count"],
    ]));
    list.replaceChildren(...(rows.length ? rows : [item([["span", this.text.no_cps]], "muted")]));
  }

  drawCeremony(steps, podium) {
    field("ceremony").replaceChildren(...steps.map((step) => {
      let words = this.text.pending;
      let kind = step.status;
      if (step.revealing) {
        words = fill(this.text.revealing, { count: step.revealed });
        kind = "revealing";
      } else if (step.status === "closed") {
        words = this.text.decided;
      } else if (step.status === "open") {
        words = this.text.open;
      }
      return item([
        ["strong", fill(this.text.place, { place: step.place })], ["span", words],
      ], `hall-step hall-step-${kind}`);
    }));
    const rows = podium.map((p) => item([
      ["strong", fill(this.text.place, { place: p.place })],
      ["span", p.name || "", "hall-winner"],
      ["span", p.category ? this.text.categories[p.category] || p.category : "", "muted"],
    ]));
    field("podium").replaceChildren(
      ...(rows.length ? rows : [item([["span", this.text.podium_empty]], "muted")]));
  }
}

if (root) new Hall();
