/**
 * Document numbers: each PID the engine has met gets a small number of its own (for as long as the process
 * runs), so sets of documents are bitsets and per-document values are arrays. A removed document keeps its
 * number; it is simply in no set.
 */
/** Bytes a PID costs beyond its characters: string header, array slot, map entry (V8, measured). */
const PER_PID = 56;

export class DocNumbers {
  readonly pids: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Estimated bytes held: each PID's string, its slot in `pids` and its map entry. */
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
      this.bytes += pid.length + PER_PID;
    }
    return n;
  }

  /** Numbers PIDs in this order (a snapshot's); only on no PIDs yet. */
  restore(pids: readonly string[]): void {
    if (this.pids.length > 0) throw new Error("document numbers restored over numbers given");
    for (const pid of pids) this.numberOf(pid);
    if (this.pids.length !== pids.length) throw new Error("a PID listed twice");
  }

  pidOf(doc: number): string {
    return this.pids[doc] as string;
  }
}
