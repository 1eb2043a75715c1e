/** The landing page's JSON-LD data block stays inert, and level 1 Link headers cap the repeating relations. */
import assert from "node:assert/strict";
import { it } from "node:test";
import LinkHeader from "http-link-header";
import { jsonLdScript } from "../../../src/landing/jsonld-script.ts";
import { linkHeader } from "../../../src/landing/signposts.ts";

it("a JSON-LD value cannot close its script element", () => {
  const block = jsonLdScript({ name: "</script><script>alert(1)</script> & \u2028" }).value;
  assert.equal(block.match(/</g)?.length, 2);
  assert.deepEqual(JSON.parse(block.replace(/^<script[^>]*>|<\/script>$/g, "")), {
    name: "</script><script>alert(1)</script> & \u2028",
  });
});

it("Link headers keep 10 authors and 10 items, and every other link", () => {
  const links = [
    { href: "https://doi.org/10.5072/x", rel: "cite-as" },
    ...Array.from({ length: 30 }, (_, i) => ({
      href: `https://n.example/object/${i}`,
      rel: "item",
      type: "text/csv",
    })),
    ...Array.from({ length: 12 }, (_, i) => ({
      href: `https://orcid.org/0000-0000-0000-00${10 + i}`,
      rel: "author",
    })),
    { href: "https://n.example/linksets/x", rel: "linkset", type: "application/linkset+json" },
  ];
  const parsed = LinkHeader.parse(linkHeader(links));
  assert.equal(parsed.rel("item").length, 10);
  assert.equal(parsed.rel("author").length, 10);
  assert.equal(parsed.rel("cite-as").length, 1);
  assert.equal(parsed.rel("linkset")[0]?.type, "application/linkset+json");
});
