/** Untrusted text renders inert: no element, attribute or javascript: link can come out of a document. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { extractMetadata } from "../../../src/views/extract/index.ts";
import { html, safeUrl } from "../../../src/views/html.ts";
import type { ViewLinks, ViewModel } from "../../../src/views/model.ts";
import { THEMES } from "../../../src/views/themes.ts";

const links: ViewLinks = {
  object: (pid) => `/mn/v2/object/${encodeURIComponent(pid)}`,
  view: (pid) => `/mn/v2/views/default/${encodeURIComponent(pid)}`,
  package: (pid) => `/mn/v2/packages/application%2Fbagit-097/${encodeURIComponent(pid)}`,
};

describe("html", () => {
  it("escapes every interpolated string, in text and in attributes", () => {
    const evil = `"><script>alert(1)</script><a onclick='x'>`;
    assert.equal(
      html`<p title="${evil}">${evil}</p>`.value,
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a onclick=&#39;x&#39;&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a onclick=&#39;x&#39;&gt;</p>',
    );
  });
  it("keeps only http(s), mailto and relative URLs", () => {
    assert.equal(safeUrl(" javascript:alert(1)"), undefined);
    assert.equal(safeUrl("JaVaScRiPt:alert(1)"), undefined);
    assert.equal(safeUrl("data:text/html,x"), undefined);
    assert.equal(safeUrl("//evil.example/x"), undefined);
    assert.equal(safeUrl("https://example.org/a"), "https://example.org/a");
    assert.equal(safeUrl("/mn/v2/object/x"), "/mn/v2/object/x");
  });
});

describe("a hostile metadata document renders inert in every theme", () => {
  const metadata = extractMetadata(
    readFileSync(new URL("../../fixtures/views/eml-hostile.xml", import.meta.url)),
    "eml://ecoinformatics.org/eml-2.1.1",
    "EML",
  );
  const model: ViewModel = {
    sysmeta: {
      identifier: `<script>alert("pid")</script>`,
      formatId: "eml://ecoinformatics.org/eml-2.1.1",
      size: 10,
      checksum: { algorithm: "MD5", value: "x" },
      rightsHolder: `<img src=x onerror=alert(1)>`,
      accessPolicy: [],
      replicas: [],
      obsoletes: `javascript:alert(1)`,
    },
    metadata,
    packages: [],
  };
  for (const theme of THEMES) {
    it(theme.key, () => {
      const page = theme.render(model, links);
      assert.doesNotMatch(page, /<script/i, "no script element");
      assert.doesNotMatch(page, /<(?:img|b|a)\s[^>]*\son\w+\s*=/i, "no event-handler attribute");
      assert.doesNotMatch(
        page,
        /<[a-z]+\s[^>]*\bon(?:error|mouseover|focus|click)\s*=/i,
        "no event handler on any tag",
      );
      assert.doesNotMatch(page, /href\s*=\s*["']?\s*(?:javascript|data):/i, "no javascript: or data: link");
      assert.match(
        page,
        /&lt;script&gt;window.__pwned = &quot;title&quot;&lt;\/script&gt;Hostile/,
        "the title shows as text",
      );
    });
  }
});
