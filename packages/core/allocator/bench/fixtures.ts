import { SeededRandom, WorkingContext } from "../src/index.ts"

/** mulberry32: a small seeded PRNG for reproducible inputs. */
export const prng = SeededRandom.make

/**
 * A valid working context with exactly `entries` entries at K = 32, max LOD2: a random mix of LOD2
 * gists, LOD1 gists and whole LOD0 blocks, then a LOD0 tail of at least 128 tokens.
 */
export const mixedContext = (entries: number, seed = 1): WorkingContext.WorkingContext => {
  const K = 32
  const random = prng(seed)
  const out: Array<WorkingContext.Entry> = []
  let pos = 0
  while (out.length < entries - 160) {
    const r = random()
    if (pos % (K * K) === 0 && r < 0.05) {
      out.push({ level: 2, start: pos })
      pos += K * K
    } else if (r < 0.9) {
      out.push({ level: 1, start: pos })
      pos += K
    } else {
      for (let i = 0; i < K; i++) out.push({ level: 0, start: pos + i })
      pos += K
    }
  }
  const tail = entries - out.length
  for (let i = 0; i < tail; i++) out.push({ level: 0, start: pos + i })
  return WorkingContext.make(out, { blockSize: K, maxLevel: 2, totalTokens: pos + tail })
}

export const randomScores = (n: number, seed = 2): Float32Array => {
  const random = prng(seed)
  const scores = new Float32Array(n)
  for (let i = 0; i < n; i++) scores[i] = random() * 2 - 1
  return scores
}
