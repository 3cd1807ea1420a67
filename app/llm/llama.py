"""In-process llama.cpp backend with document-prefix reuse.

Every prompt is ``prefix(system) + suffix(user)`` as tokens. llama.cpp keeps the KV state
of the previous prompt and re-evaluates only from the first differing token, so calls
that share the system prefix (instructions + document) evaluate just the user part.
Longer runs of the previous prompt found later in the new one are shifted into place
(app/llm/reuse.py), so a transcript window that dropped its oldest lines is not read
again. When calls alternate between systems, the state of each recent prefix is kept as
a snapshot and restored instead of recomputed.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.cores import model_threads, prompt_threads
from app.llm.draft import PromptLookup
from app.llm.output import parse_output
from app.llm.prompt import ChatTemplate, pick_template
from app.llm.reuse import plan_reuse
from app.llm.types import DeltaCallback, LLMCancelled, LLMError, LLMRequest, LLMResponse
from app.llm.worker import OwnerThread
from app.settings import LLMSettings

log = logging.getLogger(__name__)
MAX_PREFIXES = 32  # tokenized systems remembered (each call looks them up)
# A cancellable call reads its prompt in chunks this long, checking the cancel event
# between them (generation checks it after every sampled token).
CANCEL_CHECK_TOKENS = 64
# A prefill leaves at least this share of the context for the task and the answer.
PREFILL_SPARE_SHARE = 0.25
# Warming reads the document prefix in pieces this long, reporting progress after each.
WARM_REPORT_TOKENS = 256

WarmProgress = Callable[[int, int], None]  # tokens read so far, tokens in the prefix


@dataclass
class _Session:
    """Everything that lives on the owner thread next to the ``Llama`` object."""

    llm: Any
    template: ChatTemplate
    n_ctx: int
    seed: int
    evals: list[int] = field(default_factory=list)  # token counts of eval() calls this request
    prefixes: dict[str, list[int]] = field(default_factory=dict)
    snapshots: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    grammars: dict[str, Any] = field(default_factory=dict)
    cancel: threading.Event | None = None  # the running request's cancel event
    replies: dict[str, tuple[int, ...]] = field(default_factory=dict)  # stage -> last reply
    can_shift: bool = False  # the context can move cached tokens to other positions


class LlamaBackend:
    """``LLMBackend`` over llama-cpp-python; the model is owned by one worker thread."""

    def __init__(
        self,
        model_path: Path,
        settings: LLMSettings | None = None,
        template: ChatTemplate | None = None,
        prefix_slots: int = 2,
    ) -> None:
        self.model_path = Path(model_path)
        self.settings = settings or LLMSettings()
        self._prefix_slots = prefix_slots
        self.warm_progress: WarmProgress | None = None  # told while the prefix is read
        self._worker: OwnerThread[_Session] = OwnerThread(
            lambda: self._load(template), _close_session, name=f"llm:{self.model_path.name}"
        )

    # -- public interface (any thread) --------------------------------------------------
    def complete(self, request: LLMRequest, on_delta: DeltaCallback | None = None) -> LLMResponse:
        """Runs on the owner thread; ``on_delta`` is called there too, so keep it quick."""
        return self._worker.call(lambda s: self._complete(s, request, on_delta)).result()

    def warm(self, system: str) -> None:
        self._worker.call(lambda s: self._warm(s, system)).result()

    def prefill(self, system: str, head: str, cancel: threading.Event | None = None) -> int:
        """Read ``head``, how the next prompt's user message will begin, into the cache
        while the model is idle, so that call evaluates only what follows it. ``cancel``
        stops the reading between chunks; what was read stays cached. Returns the tokens
        evaluated."""
        return int(self._worker.call(lambda s: self._prefill(s, system, head, cancel)).result())

    def reset(self) -> None:
        """Forget every cached prefix (e.g. when the document changes)."""
        self._worker.call(_forget).result()

    def close(self) -> None:
        self._worker.close()

    def __enter__(self) -> LlamaBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- owner thread ---------------------------------------------------------------------
    def _load(self, template: ChatTemplate | None) -> _Session:
        from llama_cpp import Llama

        if not self.model_path.is_file():
            raise LLMError(f"The language model file {self.model_path} does not exist.")
        s = self.settings
        try:
            llm = Llama(
                model_path=str(self.model_path),
                n_ctx=s.context_tokens,
                n_threads=s.threads or model_threads(),
                n_threads_batch=s.batch_threads or prompt_threads(),
                n_gpu_layers=s.gpu_layers,
                seed=s.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            from app.models.errors import VERIFY_HINT

            raise LLMError(
                f"Could not load the language model {self.model_path.name}: {exc}. {VERIFY_HINT}"
            ) from exc
        session = _Session(llm, template or pick_template(llm.metadata), llm.n_ctx(), s.seed,
                           can_shift=_can_shift(llm))
        original_eval = llm.eval

        def evaluate(tokens: Any) -> None:
            # A draft step needs the logits of every token it holds; a prompt only its
            # last one's, which is all ``Llama.eval`` keeps.
            if s.draft_tokens > 0 and 0 < len(tokens) <= s.draft_tokens + 1:
                _decode(llm, tokens)
            else:
                original_eval(tokens)

        def counting_eval(tokens: Any) -> None:
            session.evals.append(len(tokens))
            cancel = session.cancel
            if cancel is None:
                evaluate(tokens)
                return
            for start in range(0, len(tokens), CANCEL_CHECK_TOKENS):
                if cancel.is_set():
                    raise LLMCancelled()
                evaluate(tokens[start : start + CANCEL_CHECK_TOKENS])

        # Count the tokens each call really evaluates: that is how cache reuse is reported.
        # A cancellable request is read in chunks so a cancel stops the prompt reading too.
        llm.eval = counting_eval  # type: ignore[method-assign]
        log.info("loaded %s (n_ctx=%d, template=%s)", self.model_path.name, session.n_ctx,
                 session.template.name)
        return session

    def _prefix_tokens(self, s: _Session, system: str) -> list[int]:
        tokens = s.prefixes.get(system)
        if tokens is None:
            text = s.template.prefix(system).encode("utf-8")
            tokens = s.prefixes[system] = s.llm.tokenize(text, add_bos=True, special=True)
            if len(s.prefixes) > MAX_PREFIXES:  # forget the oldest system seen
                del s.prefixes[next(iter(s.prefixes))]
        return tokens

    def _holds(self, s: _Session, prefix: list[int]) -> bool:
        n = len(prefix)
        return s.llm.n_tokens >= n and s.llm.input_ids[:n].tolist() == prefix

    def _current_system(self, s: _Session) -> str | None:
        return next((sys for sys, p in s.prefixes.items() if self._holds(s, p)), None)

    def _switch_to(self, s: _Session, system: str, prefix: list[int]) -> None:
        """Keep the outgoing prefix as a snapshot; restore the incoming one if we have it."""
        if self._holds(s, prefix):
            return
        outgoing = self._current_system(s)
        if outgoing is not None and outgoing not in s.snapshots:
            self._remember(s, outgoing)
        snapshot = s.snapshots.get(system)
        if snapshot is not None:
            s.snapshots.move_to_end(system)
            s.llm.load_state(snapshot)

    def _remember(self, s: _Session, system: str) -> None:
        s.snapshots[system] = _snapshot(s.llm)
        s.snapshots.move_to_end(system)
        while len(s.snapshots) > self._prefix_slots:
            s.snapshots.popitem(last=False)

    def _warm(self, s: _Session, system: str) -> None:
        prefix = self._prefix_tokens(s, system)
        if len(prefix) >= s.n_ctx:
            raise LLMError(
                f"The document prefix needs {len(prefix)} tokens but the context holds "
                f"{s.n_ctx}; raise the context size or shorten the document."
            )
        self._switch_to(s, system, prefix)
        report = self.warm_progress or (lambda done, total: None)
        if not self._holds(s, prefix):
            s.llm.reset()
            step = WARM_REPORT_TOKENS if self.warm_progress is not None else len(prefix)
            try:
                for start in range(0, len(prefix), max(1, step)):  # eval goes on from n_tokens
                    s.llm.eval(prefix[start : start + step])
                    report(min(len(prefix), start + step), len(prefix))
            except RuntimeError as exc:
                raise LLMError(f"The language model failed to read the document: {exc}") from exc
        else:
            report(len(prefix), len(prefix))  # read before: nothing left to read
        self._remember(s, system)

    def _prefill(self, s: _Session, system: str, head: str,
                 cancel: threading.Event | None) -> int:
        prefix = self._prefix_tokens(s, system)
        opening = s.template.user.split("{user}", 1)[0] + head
        tokens = prefix + s.llm.tokenize(opening.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) > s.n_ctx * (1 - PREFILL_SPARE_SHARE):
            return 0
        self._switch_to(s, system, prefix)
        self._shift_reusable(s, tokens)
        held = s.llm.input_ids[: s.llm.n_tokens].tolist()
        common = plan_reuse(held, tokens, 0).common
        if common < len(held):
            s.llm._ctx.kv_cache_seq_rm(0, common, -1)
            s.llm.n_tokens = common
        s.evals.clear()
        s.cancel = cancel
        try:
            s.llm.eval(tokens[common:])
        except LLMCancelled:
            pass  # the chunks read so far stay cached
        finally:
            s.cancel = None
        return s.llm.n_tokens - common

    def _shift_reusable(self, s: _Session, prompt: list[int]) -> None:
        """Move the cached runs the new prompt repeats to where it has them, and tell
        llama-cpp-python that its cache now holds exactly those leading tokens."""
        min_run = self.settings.reuse_min_tokens
        if min_run <= 0 or not s.can_shift:
            return
        llm = s.llm
        plan = plan_reuse(llm.input_ids[: llm.n_tokens].tolist(), prompt, min_run)
        if not plan.shifts:
            return
        for shift in plan.shifts:
            end = shift.start + shift.length
            llm._ctx.kv_cache_seq_rm(0, shift.to, shift.start)
            llm._ctx.kv_cache_seq_shift(0, shift.start, end, shift.to - shift.start)
            llm.input_ids[shift.to : shift.to + shift.length] = llm.input_ids[shift.start : end]
        llm._ctx.kv_cache_seq_rm(0, plan.reused, -1)
        llm.n_tokens = plan.reused
        log.debug("reused %d cached tokens (%d in place, %d shifted in %d runs)", plan.reused,
                  plan.common, plan.reused - plan.common, len(plan.shifts))

    def _grammar(self, s: _Session, schema: dict[str, Any] | None) -> Any:
        if schema is None:
            return None
        # Keep the schema's own key order: the grammar makes the model write fields in
        # that order, and what it writes first shapes what follows.
        key = json.dumps(schema)
        if key not in s.grammars:
            from llama_cpp import LlamaGrammar

            s.grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        return s.grammars[key]

    def _complete(
        self, s: _Session, req: LLMRequest, on_delta: DeltaCallback | None
    ) -> LLMResponse:
        start = time.perf_counter()
        prefix = self._prefix_tokens(s, req.system)
        suffix = s.llm.tokenize(s.template.suffix(req.user).encode("utf-8"), add_bos=False,
                                special=True)
        prompt = prefix + suffix
        if len(prompt) + req.max_tokens > s.n_ctx:
            raise LLMError(
                f"The {req.stage} prompt needs {len(prompt)} + {req.max_tokens} tokens but the "
                f"context holds {s.n_ctx}; raise the context size or shorten the document."
            )
        self._switch_to(s, req.system, prefix)
        self._shift_reusable(s, prompt)
        s.evals.clear()
        if req.cancel is not None and req.cancel.is_set():
            raise LLMCancelled(req.stage)
        s.cancel = req.cancel
        drafting = self.settings.draft_tokens > 0
        if drafting:
            s.llm.draft_model = PromptLookup(self.settings.draft_tokens,
                                             s.replies.get(req.stage, ()), len(prompt))
        try:
            text, finish, sampled, ttft = self._generate(s, req, prompt, on_delta, start)
        except LLMCancelled:
            raise LLMCancelled(req.stage) from None
        finally:
            s.cancel = None
        # The reply as sampled (the grammar often spells keys out in odd pieces), not as
        # its text would tokenize; the last token sampled was never evaluated.
        if drafting:
            end = min(s.llm.n_tokens, len(prompt) + sampled - 1)
            s.replies[req.stage] = tuple(int(t) for t in s.llm.input_ids[len(prompt) : end])
        evaluated = s.evals[0] if s.evals else 0
        total_ms = (time.perf_counter() - start) * 1000
        log.debug("%s: prompt %d (evaluated %d), completion %d, %.0f ms", req.stage,
                  len(prompt), evaluated, sampled, total_ms)
        data = parse_output(text, req.schema, finish, req.stage)
        return LLMResponse(text, data, len(prompt), len(prompt) - evaluated, sampled,
                           ttft if ttft is not None else total_ms, total_ms)

    def _generate(
        self, s: _Session, req: LLMRequest, prompt: list[int], on_delta: DeltaCallback | None,
        start: float,
    ) -> tuple[str, str | None, int, float | None]:
        from llama_cpp import StoppingCriteriaList

        sampled = [0]
        cut = [False]

        def count(_ids: Any, _logits: Any) -> bool:
            sampled[0] += 1
            cut[0] = req.cancel is not None and req.cancel.is_set()
            return cut[0]  # True ends generation after this token

        stream = s.llm.create_completion(
            prompt=prompt,
            max_tokens=req.max_tokens,
            temperature=req.temperature,
            grammar=self._grammar(s, req.schema),
            stop=list(s.template.stop),
            seed=s.seed,
            stream=True,
            stopping_criteria=StoppingCriteriaList([count]),
        )
        pieces: list[str] = []
        finish: str | None = None
        ttft: float | None = None
        for chunk in _guarded(stream, req.stage):
            choice = chunk["choices"][0]
            if choice["text"]:
                if ttft is None:
                    ttft = (time.perf_counter() - start) * 1000
                pieces.append(choice["text"])
                if on_delta is not None:
                    on_delta(choice["text"])
            finish = choice.get("finish_reason") or finish
        if cut[0]:
            raise LLMCancelled(req.stage)
        return "".join(pieces), finish, sampled[0], ttft


def _decode(llm: Any, tokens: Any) -> None:
    """``Llama.eval`` of one short draft step, asking for the logits of every token (the
    sampler reads them at their places in the batch). They stay in llama.cpp: nothing
    here needs them in Python."""
    llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
    llm._batch.set_batch(batch=tokens, n_past=llm.n_tokens, logits_all=True)
    llm._ctx.decode(llm._batch)
    llm.input_ids[llm.n_tokens : llm.n_tokens + len(tokens)] = tokens
    llm.n_tokens += len(tokens)
    llm._requires_eval = False


def _guarded(stream: Iterator[Any], stage: str) -> Iterator[Any]:
    """llama.cpp failures inside generation become LLMError; callback errors pass as they are."""
    while True:
        try:
            chunk = next(stream)
        except StopIteration:
            return
        except (RuntimeError, ValueError) as exc:
            raise LLMError(f"The language model failed during {stage}: {exc}") from exc
        yield chunk


def _snapshot(llm: Any) -> Any:
    """Like ``Llama.save_state`` but without copying the (n_batch x vocab) logits buffer.

    The restored state is always re-evaluated from at least one token, so old logits are
    never read; a one-row placeholder keeps ``load_state`` happy and saves ~300 MB a slot.
    """
    import ctypes

    import llama_cpp
    import numpy as np

    size = llama_cpp.llama_state_get_size(llm._ctx.ctx)
    buffer = (ctypes.c_uint8 * int(size))()
    n_bytes = llama_cpp.llama_state_get_data(llm._ctx.ctx, buffer, size)
    return llama_cpp.LlamaState(
        input_ids=llm.input_ids.copy(),
        scores=np.zeros((1, llm.n_vocab()), dtype=np.single),
        n_tokens=llm.n_tokens,
        llama_state=bytes(buffer)[: int(n_bytes)],
        llama_state_size=int(n_bytes),
        seed=llm._seed,
    )


def _can_shift(llm: Any) -> bool:
    import llama_cpp

    memory = getattr(llm._ctx, "memory", None)
    return memory is not None and bool(llama_cpp.llama_memory_can_shift(memory))


def _forget(s: _Session) -> None:
    s.snapshots.clear()
    s.llm.reset()


def _close_session(s: _Session) -> None:
    s.snapshots.clear()
    s.llm.close()
