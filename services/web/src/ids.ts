/**
 * @module web/ids
 * The web service's id prefixes (kit/src/data/ids.ts makes the ids): `cap_` a capture of an
 * official page, `art_` a screenshot (an artifact, as the catalogue names them).
 */
import { idMaker } from "@gantry/kit";

export const newId = idMaker({ capture: "cap", screenshot: "art" } as const);
