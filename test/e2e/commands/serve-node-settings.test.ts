/**
 * `d1node serve` as docs/federation.md runs it: the Node document's name, description, contact and replicate
 * come from flags; a base URL the bound address cannot serve (another port, a public host on loopback) is
 * warned about in one line each.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const dirs: string[] = [];
const nodes: NodeProcess[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "d1node-serve-"));
  dirs.push(dir);
  return dir;
};
after(async () => {
  await Promise.all(nodes.map((node) => node.kill()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("name, description, contact subject and replicate come from serve's flags", async () => {
  const node = await spawnNode([
    ...["--data-dir", dataDir(), "--node-id", "urn:node:FLAGS"],
    ...["--node-name", "Example Member Node", "--node-description", "Field data of Example"],
    ...["--contact-subject", "CN=Jane Admin,O=Example,C=US,DC=cilogon,DC=org", "--replicate"],
    ...["--cn-base-url", "http://127.0.0.1:9/cn", "--cn-subject", "CN=urn:node:MYCN,DC=dataone,DC=org"],
  ]);
  nodes.push(node);
  const xml = await (await fetch(`${node.baseUrl}/v2/node`)).text();
  assert.match(xml, /<name>Example Member Node<\/name>/);
  assert.match(xml, /<description>Field data of Example<\/description>/);
  assert.match(xml, /<contactSubject>CN=Jane Admin,O=Example,C=US,DC=cilogon,DC=org<\/contactSubject>/);
  assert.match(xml, /replicate="true"/);
  assert.doesNotMatch(node.output(), /warning:/);
});

test("without a contact subject the first administrator is the contact, not a made-up subject", async () => {
  const node = await spawnNode(["--data-dir", dataDir(), "--admin-subject", "CN=Ann Admin,O=Example,C=US"]);
  nodes.push(node);
  const xml = await (await fetch(`${node.baseUrl}/v2/node`)).text();
  assert.match(xml, /<contactSubject>CN=Ann Admin,O=Example,C=US<\/contactSubject>/);
});

test("a base URL on another port or another host than the bound one is warned about", async () => {
  const node = await spawnNode([
    ...["--data-dir", dataDir(), "--role", "cn", "--node-id", "urn:node:MYCN"],
    ...["--base-url", "https://cn.example.org/cn"],
  ]);
  nodes.push(node);
  await eventually("both warnings", async () => {
    const output = node.output();
    assert.match(
      output,
      /^warning: base URL https:\/\/cn\.example\.org\/cn implies port 443 but the node listens on \d+: add --port 443/m,
    );
    assert.match(
      output,
      /^warning: base URL https:\/\/cn\.example\.org\/cn names host cn\.example\.org but the node listens on 127\.0\.0\.1 only: add --host 0\.0\.0\.0$/m,
    );
    return true;
  });
});
