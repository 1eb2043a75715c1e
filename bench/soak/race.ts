/**
 * SID racers: 16 concurrent creates, each with its own identifier, all introducing one new seriesId ("a new unique
 * SID may be included on create or update", API text, SystemMetadata): exactly one create may win; the others must be refused with
 * InvalidSystemMetadata or IdentifierNotUnique and leave nothing stored. More than one winner, or a refused
 * create that was stored anyway, is an integrity error.
 */
import http from "node:http";
import { Content, MULTIPART, multipart, sysmetaXml, uniqueId } from "./bodies.ts";
import { type Answer, dataoneError, elementText, exchange } from "./http.ts";
import { describe, type Tally } from "./tally.ts";

const RACERS = 16;
const KIND = "sid-race";
const REFUSALS = new Set(["InvalidSystemMetadata", "IdentifierNotUnique"]);

export async function sidRace(baseUrl: string, token: string, subject: string, tally: Tally): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  const sid = uniqueId("soak-race-sid");
  const racers = Array.from({ length: RACERS }, (_, i) => ({
    pid: `${sid}-pid${i}`,
    content: new Content(512),
  }));
  const answers = await Promise.all(
    racers.map(({ pid, content }) => {
      const body = multipart(
        {
          pid,
          sysmeta: sysmetaXml({
            pid,
            size: content.size,
            sha1: content.sha1,
            submitter: subject,
            seriesId: sid,
          }),
        },
        content,
      );
      return exchange({
        method: "POST",
        url: `${baseUrl}/v2/object`,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": MULTIPART,
          "content-length": String(body.length),
        },
        body: body.body,
        agent,
        timeoutMs: 60_000,
      });
    }),
  );
  tally.count(KIND, RACERS);
  const winners: string[] = [];
  const losers: string[] = [];
  answers.forEach((answer, i) => {
    const pid = racers[i]?.pid ?? "";
    tally.status(KIND, answer);
    if (answer.status === 200 && elementText(answer.body, "(?:[\\w.-]+:)?identifier") === pid)
      winners.push(pid);
    else {
      losers.push(pid);
      if (!isRefusal(answer))
        tally.problem("hostile", KIND, `create ${pid} with seriesId ${sid}`, describe(answer));
    }
  });
  if (winners.length > 1) {
    tally.problem("integrity", KIND, `${winners.length} creates won seriesId ${sid}`, winners.join(", "));
  } else if (winners.length === 0) {
    tally.problem("hostile", KIND, `no create won seriesId ${sid}`, describe(answers[0] as Answer));
  }
  await checkNothingStored(baseUrl, token, losers, tally, agent);
  if (winners.length === 1) {
    const head = await exchange({
      method: "GET",
      url: `${baseUrl}/v2/meta/${encodeURIComponent(sid)}`,
      headers: { authorization: `Bearer ${token}` },
      agent,
    });
    tally.count(KIND);
    if (head.status !== 200 || elementText(head.body, "identifier") !== winners[0]) {
      tally.problem(
        "integrity",
        KIND,
        `seriesId ${sid} does not resolve to its winner ${winners[0]}`,
        describe(head),
      );
    }
  }
  agent.destroy();
}

function isRefusal(answer: Answer): boolean {
  const error = dataoneError(answer.body);
  return (answer.status === 400 || answer.status === 409) && error !== undefined && REFUSALS.has(error.name);
}

async function checkNothingStored(
  baseUrl: string,
  token: string,
  pids: string[],
  tally: Tally,
  agent: http.Agent,
): Promise<void> {
  for (const pid of pids) {
    const answer = await exchange({
      method: "GET",
      url: `${baseUrl}/v2/meta/${encodeURIComponent(pid)}`,
      headers: { authorization: `Bearer ${token}` },
      agent,
    });
    tally.count(KIND);
    if (answer.status !== 404)
      tally.problem("integrity", KIND, `refused create ${pid} is readable`, describe(answer));
  }
}
