"""Checks every study's report shares (imported by the study tests)."""

from __future__ import annotations

import html as H
import json
import re
from pathlib import Path


def header(page: str) -> dict[str, str]:
    """The report header's items, ``{key: text}``."""
    dl = re.search(r"<dl class='info'>(.*?)</dl>", page, re.S).group(1)
    return {H.unescape(k): H.unescape(v)
            for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", dl, re.S)}


def assert_provenance(page: str, roots) -> None:
    """The header names each dataset's base seed, engine fingerprint and games digest,
    the strategies of its seats and every rule setting an arm changes, as its manifest
    records them."""
    items = header(page)
    seeds, engine = items["base seed"], items["engine"]
    rules = " ".join(v for k, v in items.items() if k.startswith("rules"))
    strategies = " ".join(v for k, v in items.items() if k.startswith("strategies"))
    for root in roots:
        m = json.loads((Path(root) / "manifest.json").read_text())
        assert re.search(rf"\b{m['base_seed']}\b", seeds), (root, seeds)
        assert m["engine_fingerprint"] in engine, (root, engine)
        assert m["games_digest"] in engine, (root, engine)
        for v, spec in m["result_key"]["variants"].items():
            for name in spec["strategies"]:
                assert name in strategies, (root, v, name)
            for key in ("bank_per_resource", "robber", "shortage"):
                value = spec["rules"][key]
                official = {"bank_per_resource": 19, "robber": "official",
                            "shortage": "official"}[key]
                if value != official:
                    text = "none" if value is None else value
                    assert f"{key}={text}" in rules, (root, v, key)
