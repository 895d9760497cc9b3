/**
 * Two small canvas charts, enough for the playground: a scatter of an embedding
 * (coloured by class, wheel to zoom about the pointer, drag to pan, double-click to
 * reset, hover names the sample and its class) and a line chart of a trace
 * (objective or lambda per iteration, log scale when it spans decades).
 */
import { TABLEAU10 } from "../palette.js";
import type { Embedding2D } from "./protocol.js";

/** Tableau 10 (as in the figures) then 10 more distinct hues; classes beyond 20 reuse them. */
const PALETTE = [
  ...TABLEAU10,
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#bcbd22",
  "#7f7f7f",
  "#aec7e8",
];

export function classColour(index: number): string {
  return PALETTE[index % PALETTE.length];
}

/** Sizes the canvas's backing store to its CSS box at the device's pixel ratio. */
function fitCanvas(canvas: HTMLCanvasElement): {
  ctx: CanvasRenderingContext2D;
  w: number;
  h: number;
} {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
  }
  const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return { ctx, w, h };
}

/** About five round tick values covering [lo, hi]. */
function ticks(lo: number, hi: number, count = 5): number[] {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) return [lo];
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

function formatTick(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

const AXIS = "#666";
const GRID = "#e6e6e6";
const FONT = "11px system-ui, sans-serif";

interface View {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The embedding scatter: one instance per canvas. */
export class ScatterPlot {
  private data: Embedding2D | null = null;
  private classIndex: Int32Array = new Int32Array(0);
  private classes: string[] = [];
  private view: View = { x0: -1, x1: 1, y0: -1, y1: 1 };
  private home: View = { x0: -1, x1: 1, y0: -1, y1: 1 };
  private hover = -1;
  private drag: { x: number; y: number; view: View } | null = null;
  private readonly pad = { left: 44, right: 12, top: 10, bottom: 28 };

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly tooltip: HTMLElement,
    private readonly legend: HTMLElement,
  ) {
    canvas.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    canvas.addEventListener("pointerdown", (e) => {
      this.drag = { x: e.offsetX, y: e.offsetY, view: { ...this.view } };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => this.onMove(e));
    canvas.addEventListener("pointerup", () => {
      this.drag = null;
    });
    canvas.addEventListener("pointerleave", () => {
      this.hover = -1;
      this.tooltip.hidden = true;
      this.draw();
    });
    canvas.addEventListener("dblclick", () => {
      this.view = { ...this.home };
      this.draw();
    });
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  /** Shows an embedding; `classOrder` fixes the colours (the data set's classes in order). */
  show(data: Embedding2D, classOrder: readonly string[] | null): void {
    this.data = data;
    this.classes = classOrder
      ? [...classOrder]
      : [...new Set(data.labels ?? [])].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    const position = new Map(this.classes.map((c, i) => [c, i]));
    this.classIndex = Int32Array.from(data.sampleIndex, (_, i) =>
      data.labels ? (position.get(data.labels[i]) ?? 0) : 0,
    );
    this.home = this.extent();
    this.view = { ...this.home };
    this.hover = -1;
    this.renderLegend();
    this.draw();
  }

  clear(): void {
    this.data = null;
    this.legend.replaceChildren();
    this.draw();
  }

  private point(i: number): [number, number] {
    const d = this.data as Embedding2D;
    return d.dims === 2 ? [d.points[2 * i], d.points[2 * i + 1]] : [d.points[i], 0];
  }

  private extent(): View {
    const n = this.data?.sampleIndex.length ?? 0;
    let x0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y0 = Number.POSITIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const [x, y] = this.point(i);
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
    if (!(x1 > x0)) [x0, x1] = [x0 - 1, x0 + 1];
    if (!(y1 > y0)) [y0, y1] = [y0 - 1, y0 + 1];
    const mx = 0.05 * (x1 - x0);
    const my = 0.05 * (y1 - y0);
    return { x0: x0 - mx, x1: x1 + mx, y0: y0 - my, y1: y1 + my };
  }

  private toScreen(x: number, y: number, w: number, h: number): [number, number] {
    const { left, right, top, bottom } = this.pad;
    const v = this.view;
    return [
      left + ((x - v.x0) / (v.x1 - v.x0)) * (w - left - right),
      top + (1 - (y - v.y0) / (v.y1 - v.y0)) * (h - top - bottom),
    ];
  }

  private fromScreen(sx: number, sy: number): [number, number] {
    const { left, right, top, bottom } = this.pad;
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    const v = this.view;
    return [
      v.x0 + ((sx - left) / (w - left - right)) * (v.x1 - v.x0),
      v.y0 + (1 - (sy - top) / (h - top - bottom)) * (v.y1 - v.y0),
    ];
  }

  private onWheel(e: WheelEvent): void {
    if (this.data === null) return;
    e.preventDefault();
    const [cx, cy] = this.fromScreen(e.offsetX, e.offsetY);
    const f = Math.exp(e.deltaY * 0.0015);
    const v = this.view;
    this.view = {
      x0: cx + (v.x0 - cx) * f,
      x1: cx + (v.x1 - cx) * f,
      y0: cy + (v.y0 - cy) * f,
      y1: cy + (v.y1 - cy) * f,
    };
    this.draw();
  }

  private onMove(e: PointerEvent): void {
    if (this.data === null) return;
    if (this.drag !== null) {
      const { left, right, top, bottom } = this.pad;
      const v = this.drag.view;
      const dx =
        ((e.offsetX - this.drag.x) / (this.canvas.clientWidth - left - right)) * (v.x1 - v.x0);
      const dy =
        ((e.offsetY - this.drag.y) / (this.canvas.clientHeight - top - bottom)) * (v.y1 - v.y0);
      this.view = { x0: v.x0 - dx, x1: v.x1 - dx, y0: v.y0 + dy, y1: v.y1 + dy };
      this.draw();
      return;
    }
    // The nearest point within 8 px.
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    let best = -1;
    let bestD = 64;
    for (let i = 0; i < this.data.sampleIndex.length; i++) {
      const [x, y] = this.point(i);
      const [sx, sy] = this.toScreen(x, y, w, h);
      const d = (sx - e.offsetX) ** 2 + (sy - e.offsetY) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    if (best !== this.hover) {
      this.hover = best;
      this.draw();
    }
    if (best < 0) {
      this.tooltip.hidden = true;
      return;
    }
    const label = this.data.labels ? `class ${this.data.labels[best]}` : "no label";
    this.tooltip.textContent = `sample ${this.data.sampleIndex[best]} · ${label}`;
    this.tooltip.hidden = false;
    this.tooltip.style.left = `${e.offsetX + 12}px`;
    this.tooltip.style.top = `${e.offsetY + 12}px`;
  }

  private renderLegend(): void {
    const items = this.classes.slice(0, 40).map((c, i) => {
      const span = document.createElement("span");
      span.className = "legend-item";
      const dot = document.createElement("i");
      dot.style.background = classColour(i);
      span.append(dot, document.createTextNode(c));
      return span;
    });
    if (this.classes.length > 40) {
      const more = document.createElement("span");
      more.className = "legend-item";
      more.textContent = `+${this.classes.length - 40} more`;
      items.push(more);
    }
    this.legend.replaceChildren(...items);
  }

  draw(): void {
    const { ctx, w, h } = fitCanvas(this.canvas);
    ctx.clearRect(0, 0, w, h);
    if (this.data === null) {
      ctx.fillStyle = "#999";
      ctx.font = "13px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.fillText("The test embedding appears here after a fit.", w / 2, h / 2);
      return;
    }
    const { left, right, top, bottom } = this.pad;
    const v = this.view;
    ctx.font = FONT;
    ctx.strokeStyle = GRID;
    ctx.fillStyle = AXIS;
    ctx.lineWidth = 1;
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const t of ticks(v.x0, v.x1)) {
      const [sx] = this.toScreen(t, 0, w, h);
      ctx.beginPath();
      ctx.moveTo(sx, top);
      ctx.lineTo(sx, h - bottom);
      ctx.stroke();
      ctx.fillText(formatTick(t), sx, h - bottom + 4);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const t of ticks(v.y0, v.y1)) {
      const [, sy] = this.toScreen(0, t, w, h);
      ctx.beginPath();
      ctx.moveTo(left, sy);
      ctx.lineTo(w - right, sy);
      ctx.stroke();
      ctx.fillText(formatTick(t), left - 4, sy);
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, w - left - right, h - top - bottom);
    ctx.clip();
    const n = this.data.sampleIndex.length;
    const r = n > 2000 ? 2.5 : 4;
    ctx.globalAlpha = 0.85;
    for (let i = 0; i < n; i++) {
      const [x, y] = this.point(i);
      const [sx, sy] = this.toScreen(x, y, w, h);
      ctx.fillStyle = classColour(this.classIndex[i]);
      ctx.beginPath();
      ctx.arc(sx, sy, r, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    if (this.hover >= 0) {
      const [x, y] = this.point(this.hover);
      const [sx, sy] = this.toScreen(x, y, w, h);
      ctx.strokeStyle = "#111";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(sx, sy, r + 3, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.restore();
    ctx.strokeStyle = AXIS;
    ctx.strokeRect(left, top, w - left - right, h - top - bottom);
    ctx.fillStyle = AXIS;
    ctx.textAlign = "right";
    ctx.textBaseline = "bottom";
    ctx.fillText(
      this.data.dims === 2 ? "component 1 → · component 2 ↑" : "component 1 →",
      w - right,
      h - 1,
    );
  }
}

/** A line chart of one trace. */
export class TracePlot {
  private values: number[] = [];
  private empty = "no values yet";
  private note = "";
  private readonly pad = { left: 54, right: 10, top: 20, bottom: 24 };

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly title: string,
    private readonly colour: string,
  ) {
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  /**
   * Draws `values`; `empty` is what the chart says when there are none, `note` what
   * follows the title (the trace of a fit still running says so).
   */
  show(values: readonly number[], empty = "no values yet", note = ""): void {
    this.values = values.filter((v) => Number.isFinite(v));
    this.empty = empty;
    this.note = note;
    this.draw();
  }

  draw(): void {
    const { ctx, w, h } = fitCanvas(this.canvas);
    ctx.clearRect(0, 0, w, h);
    ctx.font = FONT;
    ctx.fillStyle = "#333";
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.fillText(this.note === "" ? this.title : `${this.title} · ${this.note}`, 4, 2);
    const vals = this.values;
    if (vals.length === 0) {
      ctx.fillStyle = "#999";
      ctx.textAlign = "center";
      ctx.fillText(this.empty, w / 2, h / 2);
      return;
    }
    const positive = vals.every((v) => v > 0);
    let lo = Math.min(...vals);
    let hi = Math.max(...vals);
    const log = positive && hi / lo > 100;
    const f = (v: number) => (log ? Math.log10(v) : v);
    let a = f(lo);
    let b = f(hi);
    if (!(b > a)) {
      a -= log ? 0.5 : Math.abs(a) * 0.05 + 1e-12;
      b += log ? 0.5 : Math.abs(b) * 0.05 + 1e-12;
    }
    [lo, hi] = [a, b];
    const { left, right, top, bottom } = this.pad;
    const n = vals.length;
    const sx = (i: number) => left + (n === 1 ? 0.5 : i / (n - 1)) * (w - left - right);
    const sy = (v: number) => top + (1 - (f(v) - lo) / (hi - lo)) * (h - top - bottom);
    ctx.strokeStyle = GRID;
    ctx.fillStyle = AXIS;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const t of ticks(lo, hi, 3)) {
      const y = top + (1 - (t - lo) / (hi - lo)) * (h - top - bottom);
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(w - right, y);
      ctx.stroke();
      ctx.fillText(log ? `1e${formatTick(t)}` : formatTick(t), left - 4, y);
    }
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const t of ticks(1, n, 4).filter((t) => Number.isInteger(t))) {
      ctx.fillText(String(t), sx(t - 1), h - bottom + 4);
    }
    ctx.strokeStyle = this.colour;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    vals.forEach((v, i) => {
      if (i === 0) ctx.moveTo(sx(i), sy(v));
      else ctx.lineTo(sx(i), sy(v));
    });
    ctx.stroke();
    ctx.fillStyle = this.colour;
    if (n <= 60) {
      vals.forEach((v, i) => {
        ctx.beginPath();
        ctx.arc(sx(i), sy(v), 2, 0, 2 * Math.PI);
        ctx.fill();
      });
    }
    ctx.strokeStyle = AXIS;
    ctx.lineWidth = 1;
    ctx.strokeRect(left, top, w - left - right, h - top - bottom);
  }
}
