// A vitest reporter beside vitest's own (every package's `test` script names it): it keeps the reasons that skipped
// tests print (the house rule is that a test which cannot run here skips with a printed reason, e.g. "Skipping the
// GPU provider tests: no CUDA device") in `.reports/skips.json`, so that `./heed test`'s summary can say why each
// package skipped what it skipped, even when turbo replays the run from its cache.
import { mkdirSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import type { UserConsoleLog } from "vitest"
import type { Reporter, TestModule } from "vitest/node"

/** A printed line that announces a skip: "Skipping …", "skipping the … tests: …", "… missing under CI=true: …". */
const announcesSkip = (text: string): boolean => /^\s*skipping\b/i.test(text) || /missing under CI=true/.test(text)

/** One skip reason as `.reports/skips.json` keeps it: the test file that printed it (when known) and the line. */
export interface SkipReason {
  readonly file: string
  readonly reason: string
}

export default class SkipReporter implements Reporter {
  private readonly logs: Array<UserConsoleLog> = []

  onUserConsoleLog(log: UserConsoleLog): void {
    if (announcesSkip(log.content)) this.logs.push(log)
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const fileOf = new Map(modules.map((module) => [module.id, relative(process.cwd(), module.moduleId)]))
    const seen = new Set<string>()
    const reasons: Array<SkipReason> = []
    for (const log of this.logs) {
      const reason = log.content.trim()
      const file = (log.taskId === undefined ? undefined : fileOf.get(log.taskId)) ?? ""
      // A helper module imported by several test files prints its reason once per file: keep it once.
      if (seen.has(reason)) continue
      seen.add(reason)
      reasons.push({ file, reason })
    }
    mkdirSync(join(process.cwd(), ".reports"), { recursive: true })
    writeFileSync(join(process.cwd(), ".reports", "skips.json"), JSON.stringify(reasons, null, 2))
  }
}
