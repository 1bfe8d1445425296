/**
 * A local server speaking Paystack's documented API (https://paystack.com/docs/api/): bearer secret
 * key, `{status, message, data}` envelopes, amounts in minor units, references unique. It keeps
 * state so a test can move a transaction or transfer (as Paystack's dashboard or bank would) and
 * sends webhooks signed `x-paystack-signature` (hex HMAC-SHA512 of the raw body with the secret key).
 * Besides the platform's key it may accept other integrations' keys (a tenant's own Paystack
 * account); each request records the key it came with.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface PaystackServer {
  url: string;
  requests: Array<{ method: string; path: string; body: any; key: string }>;
  transactions: Map<
    string,
    {
      reference: string;
      amount: number;
      currency: string;
      email: string;
      status: string;
      subaccount?: string;
      id: number;
    }
  >;
  transfers: Map<
    string,
    {
      reference: string;
      amount: number;
      currency: string;
      recipient: string;
      status: string;
      transfer_code: string;
      id: number;
    }
  >;
  balance: Map<string, number>;
  /** Paths (e.g. `/transfer`) whose next request answers 500 without doing anything. */
  failNext: Set<string>;
  /** A signed webhook body for `event` about `data`. */
  signed: (event: string, data: object, secret?: string) => { body: string; signature: string };
  stop: () => Promise<void>;
}

const ACCOUNTS: Record<string, string> = { "0123456789": "ADA OBI", "0987654321": "TUNDE BAKARE" };

export async function startPaystack(secretKey: string, otherKeys: string[] = []): Promise<PaystackServer> {
  const keys = new Set([secretKey, ...otherKeys]);
  let ids = 1000;
  const s: Omit<PaystackServer, "url" | "stop"> = {
    requests: [],
    transactions: new Map(),
    transfers: new Map(),
    balance: new Map([["NGN", 5_000_000]]),
    failNext: new Set(),
    signed: (event, data, secret = secretKey) => {
      const body = JSON.stringify({ event, data });
      return { body, signature: createHmac("sha512", secret).update(body).digest("hex") };
    },
  };
  const recipients = new Map<string, { account_number: string; bank_code: string; name: string }>();
  const reply = (res: ServerResponse, http: number, status: boolean, message: string, data?: unknown) => {
    res.writeHead(http, { "content-type": "application/json" });
    res.end(JSON.stringify({ status, message, ...(data === undefined ? {} : { data }) }));
  };
  const transfer = (t: { amount: number; currency: string; recipient: string; reference: string; reason?: string }) => {
    const existing = s.transfers.get(t.reference);
    if (existing) return existing;
    const row = {
      ...t,
      status: t.recipient.endsWith("CLOSED") ? "failed" : "pending",
      transfer_code: `TRF_${++ids}`,
      id: ids,
    };
    s.transfers.set(t.reference, row);
    s.balance.set(t.currency, (s.balance.get(t.currency) ?? 0) - t.amount);
    return row;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = raw ? JSON.parse(raw) : undefined;
    const url = new URL(req.url ?? "/", "http://paystack");
    const key = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
    s.requests.push({ method: req.method ?? "", path: url.pathname + url.search, body, key });
    if (!keys.has(key)) return reply(res, 401, false, "Invalid key");
    if (s.failNext.delete(url.pathname)) return reply(res, 500, false, "An error occurred");
    const route = `${req.method} ${url.pathname}`;
    if (route === "POST /transaction/initialize") {
      if (!body.email || !Number.isInteger(body.amount))
        return reply(res, 400, false, "Invalid Email Address or Amount");
      if (s.transactions.has(body.reference)) return reply(res, 400, false, "Duplicate Transaction Reference");
      s.transactions.set(body.reference, { ...body, status: "abandoned", id: ++ids });
      return reply(res, 200, true, "Authorization URL created", {
        authorization_url: `https://checkout.paystack.com/${body.reference.toLowerCase()}`,
        access_code: `ac_${ids}`,
        reference: body.reference,
      });
    }
    let m = /^\/transaction\/verify\/(.+)$/.exec(url.pathname);
    if (req.method === "GET" && m) {
      const tx = s.transactions.get(decodeURIComponent(m[1]));
      if (!tx) return reply(res, 400, false, "Transaction reference not found");
      return reply(res, 200, true, "Verification successful", {
        ...tx,
        gateway_response: tx.status === "failed" ? "Declined" : "Successful",
      });
    }
    if (route === "GET /bank/resolve") {
      const name = ACCOUNTS[url.searchParams.get("account_number") ?? ""];
      if (!name || !url.searchParams.get("bank_code"))
        return reply(res, 422, false, "Could not resolve account name. Check parameters or try again.");
      return reply(res, 200, true, "Account number resolved", {
        account_number: url.searchParams.get("account_number"),
        account_name: name,
        bank_id: 9,
      });
    }
    if (route === "POST /transferrecipient") {
      const code = `RCP_${body.account_number}${body.account_number === "0987654321" ? "CLOSED" : ""}`;
      recipients.set(code, { account_number: body.account_number, bank_code: body.bank_code, name: body.name });
      return reply(res, 201, true, "Transfer recipient created successfully", {
        recipient_code: code,
        type: body.type,
        currency: body.currency,
        details: { account_number: body.account_number, bank_code: body.bank_code, bank_name: "Guaranty Trust Bank" },
      });
    }
    if (route === "POST /transfer") {
      if (!recipients.has(body.recipient)) return reply(res, 400, false, "Recipient specified is invalid");
      const t = transfer({ ...body, currency: body.currency ?? "NGN" });
      return reply(res, 200, true, "Transfer has been queued", t);
    }
    if (route === "POST /transfer/bulk") {
      const data = body.transfers.map((t: any) => {
        const row = transfer({ ...t, currency: body.currency });
        return {
          reference: row.reference,
          recipient: row.recipient,
          amount: row.amount,
          transfer_code: row.transfer_code,
          currency: row.currency,
          status: row.status,
        };
      });
      return reply(res, 200, true, `${data.length} transfers queued.`, data);
    }
    m = /^\/transfer\/verify\/(.+)$/.exec(url.pathname);
    if (req.method === "GET" && m) {
      const t = s.transfers.get(decodeURIComponent(m[1]));
      if (!t) return reply(res, 400, false, "Transfer not found");
      return reply(res, 200, true, "Transfer retrieved", t);
    }
    if (route === "GET /balance") {
      return reply(
        res,
        200,
        true,
        "Balances retrieved",
        [...s.balance].map(([currency, balance]) => ({ currency, balance })),
      );
    }
    return reply(res, 404, false, "Not found");
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => reply(res, 500, false, "error"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { ...s, url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}
