// Command tlog-verify checks Gantry's receipt log with code Gantry did not write: Go's
// golang.org/x/mod/sumdb/note (C2SP signed notes, Ed25519) and golang.org/x/mod/sumdb/tlog
// (RFC 6962 Merkle trees: inclusion and consistency proofs).
//
// It reads one JSON object on stdin:
//
//	{
//	  "verifierKeys": ["<name>+<hash>+<base64(0x01 ‖ key)>", ...],  // note verifier keys, and/or
//	  "jwks": {"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "...", "x": "..."}]},
//	  "origin": "gantry.trust/receipts/<tenant>",   // optional: the log the checkpoint must be of
//	  "checkpoint": "<signed note>",                // trust.status's log.checkpoint
//	  "records": [{"index": 3, "data": "<leaf data>", "proof": ["<hex>", ...]}],
//	  "earlier": {"checkpoint": "<signed note>", "proof": ["<hex>", ...]},
//	  "tiles": {"base": "http://<gateway>/v1/logs/<logId>/"}
//	}
//
// A record gives its leaf as "data" (the bytes the leaf hashes: a receipt's envelope in canonical
// JSON) or as "leafHash" (hex). "proof" of a record is its inclusion proof (a receipt's
// inclusion.hashes); "proof" of "earlier" is the consistency proof from the earlier checkpoint to
// "checkpoint" (trust.status's log.consistency.hashes, asked with logFromSize). JWKS keys become
// note verifier keys with note.NewEd25519VerifierKey(kid, x).
//
// Checks: the checkpoint's signature (note.Open), each record's inclusion under the signed size and
// root (tlog.CheckRecord), and the earlier checkpoint's signature, origin and consistency with the
// later one (tlog.CheckTree). With "tiles" it reads the log from its public C2SP tlog-tiles URLs
// (tiles.go): the checkpoint from <base>checkpoint unless one is given, then every entry and the
// earlier checkpoint's consistency proven from the tiles alone ("proof" of "earlier" may then be
// omitted). Prints a JSON result; exits 0 when everything verifies, 1 when
// something does not, 2 when the input cannot be read.
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Kid string `json:"kid"`
	X   string `json:"x"`
}

type record struct {
	Index    int64    `json:"index"`
	Data     *string  `json:"data"`
	LeafHash string   `json:"leafHash"`
	Proof    []string `json:"proof"`
}

type input struct {
	VerifierKeys []string `json:"verifierKeys"`
	JWKS         *struct {
		Keys []jwk `json:"keys"`
	} `json:"jwks"`
	Origin     string   `json:"origin"`
	Checkpoint string   `json:"checkpoint"`
	Records    []record `json:"records"`
	Earlier    *struct {
		Checkpoint string   `json:"checkpoint"`
		Proof      []string `json:"proof"`
	} `json:"earlier"`
	Tiles *tilesInput `json:"tiles"`
}

type checkpoint struct {
	Origin   string   `json:"origin"`
	Size     int64    `json:"size"`
	Root     string   `json:"root"`
	SignedBy []string `json:"signedBy"`
}

type output struct {
	OK           bool        `json:"ok"`
	VerifierKeys []string    `json:"verifierKeys"`
	Checkpoint   *checkpoint `json:"checkpoint,omitempty"`
	Earlier      *checkpoint `json:"earlier,omitempty"`
	Checked      []string    `json:"checked"`
	Problems     []string    `json:"problems"`
}

func main() {
	raw, err := io.ReadAll(os.Stdin)
	var in input
	if err == nil {
		err = json.Unmarshal(raw, &in)
	}
	if err != nil {
		fail(fmt.Errorf("reading the input: %w", err))
	}
	out, err := verify(in)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	if !out.OK {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "tlog-verify: %v\n", err)
	os.Exit(2)
}

