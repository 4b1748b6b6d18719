"""What made a study's numbers, for the header of its report: per dataset the base seed,
the engine fingerprint, the rules (what each arm changes from the official rules) and
the strategies, read from each dataset's manifest (``results.dataset.read_manifest``).

Datasets (and arms) that share a value are listed once with it, so a study of a hundred
board datasets still has a short header.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..results import dataset as D
from ..rules import Rules

OFFICIAL = Rules().to_header()  # as manifests hold them: first_turn resolved
LISTED = 4  # names listed before "and N more"


def provenance(roots: Mapping[str, Path]) -> list[tuple[str, str]]:
    """Header items ``(key, text)``: base seed, engine, rules, strategies, from the
    manifests of the datasets ``{name: folder}`` (in the given order); the rules and
    the strategies get one item per group of datasets that share them."""
    facts = {name: _facts(D.read_manifest(root)) for name, root in roots.items()}
    out = [(key, grouped({n: f[key] for n, f in facts.items()}, "datasets"))
           for key in ("base seed", "engine")]
    for key in ("rules", "strategies"):
        by = _by_value({n: f[key] for n, f in facts.items()})
        out += [(key if len(by) == 1 else f"{key}: {_names(ns, 'datasets')}", v)
                for v, ns in by.items()]
    return out


def _facts(m: dict) -> dict[str, str]:
    key = m.get("result_key", {})
    variants = key.get("variants", {})
    fp = m.get("engine_fingerprint")
    digest = m.get("games_digest")
    rotate = " (seats rotated game by game)" if key.get("rotate") else ""
    return {
        "base seed": str(m.get("base_seed", key.get("seed", "unknown"))),
        "engine": (f"fingerprint {fp}" if fp else "no fingerprint recorded (format 1)")
        + (f", games digest {digest}" if digest else ", no games digest recorded")
        + f", catansim {m.get('catansim_version', 'unknown')}",
        "rules": grouped({v: rules_text(x.get("rules", {})) for v, x in variants.items()},
                         "arms"),
        "strategies": grouped({v: lineup(x.get("strategies", [])) for v, x in
                               variants.items()}, "arms") + rotate,
    }


def rules_text(rules: Mapping) -> str:
    """``official`` or the settings that differ from it, e.g. ``shortage=strict``; a
    switch adds ``, after turn 40: robber=off``."""
    diff = [f"{k}={'none' if v is None else v}" for k, v in rules.items()
            if k in OFFICIAL and OFFICIAL[k] != v
            and not (k == "first_turn" and v == rules.get("first_pick", 0))]
    text = ", ".join(diff) if diff else "official"
    if rules.get("switch_turn") is not None:
        text += f", after turn {rules['switch_turn']}: {rules_text(rules['rules_after'])}"
    return text


def lineup(names) -> str:
    """The seats' strategies in seat order, ``4 x default`` when all are one."""
    names = [str(n) for n in names]
    if names and len(set(names)) == 1:
        return f"{len(names)} x {names[0]}"
    return ", ".join(names) or "unknown"


def grouped(values: Mapping[str, str], unit: str) -> str:
    """One value for all (``v``), or ``v1 (a, b); v2 (c)``: each value once with the
    names that have it."""
    by = _by_value(values)
    if len(by) == 1:
        return next(iter(by))
    return "; ".join(f"{v} ({_names(ns, unit)})" for v, ns in by.items())


def _by_value(values: Mapping[str, str]) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for name, v in values.items():
        by.setdefault(v, []).append(name)
    return by


def _names(names: list[str], unit: str) -> str:
    if len(names) <= LISTED:
        return ", ".join(names)
    return f"{', '.join(names[:2])} and {len(names) - 2} more {unit}"
