/**
 * @module memory/store/weaviate
 * The Weaviate vector store (`MEMORY_STORE=weaviate`, weaviate-client v3 over HTTP + gRPC).
 *
 * Layout: one Weaviate collection per Gantry collection (`<WEAVIATE_PREFIX>_<encoded name>`, e.g.
 * `Gantry_clinic_2dnotes`), Weaviate multi-tenancy with one Weaviate tenant per Gantry tenant (so a
 * tenant's objects live in their own shard and a query can only ever name one tenant), vectorizer
 * none (vectors come from Gantry's embedder), cosine distance, HNSW (or `flat` with
 * `WEAVIATE_INDEX=flat`, which is exact). Object ids are UUIDv5 of the Gantry memory id.
 *
 * Metadata is stored twice: whole, as JSON (`metadataJson`, returned as is), and as typed filterable
 * properties (`m_s_<key>` text with field tokenization, `m_n_<key>` number, `m_b_<key>` boolean)
 * created explicitly before first use, so equality on strings is exact and a key holding numbers in
 * one memory and strings in another cannot clash.
 *
 * Behaviour matches the Postgres store (same suite, `store.suite.ts`):
 *  - the Gantry filter is translated into a Weaviate filter that selects a superset of the matches
 *    (`$ne`/`$nin` are not pushed down), and every hit is checked again with the exact evaluator;
 *  - recency decay is applied to candidates fetched in decreasing similarity, page after page, until
 *    the next candidate's similarity (an upper bound of its score) cannot beat the k-th score, so the
 *    top-k is the same as an exhaustive ranking of what the index returns;
 *  - saves to one partition are serialised within the process (Weaviate has no transactions: two
 *    replicas saving near-duplicates at the same instant may both add one).
 */
import { createHash } from "node:crypto";
import weaviate, {
  Filters,
  generateUuid5,
  type Collection,
  type FilterValue,
  type WeaviateClient,
  type WeaviateReturn,
} from "weaviate-client";
import { GantryError, type Logger } from "@gantry/kit";
import { matches, type FilterNode, type Metadata, type Scalar } from "../filter.ts";
import {
  decay,
  TopK,
  type Hit,
  type PartitionInfo,
  type SaveRequest,
  type SaveResult,
  type SearchOptions,
  type StoredMemory,
  type VectorStore,
} from "./types.ts";
import { mixedModels } from "./refusals.ts";
import { planSave } from "./save-plan.ts";
import { KeyedLock } from "./keyed-lock.ts";

export interface WeaviateStoreOptions {
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  grpcPort: number;
  apiKey?: string;
  /** Collection name prefix (default `Gantry`); must start with an upper-case letter. */
  prefix?: string;
  index?: "hnsw" | "flat";
  log: Logger;
}

/** Weaviate's QUERY_MAXIMUM_RESULTS default: offset + limit may not exceed it. */
const MAX_RESULTS = 10_000;

const BASE_PROPERTIES = [
  "gantryId",
  "text",
  "vertical",
  "model",
  "dimensions",
  "createdAt",
  "updatedAt",
  "metadataJson",
] as const;

/** The memory's vertical: exact (field tokenization) and filterable. */
const VERTICAL_PROPERTY = {
  name: "vertical",
  dataType: "text",
  tokenization: "field",
  indexFilterable: true,
  indexSearchable: false,
} as const;

type Props = Record<string, unknown>;
/** The collections are schemaless to the client (properties are added per metadata key), so handles are untyped. */
type Handle = Collection;

