/**
 * A full rebuild on an empty index drops the secondary indexes until its end (rebuild-state.ts). SQLite refuses a
 * query naming one of them (`indexed by`): it then runs again without the hint.
 */
export async function unlessIndexDropped<T>(hinted: () => Promise<T>, plain: () => Promise<T>): Promise<T> {
  try {
    return await hinted();
  } catch (error) {
    if (!/no such index/.test((error as Error).message)) throw error;
    return plain();
  }
}
