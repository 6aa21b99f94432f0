"""What a sandboxed program may use: resource limits and importable modules."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

ALLOWED_MODULES: tuple[str, ...] = ("math", "statistics", "decimal", "fractions", "datetime")


class SandboxLimits(BaseModel):
    """How much one program may use; the defaults suit small arithmetic programs.

    ``cpu_seconds`` is enforced in whole seconds (rounded up); ``wall_seconds`` by the parent,
    which kills the worker. ``memory_mb`` caps the worker's whole address space, the
    interpreter's own included.
    """

    model_config = ConfigDict(frozen=True)

    cpu_seconds: float = Field(default=5.0, gt=0)
    wall_seconds: float = Field(default=10.0, gt=0)
    memory_mb: int = Field(default=256, ge=32)
    max_output_chars: int = Field(default=10_000, gt=0)
    max_code_chars: int = Field(default=20_000, gt=0)
