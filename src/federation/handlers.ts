/** Every kind of background task a node runs, and its handler. */
import type { TaskHandlers } from "../tasks/worker.ts";

export const taskHandlers: TaskHandlers = {};
