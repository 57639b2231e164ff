/**
 * Protobuf watch streams (wire-facts §2): each frame is a 4-byte big-endian length N and N
 * bytes of a raw meta.v1 WatchEvent {1: type, 2: RawExtension{1: raw}} with no magic and no
 * envelope of its own; raw is the object as a full protobuf body (magic + Unknown).
 */
import { decodeFields, encodeMessage, entryFor, isPlainObject } from "./codec.js";
import { type MessageDesc, messageDesc } from "./descriptors.js";
import { ProtobufFormatError } from "./errors.js";
import { META_PACKAGE } from "./schema.js";

// Looked up when first needed: the table is built on first use (descriptors.ts).
const WATCH_EVENT = (): MessageDesc => messageDesc(`${META_PACKAGE}.WatchEvent`);

export interface WatchFrameEvent {
  type: string;
  object: Record<string, unknown>;
}

/**
 * One frame for the event. The object must be of a kind with a protobuf form (throws
 * ProtobufFormatError otherwise): a real server never streams other kinds as protobuf, it
 * refuses the watch with 406 before the stream starts.
 */
export function encodeWatchFrame(type: string, obj: Record<string, unknown>): Uint8Array {
  if (typeof type !== "string") throw new ProtobufFormatError("watch event type must be a string");
  if (!isPlainObject(obj)) throw new ProtobufFormatError("watch event object must be an object");
  const { kind, apiVersion } = entryFor(obj);
  if (kind === "" || apiVersion === "") throw new ProtobufFormatError("watch event object needs apiVersion and kind");
  const body = encodeMessage(WATCH_EVENT(), { type, object: obj }, "WatchEvent");
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, 4);
  return frame;
}

export interface WatchFrameReaderOptions {
  /**
   * Largest frame accepted, in bytes (default 64 MiB). Our own guard against a corrupt length
   * making the reader buffer without bound; the wire format itself allows up to 4 GiB.
   */
  maxFrameBytes?: number;
}

/**
 * Incremental reader of a protobuf watch stream: feed chunks as they arrive, get the events
 * whose frames are complete. After a ProtobufFormatError the stream is unusable (framing is
 * lost), and every later call throws again.
 */
export class WatchFrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private failure: ProtobufFormatError | undefined;
  private readonly maxFrameBytes: number;

  constructor(options: WatchFrameReaderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? 64 * 1024 * 1024;
  }

  /** Bytes received that do not yet form a complete frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): WatchFrameEvent[] {
    if (this.failure) throw this.failure;
    if (!(chunk instanceof Uint8Array)) throw this.fail("a chunk must be a Uint8Array");
    if (chunk.length > 0) {
      // Copied: the caller may reuse its buffer while a partial frame waits here.
      this.chunks.push(chunk.slice());
      this.buffered += chunk.length;
    }
    const events: WatchFrameEvent[] = [];
    while (this.buffered >= 4) {
      const header = this.peek(4);
      const length = new DataView(header.buffer, header.byteOffset, 4).getUint32(0, false);
      if (length > this.maxFrameBytes) throw this.fail(`frame length ${length} exceeds the limit of ${this.maxFrameBytes} bytes`);
      if (this.buffered < 4 + length) break;
      this.take(4);
      events.push(this.decodeFrame(this.take(length)));
    }
    return events;
  }

  /** Call at the end of the stream: throws if a partial frame is left over. */
  end(): void {
    if (this.failure) throw this.failure;
    if (this.buffered > 0) throw this.fail(`stream ended inside a frame (${this.buffered} bytes left over)`);
  }

  private decodeFrame(body: Uint8Array): WatchFrameEvent {
    let event: Record<string, unknown>;
    try {
      event = decodeFields(WATCH_EVENT(), body, "WatchEvent");
    } catch (e) {
      if (e instanceof ProtobufFormatError) throw this.fail(`malformed frame: ${e.message}`);
      throw e;
    }
    const { type, object } = event;
    if (typeof type !== "string" || !isPlainObject(object)) throw this.fail("malformed frame: a watch event needs a type and an object");
    return { type, object };
  }

  private fail(message: string): ProtobufFormatError {
    this.failure = new ProtobufFormatError(`protobuf watch stream: ${message}`);
    return this.failure;
  }

  /** The first n buffered bytes, without consuming them. */
  private peek(n: number): Uint8Array {
    const first = this.chunks[0];
    if (first && first.length >= n) return first.subarray(0, n);
    return this.copyOut(n, false);
  }

  /** Removes and returns the first n buffered bytes. */
  private take(n: number): Uint8Array {
    const first = this.chunks[0];
    if (first && first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.buffered -= n;
      return out;
    }
    return this.copyOut(n, true);
  }

  private copyOut(n: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    let i = 0;
    while (at < n) {
      const c = this.chunks[i] as Uint8Array;
      const part = Math.min(c.length, n - at);
      out.set(c.subarray(0, part), at);
      at += part;
      if (consume) {
        if (part === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(part);
      } else {
        i++;
      }
    }
    if (consume) this.buffered -= n;
    return out;
  }
}
