"""SandboxPolicy: what a script may import and call, and the limits it runs under.

A policy is a frozen pydantic model. It loads from TOML or JSON with
:meth:`SandboxPolicy.from_file`; a file may start from a preset with
``extends = "strict"`` and override only what it names. Errors name the bad field.
:meth:`SandboxPolicy.digest` is a stable hash of the whole policy, for benchmark
records and logs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sandbox import module_rules
from sandbox.errors import PolicyError
from sandbox.host.requirements import REQUIRABLE
from sandbox.module_rules import CURATED, EVERYTHING, ModuleNameError

# Re-exported: ``sandbox.policy.Limits`` and its siblings are public names.
from sandbox.policy_sections import Layers as Layers
from sandbox.policy_sections import Limits as Limits
from sandbox.policy_sections import Mount as Mount
from sandbox.worker.language.guards import BUILTIN_NAMES
from sandbox.worker.language.modules import CATALOG

#: What "the OS layer fully active" means for uncurated modules (``private_writes`` is
#: required of every worker with writable mounts, by every session: see Session).
OS_LAYER_MECHANISMS: tuple[str, ...] = (
    *(m for m in REQUIRABLE if m != "private_writes"),
    "privileges",
)


class SandboxPolicy(BaseModel):
    """Which modules and builtins a script gets, its limits, layers and mounts. Frozen."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    PRESETS: ClassVar[tuple[str, ...]] = ("strict", "default", "data")

    name: str = Field("custom", description="A label for reports; not part of the rules.")
    modules: tuple[str, ...] = Field(description="Curated importable modules, by exact name.")
    extra_modules: tuple[str, ...] = Field(
        default=(),
        description="Uncurated modules and patterns (pkg.*, *) a user allowed; written "
        "allow_modules in policy files. Contained by the OS layer only.",
    )
    deny: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="Members never exposed, per module, on top of the shipped lists.",
    )
    trust_uncurated: bool = Field(
        False,
        description="Start with uncurated modules where the OS layer is off or degraded "
        "(research only).",
    )
    builtins: tuple[str, ...] = Field(
        default=tuple(sorted(BUILTIN_NAMES)), description="Builtins a script sees."
    )
    limits: Limits = Field(default_factory=Limits)
    layers: Layers = Field(default_factory=Layers)
    mounts: tuple[Mount, ...] = Field(default=(), description="Host directories for scripts.")
    writes: Literal["private", "direct"] = Field(
        "private",
        description="How scripts write the rw mounts: 'private' (each session writes a "
        "copy-on-write view; the host applies its changes after each run) or 'direct' "
        "(the worker writes the host directory itself: outside the OS layer's boundary).",
    )
    require: tuple[str, ...] = Field(
        default=(),
        description="Confinement mechanisms that must be active (e.g. ipc_namespace, "
        "minimal_root); the sandbox refuses to start where one is not.",
    )

    @field_validator("mounts")
    @classmethod
    def _distinct_mounts(cls, value: tuple[Mount, ...]) -> tuple[Mount, ...]:
        paths = sorted(m.sandbox_path for m in value)
        for a, b in itertools.pairwise(paths):
            if a == b or b.startswith(a + "/"):
                raise ValueError(f"mounts {a!r} and {b!r} overlap")
        return value

    @field_validator("require")
    @classmethod
    def _known_mechanisms(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if name not in REQUIRABLE]
        if unknown:
            raise ValueError(
                f"unknown mechanism(s) {', '.join(map(repr, unknown))}; "
                f"available: {', '.join(REQUIRABLE)}"
            )
        return tuple(sorted(set(value)))

    @model_validator(mode="after")
    def _required_layer_on(self) -> Self:
        if self.require and not self.layers.os:
            raise ValueError(
                f"require: {', '.join(self.require)} cannot be active with layers.os = false"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _split_allowed(cls, data: Any) -> Any:
        # ``allow_modules`` adds names: curated ones to ``modules``, the rest (and the
        # patterns) to ``extra_modules``.
        if not isinstance(data, dict) or "allow_modules" not in data:
            return data
        data = dict(data)
        names = data.pop("allow_modules")
        if isinstance(names, str) or not isinstance(names, list | tuple):
            raise ValueError("allow_modules must be a list of module names")
        curated = [n for n in names if isinstance(n, str) and n in CURATED]
        data["modules"] = [*data.get("modules", ()), *curated]
        data["extra_modules"] = [
            *data.get("extra_modules", ()),
            *(n for n in names if n not in curated),
        ]
        return data

    @field_validator("modules")
    @classmethod
    def _known_modules(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [m for m in value if m not in CURATED]
        if unknown:
            raise ValueError(
                f"unknown module(s) {', '.join(map(repr, unknown))} (not curated: allow "
                f"other modules with allow_modules); curated: {', '.join(sorted(CURATED))}"
            )
        module_rules.check_installed(m for m in value if m not in CATALOG)  # not stdlib
        return tuple(sorted(set(value)))

    @field_validator("extra_modules")
    @classmethod
    def _installed_modules(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            module_rules.check_name(name)
        module_rules.check_installed(value)
        return tuple(sorted(set(value)))

    @field_validator("deny")
    @classmethod
    def _deny_names(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name in value:
            module_rules.check_name(name)
        return {name: tuple(sorted(set(members))) for name, members in sorted(value.items())}

    @model_validator(mode="after")
    def _uncurated_contained(self) -> Self:
        if EVERYTHING in self.extra_modules and not self.layers.os:
            raise ValueError("allow_modules: '*' needs the OS layer (layers.os = true)")
        if self.uncurated() and not self.layers.os and not self.trust_uncurated:
            raise ValueError(
                f"allow_modules: {', '.join(self.uncurated())} are contained by the OS layer "
                "only, which this policy switches off (set trust_uncurated = true to run "
                "them anyway, for research)"
            )
        return self

    @model_validator(mode="after")
    def _writes_private_or_said(self) -> Self:
        if self.writes == "direct" and self.uncurated():
            raise ValueError(
                f"writes = 'direct' would let modules no one curated "
                f"({', '.join(self.uncurated())}) write the host directories themselves; "
                "they need private writes"
            )
        if self.writes == "direct" and not self.layers.language:
            raise ValueError(
                "writes = 'direct' would let plain Python (the language layer is off) write "
                "the host directories themselves, beyond any budget; it needs private writes"
            )
        writable = any(m.mode == "rw" for m in self.mounts)
        if writable and not self.layers.os and self.writes != "direct":
            raise ValueError(
                "mounts: a writable mount is made private to each session by the OS "
                "layer, which this policy switches off; set writes = 'direct' to let "
                "scripts write the host directory itself (outside the boundary)"
            )
        return self

    @field_validator("builtins")
    @classmethod
    def _known_builtins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [b for b in value if b not in BUILTIN_NAMES]
        if unknown:
            raise ValueError(
                f"unknown builtin(s) {', '.join(map(repr, unknown))}; "
                f"available: {', '.join(sorted(BUILTIN_NAMES))}"
            )
        return tuple(sorted(set(value)))

    # -- construction ----------------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> SandboxPolicy:
        """A built-in policy: ``strict``, ``default`` or ``data``."""
        if name not in cls.PRESETS:
            raise PolicyError(f"unknown preset {name!r}; presets: {', '.join(cls.PRESETS)}")
        path = Path(__file__).with_name("presets") / f"{name}.toml"
        return cls._from_mapping(tomllib.loads(path.read_text()), source=f"preset {name!r}")

    @classmethod
    def from_file(cls, path: str | Path) -> SandboxPolicy:
        """Load a policy from a ``.toml`` or ``.json`` file."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PolicyError(f"{path}: cannot read policy file: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise PolicyError(
                f"{path}: a policy file must be UTF-8 text (byte {exc.start} is not)"
            ) from None
        try:
            if path.suffix.lower() == ".json":
                data = json.loads(text)
            elif path.suffix.lower() == ".toml":
                data = tomllib.loads(text)
            else:
                raise PolicyError(f"{path}: policy files must end in .toml or .json")
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            raise PolicyError(f"{path}: not valid {path.suffix[1:].upper()}: {exc}") from None
        if not isinstance(data, dict):
            raise PolicyError(f"{path}: a policy must be a table/object at the top level")
        return cls._from_mapping(data, source=str(path))

    @classmethod
    def load(cls, spec: str | Path) -> SandboxPolicy:
        """A preset name or a path to a policy file."""
        if isinstance(spec, str) and spec in cls.PRESETS:
            return cls.preset(spec)
        if not Path(spec).exists():
            presets = ", ".join(sorted(cls.PRESETS))
            raise PolicyError(f"{spec}: neither a preset ({presets}) nor an existing policy file")
        return cls.from_file(spec)

    @classmethod
    def _from_mapping(cls, data: dict[str, Any], source: str) -> SandboxPolicy:
        data = dict(data)
        base = data.pop("extends", None)
        if base is not None:
            if base not in cls.PRESETS:
                raise PolicyError(f"{source}: extends: unknown preset {base!r}")
            merged = cls.preset(base).model_dump(mode="json")
            limits = {**merged["limits"], **_table(source, "limits", data.pop("limits", {}))}
            layers = {**merged["layers"], **_table(source, "layers", data.pop("layers", {}))}
            deny = dict(merged["deny"])
            for module, members in _table(source, "deny", data.pop("deny", {})).items():
                deny[module] = [*deny.get(module, ()), *members]
            data = {**merged, **data, "limits": limits, "layers": layers, "deny": deny}
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise PolicyError(f"{source}: {_describe(exc)}") from None
        except ModuleNameError as exc:
            raise PolicyError(f"{source}: {exc}") from None

    def allow_modules(self, *names: str) -> SandboxPolicy:
        """A copy that may also import ``names`` (any installed module, ``pkg.*``, ``*``)."""
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"allow_modules() takes module names, got {type(name).__name__}")
        return self._revised(allow_modules=list(names))

    def uncurated(self) -> tuple[str, ...]:
        """The allowed names and patterns only the OS layer contains."""
        return self.extra_modules

    def required_mechanisms(self) -> tuple[str, ...]:
        """``require``, plus the whole OS layer where uncurated modules need it."""
        if self.extra_modules and (EVERYTHING in self.extra_modules or not self.trust_uncurated):
            return tuple(sorted({*self.require, *OS_LAYER_MECHANISMS}))
        return self.require

    def with_layers(self, **changes: bool) -> SandboxPolicy:
        """A copy with some layers switched (``language=False``, ``os=False``)."""
        return self._revised(layers={**self.layers.model_dump(), **changes})

    def with_mounts(self, *mounts: Mount) -> SandboxPolicy:
        """A copy with ``mounts`` added (each a :class:`Mount`, as separate arguments)."""
        for mount in mounts:
            if not isinstance(mount, Mount):
                raise TypeError(
                    f"with_mounts() takes Mount objects as separate arguments, got "
                    f"{type(mount).__name__}: write with_mounts(m1, m2) or with_mounts(*ms)"
                )
        return self._revised(mounts=[*self.mounts, *mounts])

    def with_writes(self, writes: Literal["private", "direct"]) -> SandboxPolicy:
        """A copy whose writable mounts are written ``"private"`` (each session its own
        copy-on-write view, the default) or ``"direct"`` (outside the boundary)."""
        return self._revised(writes=writes)

    def with_require(self, *names: str) -> SandboxPolicy:
        """A copy that also requires the confinement mechanisms ``names`` to be active."""
        return self._revised(require=[*self.require, *names])

    def with_limits(self, **changes: Any) -> SandboxPolicy:
        """A copy with some limits changed (validated)."""
        return self._revised(limits={**self.limits.model_dump(), **changes})

    def _revised(self, **fields: Any) -> SandboxPolicy:
        # Validate the whole policy again: a change can conflict with the rest.
        try:
            return SandboxPolicy.model_validate({**self.model_dump(), **fields})
        except ValidationError as exc:
            raise PolicyError(_describe(exc)) from None
        except ModuleNameError as exc:
            raise PolicyError(str(exc)) from None

    # -- identity --------------------------------------------------------------------
    def digest(self) -> str:
        """A stable SHA-256 (hex) of every rule and limit; the name is left out."""
        rules = self.model_dump(mode="json", exclude={"name"})
        canonical = json.dumps(rules, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(b"codeact-policy-v1\n" + canonical.encode()).hexdigest()

    def worker_config(self) -> dict[str, Any]:
        """What the zygote and its workers need (plain JSON); mount paths made absolute."""
        mounts = []
        for mount in self.mounts:
            host = Path(mount.host_path).expanduser().resolve()
            if not host.is_dir():
                raise PolicyError(
                    f"mounts: {mount.sandbox_path}: host directory {host} does not exist"
                )
            mounts.append({**mount.model_dump(), "host_path": str(host)})
        _check_read_only_outside_writable(mounts)
        return {
            # Each worker covers every writable mount with a private copy-on-write view
            # (overlay.py), whatever the language layer; the host applies its changes.
            "private_writes": self.layers.os
            and self.writes == "private"
            and any(m["mode"] == "rw" for m in mounts),
            "modules": list(self.modules),
            "extra_modules": list(self.extra_modules),
            "deny": module_rules.deny_table(self.deny),  # for generated proxies
            "policy_deny": {name: list(members) for name, members in self.deny.items()},
            "builtins": list(self.builtins),
            "layers": self.layers.model_dump(),
            "mounts": mounts,
            "limits": self.limits.model_dump(mode="json"),
            "max_request_bytes": self.limits.source_bytes * 4 + self.limits.result_bytes + 65536,
        }


def _check_read_only_outside_writable(mounts: list[dict[str, Any]]) -> None:
    # Filesystem rights are inherited by subdirectories (Landlock too): a read-only
    # mount inside a writable one could not be kept read-only by the OS layer.
    for ro in (m for m in mounts if m["mode"] == "ro"):
        for rw in (m for m in mounts if m["mode"] == "rw"):
            inner, outer = Path(ro["host_path"]), Path(rw["host_path"])
            if inner == outer or outer in inner.parents:
                raise PolicyError(
                    f"mounts: {ro['sandbox_path']} (ro) is inside {rw['sandbox_path']} (rw) "
                    f"on the host ({inner} in {outer}): the OS layer could not keep it "
                    f"read-only; mount a directory outside it, or make both read-only"
                )


def _table(source: str, field: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PolicyError(
            f"{source}: {field}: must be a table/object of settings, not {type(value).__name__}"
        )
    return value


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "policy"
        where = where.replace("extra_modules", "allow_modules")  # its name in files
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)