/** Lower-case letters and digits pass; every other byte becomes `_` + two hex digits. Injective. */
export function encodeName(s: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    out += /[a-z0-9]/.test(c) ? c : `_${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** A Weaviate tenant name (`^[A-Za-z0-9_-]{1,64}$`) for a Gantry tenant; long ones are hashed (`H…`, never an encoded form). */
export function weaviateTenant(tenant: string): string {
  const enc = encodeName(tenant).replace(/_2d/g, "-");
  return enc.length <= 64 ? enc : `H${createHash("sha256").update(tenant).digest("hex").slice(0, 63)}`;
}

function propName(kind: "s" | "n" | "b", key: string): string {
  return `m_${kind}_${encodeName(key)}`;
}

function kindOf(v: Scalar): "s" | "n" | "b" {
  return typeof v === "string" ? "s" : typeof v === "number" ? "n" : "b";
}

type Translated = { kind: "all" } | { kind: "none" } | { kind: "filter"; filter: FilterValue };

export class WeaviateStore implements VectorStore {
  readonly name = "weaviate" as const;
  private client?: WeaviateClient;
  private readonly opts: WeaviateStoreOptions;
  private readonly prefix: string;
  /** Known filterable properties per Weaviate collection. */
  private readonly props = new Map<string, Set<string>>();
  /** One write at a time per partition within this process. */
  private readonly partitionLock = new KeyedLock();

  constructor(opts: WeaviateStoreOptions) {
    this.opts = opts;
    this.prefix = opts.prefix ?? "Gantry";
    if (!/^[A-Z][A-Za-z0-9]*$/.test(this.prefix))
      throw new Error(`WEAVIATE_PREFIX must match ^[A-Z][A-Za-z0-9]*$ (got ${this.prefix})`);
  }

  async start(): Promise<void> {
    const u = new URL(this.opts.url);
    const secure = u.protocol === "https:";
    this.client = await weaviate.connectToCustom({
      httpHost: u.hostname,
      httpPort: Number(u.port || (secure ? 443 : 80)),
      httpSecure: secure,
      grpcHost: u.hostname,
      grpcPort: this.opts.grpcPort,
      grpcSecure: secure,
      authCredentials: this.opts.apiKey ? new weaviate.ApiKey(this.opts.apiKey) : undefined,
    });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }

  private get c(): WeaviateClient {
    if (!this.client) throw new Error("weaviate store not started");
    return this.client;
  }

  collectionName(collection: string): string {
    return `${this.prefix}_${encodeName(collection)}`;
  }

  private uuid(id: string): string {
    return generateUuid5(id);
  }

  /** The tenant-bound collection handle, or undefined when the collection does not exist. */
  private async handle(tenant: string, collection: string, create = false): Promise<Handle | undefined> {
    const name = this.collectionName(collection);
    if (!this.props.has(name)) {
      let exists = await this.c.collections.exists(name);
      if (!exists && create) {
        await this.createCollection(name, collection);
        exists = true;
      }
      if (!exists) return undefined;
      const config = await this.c.collections.get(name).config.get();
      const known = new Set(config.properties.map((p) => p.name));
      // A collection created before memories had a vertical gets the property at its first use, so
      // every query may return and filter by it (objects saved before have none: null).
      if (!known.has(VERTICAL_PROPERTY.name)) {
        await this.addProperty(name, VERTICAL_PROPERTY);
        known.add(VERTICAL_PROPERTY.name);
      }
      this.props.set(name, known);
    }
    return this.c.collections.get(name).withTenant(weaviateTenant(tenant));
  }

  private async createCollection(name: string, collection: string): Promise<void> {
    const { configure } = weaviate;
    const vectorIndexConfig =
      this.opts.index === "flat"
        ? configure.vectorIndex.flat({ distanceMetric: "cosine" })
        : configure.vectorIndex.hnsw({ distanceMetric: "cosine" });
    try {
      await this.c.collections.create({
        name,
        description: `Gantry memory collection "${collection}"`,
        vectorizers: configure.vectors.selfProvided({ vectorIndexConfig }),
        multiTenancy: configure.multiTenancy({ enabled: true, autoTenantCreation: true, autoTenantActivation: true }),
        properties: [
          { name: "gantryId", dataType: "text", tokenization: "field" },
          { name: "text", dataType: "text" },
          { name: "model", dataType: "text", tokenization: "field" },
          VERTICAL_PROPERTY,
          { name: "dimensions", dataType: "int" },
          { name: "createdAt", dataType: "number" },
          { name: "updatedAt", dataType: "number" },
          { name: "metadataJson", dataType: "text", indexFilterable: false, indexSearchable: false },
        ],
      });
    } catch (err) {
      if (!/already exists/i.test(String(err))) throw err;
    }
  }

  /** Adds a property to the collection (another replica may race: "already exists" is fine). */
  private async addProperty(name: string, property: Parameters<Handle["config"]["addProperty"]>[0]): Promise<void> {
    try {
      await this.c.collections.get(name).config.addProperty(property);
    } catch (err) {
      if (!/already exists|exists/i.test(String(err))) throw err;
    }
  }

  /** Adds the typed metadata properties a save needs. */
  private async ensureProps(collection: string, metadata: Metadata): Promise<void> {
    const name = this.collectionName(collection);
    const known = this.props.get(name) ?? new Set<string>();
    for (const [key, value] of Object.entries(metadata)) {
      const kind = kindOf(value);
      const prop = propName(kind, key);
      if (known.has(prop)) continue;
      await this.addProperty(
        name,
        kind === "s"
          ? { name: prop, dataType: "text", tokenization: "field", indexFilterable: true, indexSearchable: false }
          : {
              name: prop,
              dataType: kind === "n" ? "number" : "boolean",
              indexFilterable: true,
              ...(kind === "n" ? { indexRangeFilters: true } : {}),
            },
      );
      known.add(prop);
    }
    this.props.set(name, known);
  }

  private properties(m: StoredMemory): Props {
    const p: Props = {
      gantryId: m.id,
      text: m.text,
      model: m.model,
      dimensions: m.dimensions,
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
      metadataJson: JSON.stringify(m.metadata),
      ...(m.vertical !== null ? { vertical: m.vertical } : {}),
    };
    for (const [k, v] of Object.entries(m.metadata)) p[propName(kindOf(v), k)] = v;
    return p;
  }

  private memoryOf(collection: string, props: Props): StoredMemory {
    return {
      id: String(props.gantryId),
      collection,
      text: String(props.text ?? ""),
      metadata: JSON.parse(String(props.metadataJson ?? "{}")) as Metadata,
      vertical: typeof props.vertical === "string" ? props.vertical : null,
      model: String(props.model),
      dimensions: Number(props.dimensions),
      createdAt: Number(props.createdAt),
      updatedAt: Number(props.updatedAt),
    };
  }

  private isMissingTenant(err: unknown): boolean {
    return /tenant not found|tenant.*(does not exist|not exist)|has multi-tenancy enabled, but request was without tenant|no such tenant/i.test(
      String(err).slice(0, 1000),
    );
  }

  /**
   * Translates the filter and the vertical (a property every collection has once {@link handle}
   * touched it); metadata properties unknown to this replica are looked up once more first
   * (another replica may have added them).
   */
  private async translateFresh(
    node: FilterNode | undefined,
    vertical: string | undefined,
    collection: string,
  ): Promise<Translated> {
    const missing: string[] = [];
    const first = this.translate(node, vertical, collection, missing);
    if (missing.length === 0) return first;
    const name = this.collectionName(collection);
    const config = await this.c.collections.get(name).config.get();
    this.props.set(name, new Set(config.properties.map((p) => p.name)));
    return this.translate(node, vertical, collection, []);
  }

  private translate(
    node: FilterNode | undefined,
    vertical: string | undefined,
    collection: string,
    missing: string[],
  ): Translated {
    const metadata = this.translateFilter(node, collection, missing);
    if (vertical === undefined || metadata.kind === "none") return metadata;
    const byVertical = this.c.collections
      .get(this.collectionName(collection))
      .filter.byProperty(VERTICAL_PROPERTY.name)
      .equal(vertical);
    return {
      kind: "filter",
      filter: metadata.kind === "filter" ? Filters.and(metadata.filter, byVertical) : byVertical,
    };
  }

  private translateFilter(node: FilterNode | undefined, collection: string, missing: string[]): Translated {
    if (!node) return { kind: "all" };
    const known = this.props.get(this.collectionName(collection)) ?? new Set<string>();
    const prop = (kind: "s" | "n" | "b", key: string) => {
      const name = propName(kind, key);
      if (known.has(name)) return name;
      missing.push(name);
      return undefined;
    };
    const by = (name: string) => this.c.collections.get(this.collectionName(collection)).filter.byProperty(name);
    const t = (n: FilterNode): Translated => {
      switch (n.kind) {
        case "and": {
          const parts = n.children.map(t);
          if (parts.some((p) => p.kind === "none")) return { kind: "none" };
          const fs = parts.flatMap((p) => (p.kind === "filter" ? [p.filter] : []));
          return fs.length === 0
            ? { kind: "all" }
            : { kind: "filter", filter: fs.length === 1 ? fs[0] : Filters.and(...fs) };
        }
        case "or": {
          const parts = n.children.map(t).filter((p) => p.kind !== "none");
          if (parts.length === 0) return { kind: "none" };
          if (parts.some((p) => p.kind === "all")) return { kind: "all" };
          const fs = parts.map((p) => (p as { filter: FilterValue }).filter);
          return { kind: "filter", filter: fs.length === 1 ? fs[0] : Filters.or(...fs) };
        }
        case "cond": {
          if (n.op === "ne" || n.op === "nin") return { kind: "all" };
          if (n.op === "eq" || n.op === "in") {
            const values = n.op === "eq" ? [n.value as Scalar] : (n.value as Scalar[]);
            const fs: FilterValue[] = [];
            for (const v of values) {
              const name = prop(kindOf(v), n.key);
              if (name) fs.push(by(name).equal(v as never));
            }
            if (fs.length === 0) return { kind: "none" };
            return { kind: "filter", filter: fs.length === 1 ? fs[0] : Filters.or(...fs) };
          }
          const name = prop("n", n.key);
          if (!name) return { kind: "none" };
          const f = by(name);
          const v = n.value as number;
          const filter =
            n.op === "gt"
              ? f.greaterThan(v)
              : n.op === "gte"
                ? f.greaterOrEqual(v)
                : n.op === "lt"
                  ? f.lessThan(v)
                  : f.lessOrEqual(v);
          return { kind: "filter", filter };
        }
      }
    };
    return t(node);
  }

  async partitionModel(tenant: string, collection: string): Promise<{ model: string; dimensions: number } | null> {
    const h = await this.handle(tenant, collection);
    if (!h) return null;
    try {
      const res = await h.query.fetchObjects({ limit: 1, returnProperties: ["model", "dimensions"] });
      const o = res.objects[0];
      return o
        ? { model: String((o.properties as Props).model), dimensions: Number((o.properties as Props).dimensions) }
        : null;
    } catch (err) {
      if (this.isMissingTenant(err)) return null;
      throw err;
    }
  }

  private async fetch(h: Handle, collection: string, uuid: string): Promise<StoredMemory | undefined> {
    try {
      const o = await h.query.fetchObjectById(uuid, { returnProperties: [...BASE_PROPERTIES] });
      return o ? this.memoryOf(collection, o.properties as Props) : undefined;
    } catch (err) {
      if (this.isMissingTenant(err)) return undefined;
      throw err;
    }
  }

  async save(req: SaveRequest): Promise<SaveResult> {
    return this.partitionLock.run(`${req.tenant}\u0000${req.collection}`, async () => {
      const h = (await this.handle(req.tenant, req.collection, true))!;
      const current = await this.partitionModel(req.tenant, req.collection);
      if (current && (current.model !== req.model || current.dimensions !== req.dimensions))
        throw mixedModels(req.collection, current.model, req.model);
      const { existing, ...result } = await planSave(req, {
        byId: (id) => this.fetch(h, req.collection, this.uuid(id)),
        collectionOf: async (id) => (await this.get(req.tenant, id))?.collection,
        nearest: () => this.nearest(h, req.collection, req.vector),
      });
      const { memory } = result;
      await this.ensureProps(req.collection, memory.metadata);
      const obj = {
        id: this.uuid(memory.id),
        properties: this.properties(memory),
        vectors: Array.from(req.vector),
      } as unknown as Parameters<Handle["data"]["replace"]>[0];
      if (existing) await h.data.replace(obj);
      else await h.data.insert(obj as Parameters<Handle["data"]["insert"]>[0]);
      return result;
    });
  }

  private async nearest(
    h: Handle,
    collection: string,
    vector: Float32Array,
  ): Promise<{ memory: StoredMemory; similarity: number } | undefined> {
    try {
      const res = await h.query.nearVector(Array.from(vector), {
        limit: 1,
        returnMetadata: ["distance"],
        returnProperties: [...BASE_PROPERTIES],
      });
      const o = res.objects[0];
      if (!o) return undefined;
      return { memory: this.memoryOf(collection, o.properties as Props), similarity: 1 - (o.metadata?.distance ?? 1) };
    } catch (err) {
      if (this.isMissingTenant(err)) return undefined;
      throw err;
    }
  }

  async search(tenant: string, collection: string, vector: Float32Array, opts: SearchOptions): Promise<Hit[]> {
    const h = await this.handle(tenant, collection);
    if (!h) return [];
    const translated = await this.translateFresh(opts.filter, opts.vertical, collection);
    if (translated.kind === "none") return [];
    const top = new TopK<Hit>(opts.limit);
    const pageSize = Math.max(64, opts.limit * 4);
    const q = Array.from(vector);
    for (let offset = 0; offset < MAX_RESULTS; offset += pageSize) {
      let objects: WeaviateReturn<undefined, undefined>["objects"];
      try {
        const res = await h.query.nearVector(q, {
          limit: Math.min(pageSize, MAX_RESULTS - offset),
          offset,
          filters: translated.kind === "filter" ? translated.filter : undefined,
          returnMetadata: ["distance"],
          returnProperties: [...BASE_PROPERTIES],
        });
        objects = res.objects;
      } catch (err) {
        if (this.isMissingTenant(err)) return [];
        throw err;
      }
      let lastSimilarity = 1;
      for (const o of objects) {
        const similarity = 1 - (o.metadata?.distance ?? 1);
        lastSimilarity = similarity;
        if (!(similarity > 0)) break;
        const m = this.memoryOf(collection, o.properties as Props);
        if (opts.vertical !== undefined && m.vertical !== opts.vertical) continue;
        if (opts.filter && !matches(opts.filter, m.metadata)) continue;
        const score = similarity * decay(m.updatedAt, opts.now, opts.halfLifeMs);
        top.push({ ...m, similarity, score });
      }
      if (objects.length < pageSize || !(lastSimilarity > 0)) break;
      const worst = top.threshold;
      if (worst && lastSimilarity < worst.score) break;
    }
    return top.sorted();
  }

  async get(tenant: string, id: string): Promise<StoredMemory | null> {
    const all = await this.c.collections.listAll();
    const uuid = this.uuid(id);
    for (const cfg of all) {
      if (!cfg.name.startsWith(`${this.prefix}_`)) continue;
      const collection = cfg.description?.match(/^Gantry memory collection "(.*)"$/)?.[1];
      if (collection === undefined || this.collectionName(collection) !== cfg.name) continue;
      const h = (await this.handle(tenant, collection))!;
      const m = await this.fetch(h, collection, uuid);
      if (m) return m;
    }
    return null;
  }

  async forgetIds(tenant: string, collection: string, ids: string[]): Promise<number> {
    return this.partitionLock.run(`${tenant}\u0000${collection}`, async () => {
      const h = await this.handle(tenant, collection);
      if (!h) return 0;
      let n = 0;
      for (const id of ids) {
        if (!(await this.fetch(h, collection, this.uuid(id)))) continue;
        if (await h.data.deleteById(this.uuid(id))) n++;
      }
      return n;
    });
  }

  async forgetWhere(tenant: string, collection: string, filter: FilterNode, dryRun: boolean): Promise<number> {
    return this.partitionLock.run(`${tenant}\u0000${collection}`, async () => {
      const h = await this.handle(tenant, collection);
      if (!h) return 0;
      const uuids: string[] = [];
      try {
        for await (const o of h.iterator({ returnProperties: ["gantryId", "metadataJson"] })) {
          const metadata = JSON.parse(String((o.properties as Props).metadataJson ?? "{}")) as Metadata;
          if (matches(filter, metadata)) uuids.push(o.uuid);
        }
      } catch (err) {
        if (this.isMissingTenant(err)) return 0;
        throw err;
      }
      if (dryRun || uuids.length === 0) return uuids.length;
      for (let i = 0; i < uuids.length; i += 100) {
        await h.data.deleteMany(h.filter.byId().containsAny(uuids.slice(i, i + 100)));
      }
      return uuids.length;
    });
  }

  async partitions(tenant?: string): Promise<PartitionInfo[]> {
    const out: PartitionInfo[] = [];
    for (const cfg of await this.c.collections.listAll()) {
      const collection = cfg.description?.match(/^Gantry memory collection "(.*)"$/)?.[1];
      if (collection === undefined || this.collectionName(collection) !== cfg.name) continue;
      const coll = this.c.collections.get(cfg.name);
      const tenants = Object.keys(await coll.tenants.get());
      for (const wt of tenants) {
        if (tenant !== undefined && wt !== weaviateTenant(tenant)) continue;
        const h = coll.withTenant(wt);
        const first = await h.query.fetchObjects({ limit: 1, returnProperties: ["model", "dimensions"] });
        const count = (await h.aggregate.overAll()).totalCount;
        const o = first.objects[0];
        if (!o) continue;
        out.push({
          tenant: tenant ?? wt,
          collection,
          model: String((o.properties as Props).model),
          dimensions: Number((o.properties as Props).dimensions),
          count,
        });
      }
    }
    return out;
  }

  async *scan(tenant: string, collection: string, batchSize: number): AsyncIterable<StoredMemory[]> {
    const h = await this.handle(tenant, collection);
    if (!h) return;
    let batch: StoredMemory[] = [];
    for await (const o of h.iterator({ returnProperties: [...BASE_PROPERTIES] })) {
      batch.push(this.memoryOf(collection, o.properties as Props));
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  async replaceVectors(
    tenant: string,
    collection: string,
    model: string,
    dimensions: number,
    vectors: Map<string, Float32Array>,
  ): Promise<void> {
    await this.partitionLock.run(`${tenant}\u0000${collection}`, async () => {
      const h = await this.handle(tenant, collection);
      if (!h) return;
      for (const [id, v] of vectors) {
        await h.data.update({ id: this.uuid(id), properties: { model, dimensions }, vectors: Array.from(v) });
      }
      let stale = 0;
      for await (const o of h.iterator({ returnProperties: ["model", "dimensions"] })) {
        if ((o.properties as Props).model !== model || Number((o.properties as Props).dimensions) !== dimensions)
          stale++;
      }
      if (stale > 0)
        throw new GantryError(
          "conflict",
          `${stale} memories of "${collection}" were saved while re-embedding and still use another model; run the re-embed again.`,
        );
    });
  }

  /** Drops the Weaviate collections this store created under its prefix (tests). */
  async dropAll(): Promise<void> {
    for (const cfg of await this.c.collections.listAll()) {
      if (cfg.name.startsWith(`${this.prefix}_`)) await this.c.collections.delete(cfg.name);
    }
    this.props.clear();
  }
}