func verify(in input) (*output, error) {
	out := &output{VerifierKeys: []string{}, Checked: []string{}, Problems: []string{}}
	vkeys := append([]string{}, in.VerifierKeys...)
	if in.JWKS != nil {
		for _, k := range in.JWKS.Keys {
			if k.Kty != "OKP" || k.Crv != "Ed25519" {
				continue
			}
			pub, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
			if err != nil {
				return nil, fmt.Errorf("jwks key %q: x is not base64url: %w", k.Kid, err)
			}
			vkey, err := note.NewEd25519VerifierKey(k.Kid, ed25519.PublicKey(pub))
			if err != nil {
				return nil, fmt.Errorf("jwks key %q: %w", k.Kid, err)
			}
			vkeys = append(vkeys, vkey)
		}
	}
	var verifiers []note.Verifier
	for _, vkey := range vkeys {
		v, err := note.NewVerifier(vkey)
		if err != nil {
			return nil, fmt.Errorf("verifier key %q: %w", vkey, err)
		}
		verifiers = append(verifiers, v)
	}
	if len(verifiers) == 0 {
		return nil, fmt.Errorf("no verifier key: give verifierKeys or a jwks with an Ed25519 key")
	}
	out.VerifierKeys = vkeys
	known := note.VerifierList(verifiers...)

	if in.Checkpoint == "" && in.Tiles != nil {
		body, err := (&httpTiles{base: in.Tiles.Base, client: http.DefaultClient}).get("checkpoint")
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("checkpoint: %v", err))
			return out, nil
		}
		in.Checkpoint = string(body)
	}
	later, size, root, problem := open("checkpoint", in.Checkpoint, known)
	if problem != "" {
		out.Problems = append(out.Problems, problem)
		return out, nil
	}
	out.Checkpoint = later
	out.Checked = append(out.Checked, fmt.Sprintf("checkpoint: signed by %s, %s size %d", strings.Join(later.SignedBy, ", "), later.Origin, later.Size))
	if in.Origin != "" && later.Origin != in.Origin {
		out.Problems = append(out.Problems, fmt.Sprintf("checkpoint: of the log %q, not %q", later.Origin, in.Origin))
	}

	for i, r := range in.Records {
		what := fmt.Sprintf("record %d (leaf %d)", i, r.Index)
		var leaf tlog.Hash
		switch {
		case r.Data != nil:
			leaf = tlog.RecordHash([]byte(*r.Data))
		case r.LeafHash != "":
			h, err := hashOf(r.LeafHash)
			if err != nil {
				return nil, fmt.Errorf("%s: leafHash: %w", what, err)
			}
			leaf = h
		default:
			return nil, fmt.Errorf("%s: give data or leafHash", what)
		}
		proof, err := hashesOf(r.Proof)
		if err != nil {
			return nil, fmt.Errorf("%s: proof: %w", what, err)
		}
		if r.Index < 0 || r.Index >= size {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: outside the checkpoint's %d leaves", what, size))
		} else if err := tlog.CheckRecord(tlog.RecordProof(proof), size, root, r.Index, leaf); err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: inclusion: %v", what, err))
		} else {
			out.Checked = append(out.Checked, fmt.Sprintf("%s: included in the tree of %d", what, size))
		}
	}

	var oldSize int64
	var oldRoot *tlog.Hash
	if in.Earlier != nil {
		earlier, earlierSize, earlierRoot, problem := open("earlier checkpoint", in.Earlier.Checkpoint, known)
		oldSize = earlierSize
		if problem != "" {
			out.Problems = append(out.Problems, problem)
		} else if in.Tiles != nil && in.Earlier.Proof == nil {
			out.Earlier = earlier
			oldRoot = &earlierRoot
			if earlier.Origin != later.Origin {
				out.Problems = append(out.Problems, fmt.Sprintf("consistency: the checkpoints are of different logs (%q, %q)", earlier.Origin, later.Origin))
			}
		} else {
			oldRoot := earlierRoot
			out.Earlier = earlier
			proof, err := hashesOf(in.Earlier.Proof)
			if err != nil {
				return nil, fmt.Errorf("earlier: proof: %w", err)
			}
			switch {
			case earlier.Origin != later.Origin:
				out.Problems = append(out.Problems, fmt.Sprintf("consistency: the checkpoints are of different logs (%q, %q)", earlier.Origin, later.Origin))
			case oldSize > size:
				out.Problems = append(out.Problems, fmt.Sprintf("consistency: the earlier checkpoint (%d) is larger than the later (%d)", oldSize, size))
			case oldSize == 0:
				// The empty tree is a prefix of every tree; tlog.CheckTree takes sizes ≥ 1.
				out.Checked = append(out.Checked, "consistency: the earlier checkpoint is of the empty log")
			default:
				if err := tlog.CheckTree(tlog.TreeProof(proof), size, root, oldSize, oldRoot); err != nil {
					out.Problems = append(out.Problems, fmt.Sprintf("consistency: from %d to %d: %v", oldSize, size, err))
				} else {
					out.Checked = append(out.Checked, fmt.Sprintf("consistency: the tree of %d extends the tree of %d", size, oldSize))
				}
			}
		}
	}
	if in.Tiles != nil {
		verifyTiles(*in.Tiles, size, root, oldSize, oldRoot, out)
	}
	out.OK = len(out.Problems) == 0
	return out, nil
}

// open checks a checkpoint's signatures with note.Open and reads its body (c2sp.org/tlog-checkpoint:
// origin, decimal size, base64 root hash, then optional extension lines).
func open(what, text string, known note.Verifiers) (*checkpoint, int64, tlog.Hash, string) {
	n, err := note.Open([]byte(text), known)
	if err != nil {
		return nil, 0, tlog.Hash{}, fmt.Sprintf("%s: signature: %v", what, err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return nil, 0, tlog.Hash{}, fmt.Sprintf("%s: not a checkpoint (origin, size, root hash)", what)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return nil, 0, tlog.Hash{}, fmt.Sprintf("%s: the size %q is not a decimal number", what, lines[1])
	}
	rootBytes, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(rootBytes) != tlog.HashSize {
		return nil, 0, tlog.Hash{}, fmt.Sprintf("%s: the root hash %q is not base64 of %d bytes", what, lines[2], tlog.HashSize)
	}
	var root tlog.Hash
	copy(root[:], rootBytes)
	signers := []string{}
	for _, s := range n.Sigs {
		signers = append(signers, s.Name)
	}
	return &checkpoint{Origin: lines[0], Size: size, Root: hex.EncodeToString(root[:]), SignedBy: signers}, size, root, ""
}

func hashOf(s string) (tlog.Hash, error) {
	var h tlog.Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != tlog.HashSize {
		return h, fmt.Errorf("%q is not %d bytes of hex", s, tlog.HashSize)
	}
	copy(h[:], b)
	return h, nil
}

func hashesOf(list []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, 0, len(list))
	for _, s := range list {
		h, err := hashOf(s)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}
