"""Saved KV states of recent contexts, so a prompt can resume from more than the last one.

llama.cpp reuses the KV cache only for the prefix a prompt shares with the context left by
the previous request. A question's requests share their evidence block, but another
request in between (a search query, another reading of an ambiguous question, a judge
call) leaves a context that shares nothing, and the evidence is read again. This keeps
the KV state of the last few contexts and, before a request, restores the one that shares
the longest prefix with its prompt when that beats the live context.

Only the sequence's KV cells are saved (``llama_state_seq_get_data``): llama-cpp-python's
own ``save_state``/``LlamaRAMCache`` also copies its logits buffer (``n_batch`` × vocabulary
floats, hundreds of MB with a large vocabulary) into every state, and its capacity check
does not count that copy. After a restore the prompt's last shared token is evaluated again,
which refreshes the logits. A state is keyed by the exact tokens it holds, so a prompt that
differs anywhere (a changed evidence block) reuses at most the tokens before the change.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_STATES = 4
DEFAULT_CAPACITY_BYTES = 768 << 20
MIN_SHARED_TOKENS = 64  # a shorter shared prefix is not worth a restore
SEQUENCE = 0


@dataclass(frozen=True)
class SavedContext:
    """The tokens a context held and its sequence's KV state."""

    tokens: tuple[int, ...]
    state: bytes

    @property
    def size(self) -> int:
        """Bytes held."""
        return len(self.state) + 4 * len(self.tokens)


def shared_prefix(left: Sequence[int], right: Sequence[int]) -> int:
    """How many leading tokens ``left`` and ``right`` share."""
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count


class PrefixStates:
    """The last ``limit`` saved contexts within ``capacity_bytes``, most recent first."""

    def __init__(
        self, limit: int = DEFAULT_STATES, capacity_bytes: int = DEFAULT_CAPACITY_BYTES
    ) -> None:
        if limit < 1:
            raise ValueError("keep at least one state")
        self.limit = limit
        self.capacity_bytes = capacity_bytes
        self.saved: list[SavedContext] = []

    def best(self, prompt: Sequence[int], live: Sequence[int]) -> SavedContext | None:
        """The saved context sharing the longest prefix with ``prompt``, when it shares at
        least :data:`MIN_SHARED_TOKENS` and more than the ``live`` context does."""
        live_shared = shared_prefix(live, prompt)
        found, most = None, max(live_shared, MIN_SHARED_TOKENS - 1)
        for saved in self.saved:
            shared = shared_prefix(saved.tokens, prompt)
            if shared > most:
                found, most = saved, shared
        return found

    def add(self, context: SavedContext) -> None:
        """Keep ``context``; it replaces saved contexts it extends or repeats, and the
        oldest go when over the limit or the capacity."""
        if len(context.tokens) < MIN_SHARED_TOKENS or context.size > self.capacity_bytes:
            return
        kept = [
            saved
            for saved in self.saved
            if shared_prefix(saved.tokens, context.tokens) < len(saved.tokens)
        ]
        self.saved = [context, *kept][: self.limit]
        while sum(saved.size for saved in self.saved) > self.capacity_bytes:
            self.saved.pop()

    @property
    def size(self) -> int:
        """Bytes held by every saved context."""
        return sum(saved.size for saved in self.saved)


def save_context(llama: Any) -> SavedContext:
    """The tokens and KV state of ``llama``'s live context."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llama.ctx, SEQUENCE)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llama.ctx, buffer, size, SEQUENCE)
    tokens = tuple(int(token) for token in llama.input_ids[: llama.n_tokens])
    return SavedContext(tokens=tokens, state=bytes(buffer[:written]))


def restore_context(llama: Any, context: SavedContext) -> bool:
    """Make ``context`` the live context of ``llama``; False (and an empty context) when
    llama.cpp refuses the state."""
    import llama_cpp

    memory = llama_cpp.llama_get_memory(llama.ctx)
    llama_cpp.llama_memory_seq_rm(memory, SEQUENCE, -1, -1)
    buffer = (ctypes.c_uint8 * len(context.state)).from_buffer_copy(context.state)
    read = llama_cpp.llama_state_seq_set_data(llama.ctx, buffer, len(context.state), SEQUENCE)
    if read == 0:
        llama.reset()
        return False
    llama.input_ids[: len(context.tokens)] = context.tokens
    llama.n_tokens = len(context.tokens)
    llama._requires_eval = True  # the logits are stale: the next prompt re-reads one token
    return True
