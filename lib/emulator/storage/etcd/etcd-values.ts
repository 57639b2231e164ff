/**
 * Values in etcd as kube-apiserver stores them (wire-facts §21): built-in types as protobuf
 * (`k8s\0` + runtime.Unknown, §1.5) in their storage version; CRDs, APIServices and custom
 * resources as JSON. The emulator itself (the mirror, the in-memory store) keeps JSON text: this
 * is the translation at the etcd boundary, and reading gives back that exact text.
 *
 * Which keys hold a built-in type, and in which storage version, is the registry's knowledge:
 * it comes in as a function of the key (storage imports nothing above it).
 */
import { decodeObject, encodeObject, PROTOBUF_MAGIC, supportsProtobuf } from "../../../wire/protobuf/index.js";

/** How the emulator's stored JSON text of a key's type relates to the real server's storage version. */
export interface StorageVersionForm {
  /** The emulator's stored text in the storage version's JSON form (absent: the same). */
  toStorageVersion?(stored: string): string;
  /** Back from the storage version's JSON form to the emulator's stored text. */
  fromStorageVersion?(storageVersion: string): string;
}

/** The form of the built-in type stored under an emulator key (/registry/...); undefined: stored as JSON. */
export type StorageVersionForms = (key: string) => StorageVersionForm | undefined;

/** Translates values between the emulator's JSON text and etcd's bytes. */
export interface EtcdValueCodec {
  encode(key: string, value: string): Buffer;
  decode(key: string, value: Buffer): string;
}

/** Values as they are: JSON text (what EtcdStore writes without a codec). */
export const JSON_VALUES: EtcdValueCodec = {
  encode: (_key, value) => Buffer.from(value),
  decode: (_key, value) => value.toString("utf8"),
};

function isProtobuf(value: Uint8Array): boolean {
  return value.length >= 4 && PROTOBUF_MAGIC.every((b, i) => value[i] === b);
}

/**
 * The protobuf codec. A value is written as protobuf only when reading it back gives the very
 * text written (the emulator's answers must not depend on its store); anything else (a kind
 * without a protobuf form, a value the codec cannot carry exactly) stays JSON, which a real
 * server also reads (its storage decoder recognizes both).
 */
export function protobufValues(formOf: StorageVersionForms): EtcdValueCodec {
  const fromProtobuf = (key: string, value: Uint8Array): string => {
    const text = JSON.stringify(decodeObject(value));
    const from = formOf(key)?.fromStorageVersion;
    return from ? from(text) : text;
  };
  return {
    encode(key, value) {
      const form = formOf(key);
      if (!form) return Buffer.from(value);
      try {
        const object = JSON.parse(form.toStorageVersion ? form.toStorageVersion(value) : value) as Record<string, unknown>;
        const { apiVersion, kind } = object;
        if (typeof apiVersion !== "string" || typeof kind !== "string" || !supportsProtobuf(apiVersion, kind)) return Buffer.from(value);
        const bytes = encodeObject(object);
        if (fromProtobuf(key, bytes) === value) return Buffer.from(bytes);
      } catch {
        // Not carried exactly by the protobuf form: JSON below.
      }
      return Buffer.from(value);
    },
    decode(key, value) {
      return isProtobuf(value) ? fromProtobuf(key, value) : value.toString("utf8");
    },
  };
}
