import type { FileHandle } from 'node:fs/promises'

/**
 * Writes all of `content` through `handle`, from where the handle stands. A string goes to the file
 * without a Buffer of its own: `Buffer.from(text)` (and `handle.writeFile(text)`, which makes one)
 * leaves a copy of the whole text outside the JavaScript heap until the garbage collector gets to
 * it, so a burst of huge results (saved under `limits.results_dir`) held one such copy per result
 * at once. `handle.write(text)` encodes into a buffer freed as the write ends. What it saves: the
 * peak RSS of BENCHMARKS.md's memory table (4, "10,000 calls, 1 MB result each"). Resolves with the
 * bytes written.
 *
 * @example
 * const bytes = await writeWhole(handle, hugeText)
 */
export async function writeWhole(handle: FileHandle, content: string | Uint8Array): Promise<number> {
  if (typeof content !== 'string') {
    await handle.writeFile(content)
    return content.byteLength
  }
  const bytes = Buffer.byteLength(content, 'utf8')
  const { bytesWritten } = await handle.write(content, null, 'utf8')
  // A short write (rare for a regular file): the rest from the bytes, the only place that needs them.
  if (bytesWritten < bytes) await handle.writeFile(Buffer.from(content, 'utf8').subarray(bytesWritten))
  return bytes
}
