import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { KeyHeap } from "../src/internal/heap.ts"
import { RadixSorter } from "../src/internal/radix.ts"
import { TimeQueue } from "../src/internal/timeQueue.ts"

const drained = (queue: TimeQueue, limit: number) => {
  const out: Array<[number, number]> = []
  queue.drain(limit, (key, id) => out.push([key, id]))
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1])
}

describe("internal time index", () => {
  it("TimeQueue drains exactly the entries at or before the limit, keeping the rest", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ push: fc.double({ min: -50, max: 2000, noNaN: true }), id: fc.nat(1000) }),
            fc.record({ drain: fc.double({ min: -50, max: 2000, noNaN: true }) }),
            fc.record({ push: fc.constant(-Infinity), id: fc.nat(1000) })
          ),
          { maxLength: 300 }
        ),
        fc.constantFrom(0.5, 5, 30),
        (ops, width) => {
          const queue = new TimeQueue(width)
          let model: Array<[number, number]> = []
          for (const op of ops) {
            if ("push" in op) {
              queue.push(op.push, op.id)
              model.push([op.push, op.id])
            } else {
              const expected = model.filter(([key]) => key <= op.drain).sort((a, b) => a[0] - b[0] || a[1] - b[1])
              model = model.filter(([key]) => key > op.drain)
              assert.deepStrictEqual(drained(queue, op.drain), expected)
            }
            assert.strictEqual(queue.size, model.length)
          }
        }
      )
    )
  })

  it("TimeQueue entries pushed during a drain wait for the next drain", () => {
    const queue = new TimeQueue(5)
    for (let id = 0; id < 1000; id++) queue.push(id % 7, id)
    const seen: Array<number> = []
    queue.drain(10, (key, id) => {
      seen.push(id)
      queue.push(key + 1, id)
    })
    assert.strictEqual(seen.length, 1000)
    assert.strictEqual(queue.size, 1000)
    assert.strictEqual(drained(queue, 100).length, 1000)
  })

  it("KeyHeap pops keys in ascending order", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true })), (keys) => {
        const heap = new KeyHeap(1)
        keys.forEach((key, i) => {
          heap.push(key, i)
        })
        const out: Array<number> = []
        while (heap.size > 0) {
          out.push(heap.peekKey())
          heap.pop()
        }
        assert.deepStrictEqual(
          out,
          [...keys].sort((a, b) => a - b)
        )
        assert.strictEqual(heap.peekKey(), Infinity)
      })
    )
  })

  it("RadixSorter sorts pairs by unsigned 32-bit key, stably", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 3000 }), (keys) => {
        const sorter = new RadixSorter()
        const buffers = sorter.prepare(keys.length)
        keys.forEach((key, i) => {
          buffers.keys[i] = key
          buffers.values[i] = i
        })
        const sorted = Array.from(sorter.sort(keys.length, Math.max(0, ...keys)).subarray(0, keys.length))
        const expected = keys.map((key, i) => [key, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1])
        assert.deepStrictEqual(
          sorted,
          expected.map(([, i]) => i)
        )
      })
    )
  })
})
