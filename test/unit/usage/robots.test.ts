/**
 * COUNTER's robots list: the copy shipped in data/counter-robots/ is the list in the standards folder, and the
 * node's matcher leaves out what it names (case-insensitive) and nothing a browser sends.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { COUNTER_ROBOTS_LIST, loadRobotList } from "../../../src/services/usage/robots.ts";

const STANDARD = new URL(
  "../../../../shared/standards/counter-robots/COUNTER_Robots_list.json",
  import.meta.url,
);

it("ships the COUNTER list unchanged, with its licence and source", () => {
  assert.deepEqual(
    JSON.parse(readFileSync(COUNTER_ROBOTS_LIST, "utf8")),
    JSON.parse(readFileSync(STANDARD, "utf8")),
  );
  const readme = readFileSync(new URL("../../../data/counter-robots/README.md", import.meta.url), "utf8");
  assert.match(readme, /MIT License/);
  assert.match(
    readFileSync(new URL("../../../data/counter-robots/LICENSE", import.meta.url), "utf8"),
    /COUNTER/,
  );
});

it("leaves out the crawlers the list names, and keeps browsers", () => {
  const robots = loadRobotList(STANDARD.pathname);
  const standard = JSON.parse(readFileSync(STANDARD, "utf8")) as unknown[];
  assert.equal(robots.patterns, standard.length);
  for (const agent of [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "python-requests/2.31.0",
    "curl/8.5.0",
    "Wget/1.21",
    "",
    "SPIDER-man",
  ])
    assert.equal(robots.isRobot(agent), true, agent);
  for (const agent of [
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
  ])
    assert.equal(robots.isRobot(agent), false, agent);
});

it("matches the first 2048 characters of a user agent: a huge header costs no more", () => {
  const robots = loadRobotList(STANDARD.pathname);
  const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0 ";
  assert.equal(robots.isRobot(`${browser}${"x".repeat(3000)}`), false);
  assert.equal(robots.isRobot(`${browser}${"x".repeat(3000)} Googlebot`), false, "past the matched length");
  assert.equal(robots.isRobot(`Googlebot ${"x".repeat(3000)}`), true);
});
