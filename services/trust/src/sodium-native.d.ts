/** The slice of `sodium-native` (libsodium's Node binding) signing.ts uses. The package ships no types. */
declare module "sodium-native" {
  const sodium: {
    crypto_sign_BYTES: number;
    crypto_sign_PUBLICKEYBYTES: number;
    crypto_sign_SECRETKEYBYTES: number;
    /** Memory from libsodium's sodium_malloc: locked, between guard pages, zeroed when freed. */
    sodium_malloc(size: number): Buffer;
    crypto_sign_seed_keypair(publicKey: Buffer, secretKey: Buffer, seed: Buffer): void;
    crypto_sign_detached(signature: Buffer, message: Buffer, secretKey: Buffer): void;
  };
  export default sodium;
}
