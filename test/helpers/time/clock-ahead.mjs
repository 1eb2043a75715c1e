// Preloaded (`node --import`) into a d1node command the tests run as a child process: the process's clock reads
// 3 s ahead, so rules that leave the last moments' writes to a later run (an import's 2 s lag) see the data the
// test just wrote as settled, without the test waiting. In-process tests move a TestClock (clock.ts) instead.
const AHEAD_MS = 3_000;
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + AHEAD_MS;
