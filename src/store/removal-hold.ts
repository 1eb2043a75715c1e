/**
 * The removal hold both stores share (see ObjectStore.holdRemovals): while held, remove() notes the key instead
 * of removing it; releasing the hold returns the noted keys. One hold at a time.
 */
export interface RemovalHold {
  /** Note the key if removals are held; true when the caller must not remove it now. */
  defer(key: string): boolean;
  /** Start holding; the returned function ends the hold and returns the keys noted meanwhile. */
  hold(): () => string[];
}

export function createRemovalHold(): RemovalHold {
  /** While a backup copies the store: keys whose removal waits (undefined: removals run at once). */
  let held: Set<string> | undefined;
  return {
    defer(key) {
      if (!held) return false;
      held.add(key);
      return true;
    },
    hold() {
      if (held) throw new Error("Removals are already held (a backup is running).");
      const keys = new Set<string>();
      held = keys;
      return () => {
        held = undefined;
        return [...keys];
      };
    },
  };
}
