// The vault graph: a small force layout written by hand (no remote or third-party library) drawn as
// SVG, with pan (drag, arrow keys) and zoom (wheel, +/-, 0 resets). Labels are SVG text nodes.
import type { GraphData } from '../../src/protocol/dashboard';
import { el, svg } from './dom';

interface P { x: number; y: number; vx: number; vy: number }

/** Deterministic layout: the same graph always lands in the same place (screenshots, tests). */
export function layout(g: GraphData, size = 800): Map<string, P> {
  const n = g.nodes.length;
  const pos = new Map<string, P>();
  g.nodes.forEach((node, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, n);
    const r = size * 0.35 * (0.5 + 0.5 * ((i * 7919) % 97) / 97);
    pos.set(node.id, { x: size / 2 + r * Math.cos(a), y: size / 2 + r * Math.sin(a), vx: 0, vy: 0 });
  });
  const list = [...pos.values()];
  const k = Math.sqrt((size * size) / Math.max(1, n)) * 0.6;
  // Repulsion is O(n²) per step: fewer steps for big graphs keep it under ~15 M pair visits.
  const steps = Math.max(25, Math.min(250, Math.floor(15_000_000 / Math.max(1, n * n))));
  for (let s = 0; s < steps; s++) {
    const t = 1 - s / steps;
    for (let i = 0; i < n; i++) {
      const a = list[i]!;
      for (let j = i + 1; j < n; j++) {
        const b = list[j]!;
        let dx = a.x - b.x, dy = a.y - b.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = 0.1 * (i - j); dy = 0.1; d2 = dx * dx + dy * dy; }
        const f = (k * k) / d2;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      }
    }
    for (const e of g.edges) {
      const a = pos.get(e.from), b = pos.get(e.to);
      if (!a || !b) continue;
      const dx = a.x - b.x, dy = a.y - b.y;
      const d = Math.sqrt(dx * dx + dy * dy) || 0.01;
      const f = d / k;
      a.vx -= dx * f; a.vy -= dy * f; b.vx += dx * f; b.vy += dy * f;
    }
    for (const p of list) {
      p.vx += (size / 2 - p.x) * 0.01; p.vy += (size / 2 - p.y) * 0.01; // gentle gravity keeps islands on screen
      const v = Math.sqrt(p.vx * p.vx + p.vy * p.vy) || 1;
      const step = Math.min(v, k * t);
      p.x += (p.vx / v) * step; p.y += (p.vy / v) * step;
      p.vx = 0; p.vy = 0;
    }
  }
  return pos;
}

export function renderGraph(g: GraphData, onOpen: (id: string) => void): HTMLElement {
  const size = 800;
  const pos = layout(g, size);
  const view = { x: 0, y: 0, w: size, h: size };
  const root = svg('svg', {
    class: 'graph', viewBox: `0 0 ${size} ${size}`, tabindex: 0, role: 'img',
    'aria-label': `Vault graph: ${g.nodes.filter((x) => x.type === 'note').length} notes, ${g.edges.length} edges. Arrow keys pan, plus and minus zoom, 0 resets.`,
  });
  const apply = () => root.setAttribute('viewBox', `${view.x} ${view.y} ${view.w} ${view.h}`);
  const zoom = (f: number, cx = view.x + view.w / 2, cy = view.y + view.h / 2) => {
    const w = Math.min(size * 8, Math.max(size / 20, view.w * f));
    const r = w / view.w;
    view.x = cx - (cx - view.x) * r; view.y = cy - (cy - view.y) * r; view.w = w; view.h = w;
    apply();
  };
  const edges = svg('g', { class: 'edges' });
  for (const e of g.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    edges.appendChild(svg('line', { x1: a.x.toFixed(1), y1: a.y.toFixed(1), x2: b.x.toFixed(1), y2: b.y.toFixed(1), class: `edge ${e.type}` }));
  }
  const nodes = svg('g', { class: 'nodes' });
  for (const node of g.nodes) {
    const p = pos.get(node.id)!;
    const open = node.type === 'note' ? () => onOpen(node.id) : undefined;
    const group = svg('g', {
      class: `node ${node.type}`, transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`,
      tabindex: open ? 0 : null, role: open ? 'button' : null, 'aria-label': open ? `Open note ${node.label}` : null,
      onclick: open ? () => open() : undefined,
      onkeydown: open ? (ev: Event) => { const k = (ev as KeyboardEvent).key; if (k === 'Enter' || k === ' ') { ev.preventDefault(); open(); } } : undefined,
    },
    svg('circle', { r: node.type === 'note' ? 6 : 4 }),
    svg('text', { x: 9, y: 4 }, node.label));
    nodes.appendChild(group);
  }
  root.appendChild(edges);
  root.appendChild(nodes);
  root.addEventListener('wheel', (ev) => {
    const e = ev as WheelEvent;
    e.preventDefault();
    const rect = root.getBoundingClientRect();
    const cx = view.x + ((e.clientX - rect.left) / Math.max(1, rect.width)) * view.w;
    const cy = view.y + ((e.clientY - rect.top) / Math.max(1, rect.height)) * view.h;
    zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
  }, { passive: false });
  let drag: { x: number; y: number } | undefined;
  root.addEventListener('pointerdown', (ev) => { const e = ev as PointerEvent; if ((e.target as Element).closest('.node.note')) return; drag = { x: e.clientX, y: e.clientY }; });
  root.addEventListener('pointermove', (ev) => {
    const e = ev as PointerEvent;
    if (!drag) return;
    const rect = root.getBoundingClientRect();
    view.x -= ((e.clientX - drag.x) / Math.max(1, rect.width)) * view.w;
    view.y -= ((e.clientY - drag.y) / Math.max(1, rect.height)) * view.h;
    drag = { x: e.clientX, y: e.clientY };
    apply();
  });
  for (const t of ['pointerup', 'pointerleave']) root.addEventListener(t, () => { drag = undefined; });
  root.addEventListener('keydown', (ev) => {
    const e = ev as KeyboardEvent;
    if (e.target !== root) return;
    const stepPx = view.w * 0.1;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-stepPx, 0], ArrowRight: [stepPx, 0], ArrowUp: [0, -stepPx], ArrowDown: [0, stepPx] };
    if (moves[e.key]) { view.x += moves[e.key]![0]; view.y += moves[e.key]![1]; apply(); }
    else if (e.key === '+' || e.key === '=') zoom(1 / 1.25);
    else if (e.key === '-') zoom(1.25);
    else if (e.key === '0') { view.x = 0; view.y = 0; view.w = size; view.h = size; apply(); }
    else return;
    e.preventDefault();
  });
  const legend = el('p', { class: 'muted' },
    `${g.nodes.filter((x) => x.type === 'note').length} notes, ${g.nodes.filter((x) => x.type === 'tag').length} tags, `
    + `${g.nodes.filter((x) => x.type === 'missing').length} missing link targets.`
    + (g.truncated ? ' The graph shows the first notes only.' : '') + ' Drag or use the arrow keys to pan; wheel or +/- to zoom; 0 resets.');
  return el('div', { class: 'graph-wrap' }, legend, root as unknown as Node);
}
