/**
 * The file system calls of the store's read streams, with every read counted for the minor collections that keep
 * large gets from setting off full ones (young-collection.ts). Counted where the bytes are read, not by a 'data'
 * listener, which would start the stream flowing before its consumer is attached.
 */
import { close, open, read } from "node:fs";
import { noteTransientBytes } from "./upload-ring/passing-chunks.ts";

type ReadCallback = (error: NodeJS.ErrnoException | null, bytesRead: number, buffer: Buffer) => void;

/** For `createReadStream(file, { fs: countedReads })`. */
export const countedReads = {
  open,
  close,
  read(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: number | null,
    done: ReadCallback,
  ) {
    read(fd, buffer, offset, length, position, (error, bytesRead, filled) => {
      if (!error) noteTransientBytes(bytesRead);
      done(error, bytesRead, filled);
    });
  },
};
