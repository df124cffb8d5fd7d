/**
 * Object bytes on disk. Bytes are streamed to files under the data dir and never held whole in
 * memory. Files are named by random ids, never by object key, so no key (`../`, NUL, ...) can
 * reach a path outside the folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface WrittenBlob {
  /** File name inside the blob folder. */
  id: string;
  size: number;
  /** Binary MD5 of the bytes (multipart ETags hash the part MD5s). */
  md5: Buffer;
}

/** Thrown when a stream grows past its byte limit; the partial file is removed. */
export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

export class BlobStore {
  private readonly folder: string;
  private ready: Promise<void> | undefined;
  /** Open readers per blob: a replaced or deleted object's file is removed after its last reader. */
  private readonly readers = new Map<string, number>();
  private readonly doomed = new Set<string>();

  constructor(dataDir: string) {
    this.folder = join(dataDir, 'storage-objects');
  }

  private async ensureFolder(): Promise<void> {
    this.ready ??= mkdir(this.folder, { recursive: true }).then(() => undefined);
    await this.ready;
  }

  private pathOf(id: string): string {
    return join(this.folder, id);
  }

  /** Streams `source` into a new blob, hashing as it goes; at most `limit` bytes. */
  async write(source: Readable, limit: number): Promise<WrittenBlob> {
    await this.ensureFolder();
    const id = randomBytes(12).toString('hex');
    const temporary = this.pathOf(`${id}.partial`);
    const hash = createHash('md5');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > limit) return callback(new BlobTooLargeError(limit));
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(temporary));
      // Renamed only when complete, so a half-written upload is never visible as a blob.
      await rename(temporary, this.pathOf(id));
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { id, size, md5: hash.digest() };
  }

  /**
   * Joins blobs in the given order into a new blob (multipart completion, copies). Not hashed: a
   * multipart ETag hashes the parts' MD5s, a copy keeps its source's (hashing the whole took
   * 0.2 s of the embedded server's 4 s of CPU in a profiled full run, for nothing).
   */
  async concat(ids: readonly string[]): Promise<Omit<WrittenBlob, 'md5'>> {
    await this.ensureFolder();
    const id = randomBytes(12).toString('hex');
    const temporary = this.pathOf(`${id}.partial`);
    let size = 0;
    const out = createWriteStream(temporary);
    try {
      for (const part of ids) {
        const input = createReadStream(this.pathOf(part));
        for await (const chunk of input as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        }
      }
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      await rename(temporary, this.pathOf(id));
    } catch (error) {
      out.destroy();
      await rm(temporary, { force: true });
      throw error;
    }
    return { id, size };
  }

  /**
   * A read stream of the blob. The blob stays on disk until the stream closes, even if the
   * object is replaced or deleted meanwhile.
   */
  read(id: string): Readable {
    this.readers.set(id, (this.readers.get(id) ?? 0) + 1);
    const stream = createReadStream(this.pathOf(id));
    stream.once('close', () => {
      const left = (this.readers.get(id) ?? 1) - 1;
      if (left > 0) {
        this.readers.set(id, left);
        return;
      }
      this.readers.delete(id);
      if (this.doomed.delete(id)) this.unlink(id);
    });
    return stream;
  }

  /** Removes a blob now, or after its last reader. */
  remove(id: string): void {
    if ((this.readers.get(id) ?? 0) > 0) {
      this.doomed.add(id);
      return;
    }
    this.unlink(id);
  }

  private unlink(id: string): void {
    // Best effort: a file that cannot be removed only costs disk space, never a request.
    rm(this.pathOf(id), { force: true }).catch(() => undefined);
  }
}
