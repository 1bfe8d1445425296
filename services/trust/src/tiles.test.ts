/**
 * The tlog-tiles paths the public log URLs accept: each tile in its one canonical spelling
 * (c2sp.org/tlog-tiles), anything else refused so a cache never holds two names for one tile.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeTileIndex, parseTilePath } from "./tiles.ts";

test("tile paths parse in their canonical spelling only", () => {
  assert.equal(encodeTileIndex(1234067), "x001/x234/067");
  assert.equal(encodeTileIndex(5), "005");
  assert.deepEqual(parseTilePath("tile/0/x001/x234/067"), { level: 0, index: 1234067, width: 256 });
  assert.deepEqual(parseTilePath("tile/1/000.p/7"), { level: 1, index: 0, width: 7 });
  assert.deepEqual(parseTilePath("tile/entries/x001/234.p/255"), { level: null, index: 1234, width: 255 });
  for (const bad of [
    "tile/0/1",
    "tile/0/x000/001",
    "tile/0/000.p/0",
    "tile/0/000.p/256",
    "tile/00/000",
    "tile/0/000/",
    "tile/4/000",
    "checkpointx",
    "tile/0/000.p",
  ])
    assert.equal(parseTilePath(bad), null, bad);
});
