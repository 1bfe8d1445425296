/**
 * @module kit/prng
 * A small deterministic PRNG (mulberry32) for data that must be the same for the same seed:
 * simulations (sim.generate) and benchmark corpora. Not for secrets: those use kit/src/key-format.ts.
 *
 * @example
 * const next = mulberry32(42);
 * next(); // a float in [0, 1), the same sequence for seed 42 every time
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
