/** Progress of long commands on standard error: one line rewritten at most once a second, then a last one. */
export interface ProgressLine {
  /** Shows `text` if a second went by since the last one. */
  update(text: () => string): void;
  /** Shows `text` and ends the line. */
  finish(text: string): void;
}

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  let shown = 0;
  let open = false;
  return {
    update(text) {
      if (Date.now() - shown < 1000) return;
      shown = Date.now();
      open = true;
      stream.write(stream.isTTY ? `\r${text()}\x1b[K` : `${text()}\n`);
    },
    finish(text) {
      stream.write(open && stream.isTTY ? `\r${text}\x1b[K\n` : `${text}\n`);
      open = false;
    },
  };
}

export const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
