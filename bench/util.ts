/** Small helpers shared by the benchmark's modules: progress lines, statistics, formatting. */

const started = performance.now();

/** Seconds since the benchmark started, for the progress lines. */
export function elapsed(): number {
  return (performance.now() - started) / 1000;
}

/** One progress line: `[  12.3 s] text`. */
export function progress(text: string): void {
  console.log(`[${elapsed().toFixed(1).padStart(7)} s] ${text}`);
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Nearest-rank percentile of latencies in ms (0 when there are none). */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export function median(xs: number[]): number {
  return percentile(xs, 50);
}

/** 12345.6 → "12,346"; small figures keep a decimal or two. */
export function fmtNumber(x: number): string {
  if (!Number.isFinite(x)) return "–";
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString("en-US");
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

export function fmtInt(x: number): string {
  return Math.round(x).toLocaleString("en-US");
}

/** Deterministic pseudo-random numbers (mulberry32): a run is repeatable for a given seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `fn` concurrently over `n` workers until each returns false; returns when all are done. */
export async function workers(n: number, fn: (worker: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}
