/**
 * Document numbers: each PID the engine has met gets a small number of its own (for as long as the process
 * runs), so sets of documents are bitsets and per-document values are arrays. A removed document keeps its
 * number; it is simply in no set.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { ARRAY_SLOT, MAP_ENTRY, stringBytes } from "./heap-sizes.ts";

/** PIDs numbered between turns of the event loop when restoring (a few milliseconds of work). */
const RESTORED_PER_TURN = 10_000;

export class DocNumbers {
  readonly pids: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Bytes held: each PID's string, its slot in `pids` and its map entry (heap-sizes.ts). */
  bytes = 0;

  get size(): number {
    return this.pids.length;
  }

  numberOf(pid: string): number {
    let n = this.numbers.get(pid);
    if (n === undefined) {
      n = this.pids.length;
      this.pids.push(pid);
      this.numbers.set(pid, n);
      this.bytes += stringBytes(pid) + ARRAY_SLOT + MAP_ENTRY;
    }
    return n;
  }

  /** Numbers PIDs in this order (a snapshot's); only on no PIDs yet. The event loop gets turns meanwhile. */
  async restore(pids: readonly string[]): Promise<void> {
    if (this.pids.length > 0) throw new Error("document numbers restored over numbers given");
    for (let from = 0; from < pids.length; from += RESTORED_PER_TURN) {
      const to = Math.min(pids.length, from + RESTORED_PER_TURN);
      for (let i = from; i < to; i++) this.numberOf(pids[i] as string);
      await nextTurn();
    }
    if (this.pids.length !== pids.length) throw new Error("a PID listed twice");
  }

  pidOf(doc: number): string {
    return this.pids[doc] as string;
  }
}
