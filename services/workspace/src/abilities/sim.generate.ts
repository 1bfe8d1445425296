/**
 * @module workspace/abilities/sim.generate
 * Writes deterministic synthetic contacts, leads (with status histories) and tasks for a vertical
 * into a fresh sandbox sub-tenant `<tenant>/sim-<id>`, so a team can try a vertical without touching
 * real records. The sandbox is read like any sub-tenant: a key with the sub-tenant flag sends
 * `context.tenantId: "sim-<id>"`. The vertical's surface must pass lint. Result
 * `{simId, tenant, subTenant, vertical, seed, size, counts}`; everything is written in one
 * transaction, so a simulation is either complete or absent.
 */
import { randomInt } from "node:crypto";
import { idempotentCreate, notFound } from "@gantry/kit";
import { toMinor } from "@gantry/kit/money.ts";
import { ability } from "../context.ts";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { simOut } from "../records.ts";
import { servableManifest } from "../verticals/manifests.ts";
import { planSimulation } from "../sim/plan.ts";

export default ability("sim.generate", async (input, call, ctx) => {
  const manifest = await servableManifest(ctx.verticalsDir, input.vertical, "surface").catch((err) => {
    if (err?.code === "not_found") throw notFound("vertical", input.vertical, { path: "/input/vertical" });
    throw err;
  });
  // Without a seed one is drawn and recorded on the simulation; an idempotent replay returns that
  // simulation (the idempotency hash covers the input as sent, so it never depends on the draw).
  const seed = input.seed ?? randomInt(0, 2_147_483_647);
  const id = newId("simulation");
  const sandbox = `${call.tenant}/sim-${id.slice(4).toLowerCase()}`;
  const now = ctx.now();

  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "sim.generate",
    input,
    recordId: id,
    txOptions: { timeout: 30_000, maxWait: 10_000 },
    create: async (tx) => {
      const plan = planSimulation(manifest, seed, input.size);
      const total = plan.contacts.length + plan.leads.length + plan.tasks.length;
      let tick = 0;
      // Each record gets its own millisecond, in plan order, so lists show the plan deterministically.
      const at = () => new Date(now.getTime() - total + tick++);
      const contactIds = plan.contacts.map(() => newId("contact"));
      const contacts = plan.contacts.map((c, i) => {
        const t = at();
        return {
          id: contactIds[i],
          tenant: sandbox,
          name: c.name,
          email: c.email,
          phone: c.phone,
          company: c.company,
          metadata: c.metadata,
          vertical: input.vertical,
          createdAt: t,
          updatedAt: t,
        };
      });
      const leadRows: object[] = [];
      const leadEvents: object[] = [];
      for (const l of plan.leads) {
        const t = at();
        const id = newId("lead");
        const status = l.path[l.path.length - 1];
        leadRows.push({
          id,
          tenant: sandbox,
          name: l.name,
          contactId: l.contactIndex === null ? null : contactIds[l.contactIndex],
          email: l.contactIndex === null ? null : plan.contacts[l.contactIndex].email,
          company: l.contactIndex === null ? null : plan.contacts[l.contactIndex].company,
          source: l.source,
          valueMinor: l.value ? toMinor(l.value.amount, l.value.currency, "/sim/value") : null,
          valueCurrency: l.value?.currency ?? null,
          notes: null,
          status,
          vertical: input.vertical,
          createdAt: t,
          updatedAt: t,
          closedAt: status === "won" || status === "lost" ? t : null,
        });
        l.path.forEach((s, k) => {
          leadEvents.push({
            leadId: id,
            tenant: sandbox,
            fromStatus: k === 0 ? null : l.path[k - 1],
            toStatus: s,
            reason: k === 0 ? null : "simulation",
            keyId: call.keyId || null,
            requestId: call.requestId || null,
            at: t,
          });
        });
      }
      const taskRows: object[] = [];
      const taskEvents: object[] = [];
      for (const tk of plan.tasks) {
        const t = at();
        const id = newId("task");
        const status = tk.path[tk.path.length - 1];
        taskRows.push({
          id,
          tenant: sandbox,
          title: tk.title,
          assignedTo: tk.assignedTo,
          dueAt: new Date(now.getTime() + tk.dueInHours * 3_600_000),
          priority: tk.priority,
          status,
          vertical: input.vertical,
          createdAt: t,
          updatedAt: t,
          closedAt: status === "done" || status === "cancelled" ? t : null,
        });
        tk.path.forEach((s, k) => {
          taskEvents.push({
            taskId: id,
            tenant: sandbox,
            fromStatus: k === 0 ? null : tk.path[k - 1],
            toStatus: s,
            note: k === 0 ? null : "simulation",
            keyId: call.keyId || null,
            requestId: call.requestId || null,
            at: t,
          });
        });
      }
      const counts = { contacts: contacts.length, leads: leadRows.length, tasks: taskRows.length };
      const sim = await tx.simulation.create({
        data: {
          id,
          tenant: call.tenant,
          vertical: input.vertical,
          seed,
          size: input.size,
          sandboxTenant: sandbox,
          counts,
          createdAt: now,
          updatedAt: now,
        },
      });
      if (contacts.length) await tx.contact.createMany({ data: contacts });
      if (leadRows.length) await tx.lead.createMany({ data: leadRows as never });
      if (leadEvents.length) await tx.leadEvent.createMany({ data: leadEvents as never });
      if (taskRows.length) await tx.task.createMany({ data: taskRows as never });
      if (taskEvents.length) await tx.taskEvent.createMany({ data: taskEvents as never });
      return simOut(sim);
    },
    replay: async (recordId) => {
      const row = await ctx.db.simulation.findFirst({ where: { id: recordId, tenant: call.tenant } });
      if (!row) throw notFound("simulation", recordId);
      return simOut(row);
    },
  });
  return result;
});
