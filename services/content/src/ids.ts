/**
 * @module content/ids
 * The content service's id prefixes (kit/src/data/ids.ts makes the ids): `msg_` a message,
 * `art_` a rendered document, `gde_` a guide.
 */
import { idMaker } from "@gantry/kit";

export const newId = idMaker({ message: "msg", artifact: "art", guide: "gde" });
