/**
 * An honest client: chains of objects under one series (create, updates that obsolete the previous version,
 * updateSystemMetadata, archive on every other chain), each answer checked: bytes and checksum of every version
 * read back, the series head, obsolescence links, listObjects, search, getLogRecords and ping. Any unexpected
 * status or content is an honest-client error; the chain is abandoned after one.
 */
import http from "node:http";
import { Content, MULTIPART, multipart, sysmetaXml, uniqueId } from "./bodies.ts";
import { type Answer, type Exchange, elementText, exchange } from "./http.ts";
import { describe, type Tally } from "./tally.ts";

export interface HonestContext {
  baseUrl: string;
  token: string;
  subject: string;
  tally: Tally;
  /** Bytes of large objects still to create in this soak (shared by the clients). */
  largeBudget: { bytes: number };
  stopped(): boolean;
}

const MIB = 1 << 20;
const LARGE_EVERY_MS = 20_000;
const UPDATES_PER_CHAIN = 2;
const SEARCH_AFTER_MS = 60_000;

/** Thrown to abandon a chain once its error has been counted. */
class ChainBroken extends Error {}

export class HonestClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  private lastLarge = 0;
  private chains = 0;
  /** Heads of chains left unarchived, to find by search once the index has had time. */
  private readonly searchable: { pid: string; at: number }[] = [];

  constructor(
    private readonly ctx: HonestContext,
    private readonly name: string,
  ) {}

  async run(): Promise<void> {
    while (!this.ctx.stopped()) {
      try {
        await this.chain();
      } catch (error) {
        if (!(error instanceof ChainBroken)) throw error;
      }
    }
    this.agent.destroy();
  }

  private async chain(): Promise<void> {
    const base = this.ctx.baseUrl;
    const archive = this.chains++ % 2 === 1;
    await this.call("ping", { method: "GET", url: `${base}/v2/monitor/ping` }, expectStatus(200));
    const sid = uniqueId(`soak-sid-${this.name}`);
    let pid = uniqueId(`soak-${this.name}`);
    let content = this.content();
    const create = multipart({ pid, sysmeta: this.sysmeta(pid, content, sid) }, content);
    await this.call("create", this.upload("POST", `${base}/v2/object`, create), expectIdentifier(pid));
    await this.verifyObject(pid, content);
    await this.verifySysmeta(pid, content, sid);
    for (let step = 0; step < UPDATES_PER_CHAIN && !this.ctx.stopped(); step++) {
      const newPid = uniqueId(`soak-${this.name}`);
      const next = this.content();
      const body = multipart({ newPid, sysmeta: this.sysmeta(newPid, next, sid, pid) }, next);
      await this.call(
        "update",
        this.upload("PUT", `${base}/v2/object/${enc(pid)}`, body),
        expectIdentifier(newPid),
      );
      await this.verifyObject(sid, next);
      const old = await this.call("getSystemMetadata", this.get(`/v2/meta/${enc(pid)}`), expectStatus(200));
      if (elementText(old.body, "obsoletedBy") !== newPid)
        this.fail("getSystemMetadata", `obsoletedBy of ${pid}`, old);
      pid = newPid;
      content = next;
    }
    await this.updateSysmeta(pid);
    await this.call(
      "listObjects",
      this.get("/v2/object?start=0&count=5"),
      expectBody(/objectList[^>]*count="\d+"/),
    );
    await this.call(
      "getLogRecords",
      this.get("/v2/log?start=0&count=5"),
      expectBody(/<([\w.-]+:)?log\b[^>]*count="\d+"/),
    );
    await this.search();
    if (archive) {
      await this.call(
        "archive",
        { ...this.get(`/v2/archive/${enc(pid)}`), method: "PUT" },
        expectIdentifier(pid),
      );
      const meta = await this.call("getSystemMetadata", this.get(`/v2/meta/${enc(pid)}`), expectStatus(200));
      if (elementText(meta.body, "archived") !== "true")
        this.fail("archive", `archived flag of ${pid}`, meta);
    } else {
      this.searchable.push({ pid, at: Date.now() });
    }
  }

  /** A few MiB every 20 s while the shared budget lasts, else 1-16 KiB. */
  private content(): Content {
    const now = Date.now();
    if (now - this.lastLarge >= LARGE_EVERY_MS && this.ctx.largeBudget.bytes > 0) {
      this.lastLarge = now;
      const size = (2 + Math.floor(Math.random() * 3)) * MIB + Math.floor(Math.random() * 1000);
      this.ctx.largeBudget.bytes -= size;
      return new Content(size);
    }
    return new Content(1024 + Math.floor(Math.random() * 15 * 1024));
  }

  private sysmeta(pid: string, content: Content, seriesId: string, obsoletes?: string): string {
    return sysmetaXml({
      pid,
      size: content.size,
      sha1: content.sha1,
      submitter: this.ctx.subject,
      seriesId,
      ...(obsoletes ? { obsoletes } : {}),
    });
  }

  private async verifyObject(id: string, content: Content): Promise<void> {
    const answer = await this.call("get", this.get(`/v2/object/${enc(id)}`), expectStatus(200));
    if (answer.bytes !== content.size || answer.sha1 !== content.sha1) {
      this.fail("get", `content of ${id}: ${answer.bytes} bytes, SHA-1 ${answer.sha1}`, answer, content);
    }
  }

  private async verifySysmeta(pid: string, content: Content, sid: string): Promise<void> {
    const answer = await this.call("getSystemMetadata", this.get(`/v2/meta/${enc(pid)}`), expectStatus(200));
    const wrong =
      elementText(answer.body, "identifier") !== pid ||
      elementText(answer.body, "size") !== String(content.size) ||
      elementText(answer.body, "checksum")?.toLowerCase() !== content.sha1 ||
      elementText(answer.body, "seriesId") !== sid;
    if (wrong) this.fail("getSystemMetadata", `fields of ${pid}`, answer, content);
  }

  /** Read the system metadata, grant one more subject read access, send it back; the change must show. */
  private async updateSysmeta(pid: string): Promise<void> {
    const current = await this.call("getSystemMetadata", this.get(`/v2/meta/${enc(pid)}`), expectStatus(200));
    const reader = `CN=soak-reader-${this.name}-${this.chains},DC=d1node,DC=org`;
    const rule = `<allow><subject>${reader}</subject><permission>read</permission></allow>`;
    const sysmeta = current.body.replace("</accessPolicy>", `${rule}</accessPolicy>`);
    const body = multipart({ pid, sysmeta });
    await this.call(
      "updateSystemMetadata",
      this.upload("PUT", `${this.ctx.baseUrl}/v2/meta`, body),
      expectStatus(200),
    );
    const after = await this.call("getSystemMetadata", this.get(`/v2/meta/${enc(pid)}`), expectStatus(200));
    const serial = Number(elementText(current.body, "serialVersion"));
    if (!after.body.includes(reader) || Number(elementText(after.body, "serialVersion")) !== serial + 1) {
      this.fail("updateSystemMetadata", `change to ${pid} not visible`, after);
    }
  }

  /** A query every chain; an unarchived head created a minute ago must be found. */
  private async search(): Promise<void> {
    const due = this.searchable[0] && Date.now() - this.searchable[0].at > SEARCH_AFTER_MS;
    const target = due ? this.searchable.shift()?.pid : undefined;
    const q = target ? `id:"${target}"` : "formatId:*";
    const url = `/v2/query/solr/?q=${encodeURIComponent(q)}&fl=id&rows=5&wt=xml`;
    const answer = await this.call("query", this.get(url), expectBody(/numFound="\d+"/));
    const found = Number(/numFound="(\d+)"/.exec(answer.body)?.[1]);
    if (target && found !== 1)
      this.fail("query", `${target} not found a minute after it was written`, answer);
  }

  private get(path: string): Exchange {
    return { method: "GET", url: `${this.ctx.baseUrl}${path}`, headers: this.auth(), agent: this.agent };
  }

  private upload(
    method: string,
    url: string,
    body: { length: number; body: AsyncIterable<Buffer> },
  ): Exchange {
    const headers = { ...this.auth(), "content-type": MULTIPART, "content-length": String(body.length) };
    return { method, url, headers, body: body.body, agent: this.agent };
  }

  private auth(): Record<string, string> {
    return { authorization: `Bearer ${this.ctx.token}` };
  }

  private async call(op: string, x: Exchange, check: (a: Answer) => boolean): Promise<Answer> {
    this.ctx.tally.count(`honest ${op}`);
    const answer = await exchange(x);
    if (!check(answer)) this.fail(op, `${x.method} ${x.url}`, answer);
    return answer;
  }

  private fail(op: string, what: string, answer: Answer, expected?: Content): never {
    const wanted = expected ? `\nexpected ${expected.size} bytes, SHA-1 ${expected.sha1}` : "";
    this.ctx.tally.problem("honest", op, what, `${describe(answer)}${wanted}`);
    throw new ChainBroken(what);
  }
}

function expectStatus(status: number): (a: Answer) => boolean {
  return (a) => a.status === status;
}

function expectIdentifier(pid: string): (a: Answer) => boolean {
  return (a) => a.status === 200 && elementText(a.body, "(?:[\\w.-]+:)?identifier") === pid;
}

function expectBody(pattern: RegExp): (a: Answer) => boolean {
  return (a) => a.status === 200 && pattern.test(a.body);
}

function enc(id: string): string {
  return encodeURIComponent(id);
}
