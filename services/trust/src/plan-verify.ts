/**
 * @module trust/plan-verify
 * plan.verify's judgement, pure so it can be read in one place: which receipts count as evidence
 * for which phase, and what each check's status becomes.
 *
 * - A receipt counts for a started phase when it is a receipt of the tenant (made under a run) whose
 *   ability and input hash match an action of the phase (an action whose input is not known matches
 *   on the ability alone). A phase that expects no action accepts any receipt of the tenant.
 * - A check that expects an ability passes on a succeeded receipt of it, fails when its only
 *   receipts failed, and stays pending without one. Other checks pass once the phase has a succeeded
 *   receipt. Evidence given earlier still counts.
 * - A phase is verified when every check passed, failed when one failed; a phase not started is
 *   reported, not changed.
 */
import { actionHashes } from "./permits.ts";
import type { StoredCheck, StoredPhase } from "./plans.ts";
import type { ReceiptView } from "./receipts.ts";

export interface ReceiptVerdict {
  requestId: string;
  accepted: boolean;
  reason: string | null;
}

export interface CheckVerdict extends Omit<StoredCheck, "expects"> {
  phaseId: string;
  reason: string | null;
}

function actionHash(action: StoredPhase["actions"][number]): string | null {
  if (!action.input) return null;
  try {
    return actionHashes([{ ability: action.ability, input: action.input }])[0]!;
  } catch {
    return null;
  }
}

function matches(phase: StoredPhase, r: ReceiptView): boolean {
  if (!phase.actions.length) return true;
  return phase.actions.some((a) => {
    if (a.ability !== r.ability) return false;
    const h = actionHash(a);
    return h === null || h === r.inputHash;
  });
}

const started = (p: StoredPhase) => p.status === "in_progress" || p.status === "failed" || p.status === "verified";

/** Judges the receipts given and re-evaluates the phases in scope (mutating them); returns the verdicts. */
export function judge(
  scope: StoredPhase[],
  receiptIds: readonly string[],
  views: ReadonlyMap<string, ReceiptView>,
  now: string,
): { receipts: ReceiptVerdict[]; checks: CheckVerdict[] } {
  const evidence = new Map<string, ReceiptView[]>(scope.map((p) => [p.id, []]));
  const receipts = receiptIds.map((id): ReceiptVerdict => {
    const r = views.get(id);
    if (!r) return { requestId: id, accepted: false, reason: "unknown: not a receipt of this tenant made under a run" };
    const phases = scope.filter((p) => matches(p, r));
    if (!phases.length)
      return {
        requestId: id,
        accepted: false,
        reason: `its ability (${r.ability}) and input hash match no action of the phase`,
      };
    const open = phases.filter(started);
    if (!open.length)
      return {
        requestId: id,
        accepted: false,
        reason: `it matches only phases not started yet (${phases.map((p) => p.id).join(", ")})`,
      };
    for (const p of open) evidence.get(p.id)!.push(r);
    return { requestId: id, accepted: true, reason: null };
  });

  const checks: CheckVerdict[] = [];
  for (const phase of scope) {
    if (!started(phase)) {
      for (const { expects: _e, ...c } of phase.checks)
        checks.push({ ...c, phaseId: phase.id, reason: `phase ${phase.id} has not been started (plan.execute)` });
      continue;
    }
    // Earlier evidence of the phase still counts.
    const known = new Map(evidence.get(phase.id)!.map((r) => [r.requestId, r]));
    for (const c of phase.checks)
      for (const id of c.evidence) {
        const r = views.get(id);
        if (r) known.set(id, r);
      }
    const all = [...known.values()];
    const succeeded = all.filter((r) => r.outcome === "succeeded");
    for (const c of phase.checks) {
      let reason: string | null = null;
      if (c.expects) {
        const ofAbility = all.filter((r) => r.ability === c.expects);
        const ok = ofAbility.filter((r) => r.outcome === "succeeded");
        if (ok.length) {
          c.status = "passed";
          c.evidence = ok.map((r) => r.requestId);
        } else if (ofAbility.length) {
          c.status = "failed";
          c.evidence = ofAbility.map((r) => r.requestId);
          reason = `the ${c.expects} call failed (HTTP ${ofAbility.map((r) => r.status).join(", ")})`;
        } else {
          c.status = "pending";
          reason = `no receipt of ${c.expects} given yet`;
        }
      } else if (succeeded.length) {
        c.status = "passed";
        c.evidence = succeeded.map((r) => r.requestId);
      } else {
        c.status = all.length ? "failed" : "pending";
        reason = all.length
          ? "every receipt given for the phase is of a failed call"
          : "no accepted receipt for the phase yet";
      }
      const { expects: _e, ...view } = c;
      checks.push({ ...view, phaseId: phase.id, reason });
    }
    if (phase.checks.every((c) => c.status === "passed")) {
      phase.status = "verified";
      phase.verified = now;
    } else if (phase.checks.some((c) => c.status === "failed")) phase.status = "failed";
  }
  return { receipts, checks };
}
