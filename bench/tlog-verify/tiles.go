package main

// Tiles mode: the log as its public C2SP tlog-tiles URLs serve it (GET <base>checkpoint,
// <base>tile/<L>/<N>[.p/<W>], <base>tile/entries/<N>[.p/<W>]), checked with tlog.TileHashReader,
// which accepts a tile only when its hashes lead to the signed root: every inclusion proof and the
// consistency proof are built here from the tiles (tlog.ProveRecord, tlog.ProveTree) and checked
// against the checkpoint (tlog.CheckRecord, tlog.CheckTree), and every entry of the entry bundles
// (big-endian uint16 length, then the leaf data) is hashed and proven included.

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

type tilesInput struct {
	// The log's base URL, ending in "/": e.g. http://host/v1/logs/<logId>/.
	Base string `json:"base"`
}

type httpTiles struct {
	base   string
	client *http.Client
}

// c2spPath turns x/mod's tile path (tile/<H>/<L or data>/<N>[.p/<W>], H = 8 here) into the C2SP
// tlog-tiles one (tile/<L or entries>/<N>[.p/<W>]): the same index encoding, no height.
func c2spPath(t tlog.Tile) string {
	rest := strings.TrimPrefix(t.Path(), "tile/8/")
	if strings.HasPrefix(rest, "data/") {
		rest = "entries/" + strings.TrimPrefix(rest, "data/")
	}
	return "tile/" + rest
}

func (h *httpTiles) get(path string) ([]byte, error) {
	res, err := h.client.Get(h.base + path)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, res.Status)
	}
	return body, nil
}

func (h *httpTiles) Height() int { return 8 }

func (h *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := h.get(c2spPath(t))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (h *httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// entries splits an entry bundle into its entries.
func entries(bundle []byte) ([][]byte, error) {
	var out [][]byte
	for len(bundle) > 0 {
		if len(bundle) < 2 {
			return nil, fmt.Errorf("a truncated length")
		}
		n := int(binary.BigEndian.Uint16(bundle))
		if len(bundle) < 2+n {
			return nil, fmt.Errorf("an entry of %d bytes with %d left", n, len(bundle)-2)
		}
		out = append(out, bundle[2:2+n])
		bundle = bundle[2+n:]
	}
	return out, nil
}

// verifyTiles checks every entry of the log at the checkpoint's size, and the earlier checkpoint's
// consistency, from the tiles alone.
func verifyTiles(in tilesInput, size int64, root tlog.Hash, oldSize int64, oldRoot *tlog.Hash, out *output) {
	h := &httpTiles{base: in.Base, client: &http.Client{Timeout: 20 * time.Second}}
	thr := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, h)
	for n := int64(0); n*256 < size; n++ {
		w := min(size-n*256, 256)
		tile := tlog.Tile{H: 8, L: -1, N: n, W: int(w)}
		bundle, err := h.get(c2spPath(tile))
		if err == nil {
			var list [][]byte
			list, err = entries(bundle)
			if err == nil && int64(len(list)) != w {
				err = fmt.Errorf("%d entries, not %d", len(list), w)
			}
			for i, e := range list {
				index := n*256 + int64(i)
				proof, perr := tlog.ProveRecord(size, index, thr)
				if perr == nil {
					perr = tlog.CheckRecord(proof, size, root, index, tlog.RecordHash(e))
				}
				if perr != nil {
					out.Problems = append(out.Problems, fmt.Sprintf("tiles: entry %d: %v", index, perr))
				} else {
					out.Checked = append(out.Checked, fmt.Sprintf("tiles: entry %d included in the tree of %d", index, size))
				}
			}
		}
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("tiles: entries %s: %v", c2spPath(tile), err))
		}
	}
	if oldRoot != nil && oldSize > 0 && oldSize <= size {
		proof, err := tlog.ProveTree(size, oldSize, thr)
		if err == nil {
			err = tlog.CheckTree(proof, size, root, oldSize, *oldRoot)
		}
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("tiles: consistency: from %d to %d: %v", oldSize, size, err))
		} else {
			out.Checked = append(out.Checked, fmt.Sprintf("tiles: consistency: the tree of %d extends the tree of %d", size, oldSize))
		}
	}
}
