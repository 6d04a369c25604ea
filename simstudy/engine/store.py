"""The result store: raw rows in long format, as Parquet chunks with a manifest.

Layout of a run directory (default ``results/STUDY/PROFILE``)::

    manifest.json                      study, profile, config and its hash, root seed,
                                       package versions, timings, chunk checksums
    chunks/CONDITION/START-STOP/       one directory per chunk of replications
        TABLE.parquet                  the rows of each table the study returns
        chunk.json                     SHA-256 of every file, seconds, failures

A chunk is written into a hidden temporary directory and renamed into place only
when complete, so a chunk directory that exists was written whole; its
``chunk.json`` checksums also catch later damage.  A damaged chunk is treated as
missing, and the next run recomputes it.  The manifest is replaced atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["RunStore", "RunData", "load_run", "ConfigMismatch"]

CHUNK_META = "chunk.json"
MANIFEST = "manifest.json"


class ConfigMismatch(ValueError):
    """The output directory holds a run with a different configuration."""


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write_text(path: Path, text: str, *, fsync: bool = False):
    """Write to a temporary name, then rename: a reader sees the old or the new file, never half.

    ``fsync`` also survives a power cut (not only a killed process), at a cost
    of milliseconds per call; the final manifest of a run uses it.
    """
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "w") as f:
        f.write(text)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


def chunk_name(start: int, stop: int) -> str:
    return f"{start:07d}-{stop:07d}"


class RunStore:
    """Reads and writes one run directory."""

    def __init__(self, path):
        self.path = Path(path)

    # -- manifest -------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def read_manifest(self) -> dict | None:
        if not self.manifest_path.exists():
            return None
        try:
            return json.loads(self.manifest_path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"--out: {self.manifest_path} is not a valid manifest ({exc})") from None

    def write_manifest(self, manifest: dict, *, fsync: bool = False):
        self.path.mkdir(parents=True, exist_ok=True)
        _atomic_write_text(self.manifest_path, json.dumps(manifest, indent=1, sort_keys=True, default=str),
                           fsync=fsync)

    def check_compatible(self, config_hash: str, config: dict):
        """Refuse to mix runs: the directory must be empty or hold this very configuration."""
        old = self.read_manifest()
        if old is None:
            if self.path.exists() and any(self.path.iterdir()):
                raise ConfigMismatch(f"--out: {self.path} is not empty and holds no simstudy manifest; "
                                     "choose another directory")
            return
        if old.get("config_hash") != config_hash:
            diffs = [k for k in sorted(set(config) | set(old.get("config", {})))
                     if config.get(k) != old.get("config", {}).get(k)]
            raise ConfigMismatch(
                f"--out: {self.path} holds a run of {old.get('study')!r} (profile {old.get('profile')!r}) "
                f"with a different configuration (differs in: {', '.join(diffs) or 'hash'}); "
                "use another --out or delete that directory")

    # -- chunks ---------------------------------------------------------------
    def chunk_dir(self, condition: str, start: int, stop: int) -> Path:
        return self.path / "chunks" / condition / chunk_name(start, stop)

    def chunk_ok(self, condition: str, start: int, stop: int) -> bool:
        """True when the chunk exists and every file matches its recorded checksum."""
        d = self.chunk_dir(condition, start, stop)
        meta = d / CHUNK_META
        if not meta.exists():
            return False
        try:
            info = json.loads(meta.read_text())
            return all((d / f).exists() and sha256_file(d / f) == digest for f, digest in info["files"].items())
        except (OSError, ValueError, KeyError):
            return False

    def discard_chunk(self, condition: str, start: int, stop: int):
        shutil.rmtree(self.chunk_dir(condition, start, stop), ignore_errors=True)

    def write_chunk(self, condition: str, start: int, stop: int, tables: dict[str, pd.DataFrame],
                    extra: dict | None = None) -> dict:
        """Write a chunk atomically; returns its metadata (checksums)."""
        final = self.chunk_dir(condition, start, stop)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f".tmp-{chunk_name(start, stop)}-{uuid.uuid4().hex}"
        tmp.mkdir()
        files = {}
        for name, df in sorted(tables.items()):
            fname = f"{name}.parquet"
            df.to_parquet(tmp / fname, index=False)
            files[fname] = sha256_file(tmp / fname)
        meta = {"condition": condition, "start": start, "stop": stop, "files": files, **(extra or {})}
        _atomic_write_text(tmp / CHUNK_META, json.dumps(meta, indent=1, sort_keys=True))
        if final.exists():  # a damaged earlier copy
            shutil.rmtree(final)
        os.rename(tmp, final)
        return meta

    def clean_temporary(self):
        """Remove what an interrupted run left half-written."""
        root = self.path / "chunks"
        if root.exists():
            for d in root.glob("*/.tmp-*"):
                shutil.rmtree(d, ignore_errors=True)
        for f in self.path.glob(".*.tmp"):
            f.unlink(missing_ok=True)

    def read_chunk_table(self, condition: str, start: int, stop: int, table: str) -> pd.DataFrame | None:
        f = self.chunk_dir(condition, start, stop) / f"{table}.parquet"
        return pd.read_parquet(f) if f.exists() else None

    def chunk_tables(self, condition: str, start: int, stop: int) -> list[str]:
        d = self.chunk_dir(condition, start, stop)
        return sorted(p.stem for p in d.glob("*.parquet"))


@dataclass
class RunData:
    """The stored rows of a run, read lazily; what ``Study.summarize`` receives.

    ``table(name)`` concatenates that table over every complete chunk, in the
    canonical order (conditions as declared, then replication), so the result is
    the same whatever the number of workers, backend or interruptions.
    """

    path: Path
    manifest: dict
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def store(self) -> RunStore:
        return RunStore(self.path)

    def _chunks(self):
        """The complete, undamaged chunks (verified once per RunData)."""
        if "_ok" not in self._cache:
            self._cache["_ok"] = [c for c in self.manifest["plan"]
                                  if self.store.chunk_ok(c["condition"], c["start"], c["stop"])]
        return self._cache["_ok"]

    def tables(self) -> list[str]:
        if "_names" not in self._cache:
            names = set()
            for c in self._chunks():
                names.update(self.store.chunk_tables(c["condition"], c["start"], c["stop"]))
            self._cache["_names"] = sorted(names)
        return self._cache["_names"]

    def table(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            parts = [self.store.read_chunk_table(c["condition"], c["start"], c["stop"], name) for c in self._chunks()]
            parts = [p for p in parts if p is not None and len(p)]
            if not parts:
                if name in ("failures",):
                    self._cache[name] = pd.DataFrame(columns=["study", "condition", "replication", "seed", "error"])
                    return self._cache[name]
                raise KeyError(f"table {name!r}: no stored rows in {self.path} (tables: {', '.join(self.tables())})")
            self._cache[name] = pd.concat(parts, ignore_index=True)
        return self._cache[name]

    @property
    def failures(self) -> pd.DataFrame:
        return self.table("failures")

    def progress(self) -> pd.DataFrame:
        """Per condition: replications planned and stored."""
        rows = {}
        ok = {(c["condition"], c["start"]) for c in self._chunks()}
        for c in self.manifest["plan"]:
            r = rows.setdefault(c["condition"], {"condition": c["condition"], "planned": 0, "done": 0})
            r["planned"] += c["stop"] - c["start"]
            if (c["condition"], c["start"]) in ok:
                r["done"] += c["stop"] - c["start"]
        return pd.DataFrame(list(rows.values()))

    @property
    def complete(self) -> bool:
        return len(self._chunks()) == len(self.manifest["plan"])


def default_out(study: str, profile: str) -> Path:
    return Path("results") / study / profile


def load_run(study, profile: str = "quick", out=None) -> RunData:
    """The stored run of ``study`` at ``profile`` (from ``out`` or ``results/STUDY/PROFILE``)."""
    name = getattr(study, "name", study)
    path = Path(out) if out is not None else default_out(name, profile)
    manifest = RunStore(path).read_manifest()
    if manifest is None:
        raise ValueError(f"study {name!r}: no stored run in {path}; run `simstudy run {name} --profile {profile}` first")
    if manifest.get("study") != name:
        raise ValueError(f"--out: {path} holds study {manifest.get('study')!r}, not {name!r}")
    return RunData(path, manifest)
