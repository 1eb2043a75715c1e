/**
 * Document numbers: each PID the engine has met gets a small number of its own (for as long as the process
 * runs), so sets of documents are bitsets and per-document values are arrays. A removed document keeps its
 * number; it is simply in no set.
 *
 * The PIDs are held in typed arrays, not as strings: their UTF-16 code units one after another, where each
 * starts, and an open-addressing table of numbers by hash. Millions of strings and a map of them would be
 * millions of objects for V8's collector to mark at every full collection; typed arrays are a few.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { HashSlots, hashOf } from "./hash-slots.ts";

/** PIDs numbered between turns of the event loop when restoring (a few milliseconds of work). */
const RESTORED_PER_TURN = 10_000;

/** A list of PIDs read a slice at a time: a snapshot's (an array), or the numbers' own (`saved`). */
export interface PidList {
  readonly length: number;
  slice(from: number, to: number): string[];
}

/** Code units as a string (exact: lone surrogates kept). */
function stringOf(units: Uint16Array): string {
  let out = "";
  for (let from = 0; from < units.length; from += 4096)
    out += String.fromCharCode.apply(null, units.subarray(from, from + 4096) as unknown as number[]);
  return out;
}

/** Surrogates rank above U+E000-FFFF in code point order (as byte-order.ts). */
const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

/** PIDs as code units and where each starts (a copy, or the live arrays while they do not change). */
class PidUnits implements PidList {
  constructor(
    protected units: Uint16Array,
    /** PID n is units starts[n] .. starts[n + 1]. */
    protected starts: Uint32Array,
    public length: number,
  ) {}

  slice(from: number, to: number): string[] {
    const out: string[] = [];
    for (let doc = from; doc < Math.min(to, this.length); doc++) out.push(this.pidOf(doc));
    return out;
  }

  pidOf(doc: number): string {
    return stringOf(this.units.subarray(this.starts[doc], this.starts[doc + 1]));
  }
}

export class DocNumbers extends PidUnits {
  /** The numbers by their PIDs' hashes. */
  private readonly slots = new HashSlots();
  private readonly isPid = (doc: number, pid: string) => this.is(doc, pid);

  constructor() {
    super(new Uint16Array(16_384), new Uint32Array(1025), 0);
  }

  get size(): number {
    return this.length;
  }

  /** Bytes held: the typed arrays (with their spare capacity). */
  get bytes(): number {
    return this.units.byteLength + this.starts.byteLength + this.slots.bytes;
  }

  numberOf(pid: string): number {
    const hash = hashOf(pid);
    const doc = this.slots.find(hash, pid, this.isPid);
    return doc >= 0 ? doc : this.add(pid, hash, doc);
  }

  /** Byte-wise (code point) order of two documents' PIDs, as byte-order.ts compares strings. */
  comparePids(a: number, b: number): number {
    const units = this.units;
    const fromA = this.starts[a] as number;
    const fromB = this.starts[b] as number;
    const lengthA = (this.starts[a + 1] as number) - fromA;
    const lengthB = (this.starts[b + 1] as number) - fromB;
    const length = Math.min(lengthA, lengthB);
    for (let i = 0; i < length; i++) {
      const x = units[fromA + i] as number;
      const y = units[fromB + i] as number;
      if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointRank(x) - codePointRank(y) : x - y;
    }
    return lengthA - lengthB;
  }

  /** The PIDs numbered so far, copied (a snapshot's consistent picture). */
  saved(): PidList {
    const used = this.starts[this.length] as number;
    return new PidUnits(this.units.slice(0, used), this.starts.slice(0, this.length + 1), this.length);
  }

  /** Numbers PIDs in this order (a snapshot's); only on no PIDs yet. The event loop gets turns meanwhile. */
  async restore(pids: PidList): Promise<void> {
    if (this.length > 0) throw new Error("document numbers restored over numbers given");
    for (let from = 0; from < pids.length; from += RESTORED_PER_TURN) {
      for (const pid of pids.slice(from, from + RESTORED_PER_TURN)) this.numberOf(pid);
      await nextTurn();
    }
    if (this.length !== pids.length) throw new Error("a PID listed twice");
  }

  /** Whether document `doc`'s PID is `pid`. */
  private is(doc: number, pid: string): boolean {
    const from = this.starts[doc] as number;
    if ((this.starts[doc + 1] as number) - from !== pid.length) return false;
    for (let i = 0; i < pid.length; i++) if (this.units[from + i] !== pid.charCodeAt(i)) return false;
    return true;
  }

  /** Numbers a new PID, at the table's place `missing` (as HashSlots.find gave it). */
  private add(pid: string, hash: number, missing: number): number {
    const doc = this.length;
    const from = this.starts[doc] as number;
    if (from + pid.length > this.units.length) this.units = grown(this.units, from + pid.length);
    for (let i = 0; i < pid.length; i++) this.units[from + i] = pid.charCodeAt(i);
    if (doc + 2 > this.starts.length) this.starts = grown(this.starts, doc + 2);
    this.starts[doc + 1] = from + pid.length;
    this.slots.add(hash, missing);
    this.length = doc + 1;
    return doc;
  }
}

/** A typed array of at least `least` elements (doubling), the old contents copied. */
function grown<T extends Uint16Array | Uint32Array | Int32Array>(array: T, least: number): T {
  let length = array.length * 2;
  while (length < least) length *= 2;
  const out = new (array.constructor as new (length: number) => T)(length);
  out.set(array);
  return out;
}
