/**
 * @module workspace/phone
 * Phone numbers normalised to E.164 without a phone-metadata library: separators are dropped, an
 * international `00` prefix becomes `+`, and the result must be `+`, an assigned ITU-T country
 * calling code, and a subscriber number, 8..15 digits in all. Numbers without a country code are
 * refused (a national number is ambiguous without knowing the country), with a message saying so.
 *
 * @example
 * normalizePhone("+234 803 123 4567"); // {ok: true, e164: "+2348031234567"}
 * normalizePhone("0803 123 4567");     // {ok: false, reason: "…include the country code…"}
 */

/** Assigned country calling codes (ITU-T E.164 list; +1 and +7 are shared zones). */
const CODES = new Set(
  (
    "1 7 20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98 " +
    "211 212 213 216 218 220 221 222 223 224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239 240 241 242 243 244 245 246 247 248 249 250 " +
    "251 252 253 254 255 256 257 258 260 261 262 263 264 265 266 267 268 269 290 291 297 298 299 " +
    "350 351 352 353 354 355 356 357 358 359 370 371 372 373 374 375 376 377 378 379 380 381 382 383 385 386 387 389 " +
    "420 421 423 500 501 502 503 504 505 506 507 508 509 590 591 592 593 594 595 596 597 598 599 " +
    "670 672 673 674 675 676 677 678 679 680 681 682 683 685 686 687 688 689 690 691 692 " +
    "800 808 850 852 853 855 856 870 878 880 881 882 883 886 888 " +
    "960 961 962 963 964 965 966 967 968 970 971 972 973 974 975 976 977 979 992 993 994 995 996 998"
  ).split(" "),
);

export type PhoneResult = { ok: true; e164: string } | { ok: false; reason: string };

export function normalizePhone(raw: string): PhoneResult {
  let s = raw.trim().replace(/[\s().-]/g, "");
  if (s.startsWith("00")) s = `+${s.slice(2)}`;
  if (!s.startsWith("+")) {
    return { ok: false, reason: "include the country code, e.g. +44 20 7946 0958 or 0044 20 7946 0958" };
  }
  const digits = s.slice(1);
  if (!/^[1-9][0-9]*$/.test(digits))
    return {
      ok: false,
      reason: "must be digits after the + (spaces, dots, dashes and brackets are allowed as separators)",
    };
  if (digits.length < 8 || digits.length > 15)
    return { ok: false, reason: `has ${digits.length} digits; E.164 numbers have 8 to 15 including the country code` };
  const code = [1, 2, 3].map((n) => digits.slice(0, n)).find((c) => CODES.has(c));
  if (!code)
    return { ok: false, reason: `+${digits.slice(0, 3)}… does not start with an assigned country calling code` };
  if (digits.length - code.length < 4) return { ok: false, reason: "is too short after the country code" };
  return { ok: true, e164: `+${digits}` };
}
