/**
 * @module content/abilities/skill.list
 * The skills skill.load can load — built-in and the tenant's own — by name, with only their name,
 * description and source (progressive disclosure: the body is loaded on demand). `query` matches
 * names and descriptions case-insensitively; pages use the kit's cursor (the last name listed).
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import { ability } from "../context.ts";
import { skillsFor } from "../skills.ts";

export default ability("skill.list", async (input, call, ctx) => {
  const q = input.query?.toLowerCase();
  const after = input.cursor ? decodeCursor(input.cursor, { n: "string" }).n : null;
  const all = (await skillsFor(ctx.skills, ctx.blobs, call.tenant, ctx.log)).filter(
    (s) => (!q || s.name.includes(q) || s.description.toLowerCase().includes(q)) && (after === null || s.name > after),
  );
  const items = all.slice(0, input.limit).map(({ name, description, source }) => ({ name, description, source }));
  const more = all.length > input.limit;
  return { items, nextCursor: more ? encodeCursor({ n: items[items.length - 1].name }) : null };
});
