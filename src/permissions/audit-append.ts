import { writeSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'

/**
 * Appends `length` bytes of `buffer` through `handle`, all of them or a throw. A piece up to
 * `SYNC_APPEND_BYTES` is written synchronously, as pino's file destination does by default: the
 * audit log writes from a turn of its own (never inside a call), and a small append to a regular
 * file costs a few µs in the kernel where a write on libuv's thread pool costs a hand-off, a thread
 * wake-up and the loop's wake-up on its answer. What it saves: about 90 µs per batch of 8 (BENCHMARKS.md,
 * table 2, "batch of 8, its audit lines written"). Larger pieces (a burst of thousands of decisions)
 * go through the thread pool, so the event loop is never held for long.
 *
 * @example
 * await appendAll(handle, chunk, used)
 */
export async function appendAll(handle: FileHandle, buffer: Buffer, length: number): Promise<void> {
  for (let at = 0; at < length; ) {
    const rest = length - at
    const bytesWritten = rest <= SYNC_APPEND_BYTES ? writeSync(handle.fd, buffer, at, rest) : (await handle.write(buffer, at, rest)).bytesWritten
    if (bytesWritten === 0) throw new Error('nothing could be written')
    at += bytesWritten
  }
}

/** The largest piece written synchronously: 64 KiB, about 150 audit lines. */
export const SYNC_APPEND_BYTES = 64 * 1024
