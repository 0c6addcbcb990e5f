"""Python values as the text ``--set key=value`` and ``--vary key=v1,v2`` take (YAML)."""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional


def yaml_text(value: Any) -> str:
    """``value`` as a YAML scalar or flow collection: booleans as true/false, None as null,
    lists and dicts as JSON (which YAML reads), strings as they are unless a comma or a quote
    needs them quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple, dict)):
        return to_json(value)
    text = str(value)
    if isinstance(value, str) and (any(c in text for c in ",\"'") or text != text.strip()):
        return json.dumps(text)
    return text


def to_json(value: Any, **options: Any) -> str:
    """``value`` as JSON text; NumPy scalars (e.g. a DataFrame cell) as the Python numbers they hold."""
    return json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else str(v), **options)


def assignments(overrides: Mapping[str, Any], seed: Optional[int]) -> list:
    """``overrides`` and ``seed`` as ``key=value`` assignments, in order, seed last."""
    out = [f"{key}={yaml_text(value)}" for key, value in overrides.items()]
    if seed is not None:
        out.append(f"seed={int(seed)}")
    return out
