/** What the node logs through: pino's call shape, details first, then the message (made in `src/context/logger.ts`). */
export interface NodeLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}
