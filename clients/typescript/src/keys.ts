// Idempotency-Keys: a version-4 UUID (122 random bits), from `crypto.randomUUID` where the
// runtime has it, else from `crypto.getRandomValues` (React Native with the
// react-native-get-random-values polyfill, older browsers, insecure contexts). Never from
// Math.random: a guessable key would let another client replay a game's creation.

interface RandomSource {
  randomUUID?: () => string;
  getRandomValues?: <T extends ArrayBufferView | null>(array: T) => T;
}

export class NoRandomSourceError extends Error {
  override readonly name = "NoRandomSourceError";
  constructor() {
    super(
      "no secure random source for Idempotency-Keys: this runtime has neither " +
        "crypto.randomUUID nor crypto.getRandomValues. On React Native, install " +
        "react-native-get-random-values and import it first (`import " +
        '"react-native-get-random-values"`), or pass `idempotencyKey` to the client.',
    );
  }
}

/** A version-4 UUID made from 16 random bytes (RFC 9562, section 5.4). */
export function uuidV4FromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError("a UUID takes 16 bytes");
  const b = Uint8Array.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // variant 10
  const hex = Array.from(b, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh Idempotency-Key; throws NoRandomSourceError where no secure source exists. */
export function randomIdempotencyKey(
  crypto: RandomSource | undefined = (globalThis as { crypto?: RandomSource }).crypto,
): string {
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  if (typeof crypto?.getRandomValues === "function") {
    return uuidV4FromBytes(crypto.getRandomValues(new Uint8Array(16)));
  }
  throw new NoRandomSourceError();
}

/** True for a version-4 UUID in its canonical form (what the service takes as a key). */
export function isUuidV4(key: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(key);
}
