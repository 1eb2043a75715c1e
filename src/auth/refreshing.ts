/**
 * What a Member Node fetches from its CN and keeps (token-signing keys, CN subjects): fetched at start, again
 * every `refreshMs`, and on demand at most once per `minIntervalMs`, so that bad callers cannot make the node
 * hammer its CN. One fetch at a time; callers during a fetch share its answer.
 */
export interface Refresher {
  /** Fetch again (at most once per `minIntervalMs`); true when what is kept changed. */
  refresh(): Promise<boolean>;
  close(): void;
}

export function refreshing(
  fetchAll: () => Promise<boolean>,
  options: { refreshMs?: number; minIntervalMs?: number } = {},
): Refresher {
  const minIntervalMs = options.minIntervalMs ?? 60_000;
  let lastFetch = 0;
  let running: Promise<boolean> | undefined;
  const refresh = () => {
    if (running) return running;
    if (Date.now() - lastFetch < minIntervalMs) return Promise.resolve(false);
    lastFetch = Date.now();
    running = fetchAll().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void refresh(), options.refreshMs ?? 3_600_000);
  timer.unref();
  void refresh();
  return { refresh, close: () => clearInterval(timer) };
}
