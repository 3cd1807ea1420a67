"""Claim ledger and gate: pure, clock-free, every number from ``LedgerSettings``.

Turn indices are the only notion of time. The harness calls, per ordinary turn:
``forget`` -> ``observe`` (monitor verdict) -> ``close`` (guarded self-repair) -> ``gate``;
then ``fired`` / ``rollback`` after grounded generation, and ``delivered`` on playback.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace

from app.backbone.identity import Identity, Similarity, claim_key, match_score
from app.backbone.verdict import ACTIONABLE, Status, Verdict
from app.events import Intent, Setting, SettingsChanged
from app.settings import LedgerSettings, Patience


@dataclass
class Claim:
    cid: int
    text: str
    status: Status  # the last actionable status reported on it
    key: str
    sids: set[int]
    persistence: int
    opened_turn: int  # the first turn that raised it since it was last (re)opened
    last_mention: int
    raised_turns: list[int]  # turns whose verdict reported the claim (what was said)
    texts: list[str]
    predicted_answer: str = ""
    evidence: str = ""
    closed_turn: int | None = None
    closed_by: str = ""
    rollbacks: int = 0
    spoken_turn: int | None = None
    exhausted: bool = False  # rolled back too often: counts as spoken for good
    confirmed: bool = False  # a detector's proposal agreed with an actionable verdict on it
    cooldown_until: int = -1
    # Turns that let the claim stand without reporting it: they count toward persistence
    # but are not the speakers' words on it (the veto and the guard read raised_turns).
    stood_turns: list[int] = field(default_factory=list)
    # Every answer a verdict gave it, oldest first: a later verdict may read the turn
    # that fixes the claim as raising it again with another answer (a value cut or
    # misheard), and the room's fix is judged against what the claim was waiting for.
    answers: list[str] = field(default_factory=list)

    @property
    def open(self) -> bool:
        return self.closed_turn is None

    @property
    def last_counted(self) -> int:
        """The latest turn that counted toward persistence."""
        return max([self.raised_turns[-1], *self.stood_turns])

    def identity(self) -> Identity:
        return Identity(frozenset(self.sids), self.key, tuple(self.texts))


@dataclass(frozen=True)
class Observation:
    claim: Claim | None
    change: str  # "new", "count", "reset", "reopen", "none"


@dataclass(frozen=True)
class GateResult:
    fire: bool
    reason: str


@dataclass(frozen=True)
class Delivery:
    turn: int
    cid: int
    intent: str
    text: str
    sids: tuple[int, ...]


@dataclass
class ClaimLedger:
    settings: LedgerSettings
    similarity: Similarity
    claims: dict[int, Claim] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    cooldown_until: int = -1  # after an intervention, no claim fires
    _next_cid: int = 1

    def apply(self, change: SettingsChanged) -> None:
        """A patience change takes effect at the next gate; the claims keep their counts."""
        if change.setting == Setting.PATIENCE:
            self.settings = replace(self.settings, patience=Patience(change.new))

    # --- per-turn updates ---------------------------------------------------------------

    def open_claims(self) -> list[Claim]:
        return [c for c in self.claims.values() if c.open]

    def find(self, verdict: Verdict) -> Claim | None:
        """The claim the verdict is about: open claims first, then closed ones."""
        key = verdict.key or claim_key(verdict.claim)
        ranked = sorted(self.claims.values(), key=lambda c: (not c.open, -c.last_mention))
        for claim in ranked:
            same, _ = match_score(
                verdict.sids, key, verdict.claim, claim.identity(), self.similarity,
                self.settings.match_cosine,
            )
            if same:
                return claim
        return None

    def observe(self, turn: int, verdict: Verdict) -> Observation:
        """Apply one monitor verdict: count, reset, open or reopen a claim."""
        if not verdict.claim and not verdict.sids and not verdict.key:
            return Observation(None, "none")
        claim = self.find(verdict)
        if claim is None:
            if not verdict.actionable:
                return Observation(None, "none")
            return Observation(self._add(turn, verdict), "new")
        self._remember_wording(claim, verdict, turn)
        if not verdict.actionable:
            if claim.open:
                claim.persistence = 0
            return Observation(claim, "reset")
        claim.status = verdict.status
        claim.confirmed = claim.confirmed or verdict.confirmed
        claim.raised_turns.append(turn)
        self._take_grounding(claim, verdict)
        if not claim.open:
            claim.closed_turn, claim.closed_by, claim.persistence = None, "", 1
            claim.opened_turn = turn
            return Observation(claim, "reopen")
        claim.persistence += 1
        return Observation(claim, "count")

    def raised_by(self, claim: Claim, turn: int) -> None:
        """Another turn raised the open claim too, in the words a detector flagged it by
        (an earlier turn of the batch the verdict confirmed it on, or a later turn that
        says it again): it counts as a mention would, once."""
        if not claim.open or turn in claim.raised_turns or turn in claim.stood_turns:
            return
        bisect.insort(claim.raised_turns, turn)
        claim.opened_turn = min(claim.opened_turn, turn)
        claim.last_mention = max(claim.last_mention, turn)
        claim.persistence += 1

    def stood(self, claim: Claim, turn: int) -> None:
        """A turn let the open claim stand (it could not have fixed it): one more turn
        the room has not fixed it, as an actionable mention would count."""
        claim.stood_turns.append(turn)
        claim.last_mention = turn
        claim.persistence += 1

    def close(self, cid: int, turn: int, by: str) -> Claim | None:
        """A participant (or the agent's delivered words) resolved the claim."""
        claim = self.claims.get(cid)
        if claim is None or not claim.open:
            return None
        claim.closed_turn, claim.closed_by, claim.persistence = turn, by, 0
        if by != "agent":
            claim.cooldown_until = turn + self.settings.cooldown_turns
        return claim

    def forget(self, turn: int) -> list[int]:
        """Drop closed claims after W_r turns and silent open ones after W turns."""
        dropped = []
        for cid, claim in list(self.claims.items()):
            if claim.closed_turn is not None:
                stale = turn - claim.closed_turn > self.settings.forget_closed_after
            else:
                stale = turn - claim.last_mention > self.settings.forget_open_after
            if stale:
                dropped.append(cid)
                del self.claims[cid]
        return dropped

    # --- the gate -----------------------------------------------------------------------

    def gate(self, claim: Claim, turn: int) -> GateResult:
        tau = self.settings.tau
        if not claim.open:
            return GateResult(False, f"self-repair closed C{claim.cid}")
        if claim.status not in ACTIONABLE:
            return GateResult(False, f"monitor: {claim.status}")
        if claim.exhausted:
            return GateResult(False, f"C{claim.cid} given up after rollbacks")
        if claim.spoken_turn is not None and claim.status == Status.MISSING:
            return GateResult(False, f"already spoken on turn {claim.spoken_turn}")
        if claim.persistence < tau:
            return GateResult(False, f"gate: waiting {claim.persistence}/{tau}")
        if turn <= self.cooldown_until or turn <= claim.cooldown_until:
            return GateResult(False, "cooldown")
        return GateResult(True, f"gate fired: persistence {claim.persistence}")

    def fired(self, claim: Claim, turn: int) -> None:
        """An intervention on the claim was decided: cooldown starts, count restarts."""
        claim.spoken_turn = turn
        claim.persistence = 0
        self.cooldown_until = turn + self.settings.cooldown_turns

    def rollback(self, claim: Claim, turn: int) -> str:
        """Generation abstained or cited nothing: keep the claim open, up to the limit."""
        claim.rollbacks += 1
        limit = self.settings.max_rollbacks
        if claim.rollbacks >= limit:
            claim.exhausted = True
            claim.spoken_turn = turn
            return f"rollback {claim.rollbacks}/{limit}: counts as spoken"
        return f"rollback {claim.rollbacks}/{limit}"

    # --- what was already said ----------------------------------------------------------

    def record_delivery(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)

    def near_duplicate(self, cid: int, text: str, turn: int) -> Delivery | None:
        """A correction on the same claim within the window that says nearly the same."""
        window = self.settings.near_duplicate_window
        for past in reversed(self.deliveries):
            if turn - past.turn > window:
                break
            same_claim = past.cid == cid or self._same_claim_text(cid, past)
            if same_claim and self.similarity(text, past.text) >= (
                self.settings.near_duplicate_cosine
            ):
                return past
        return None

    def already_delivered(self, intent: str, sids: tuple[int, ...]) -> Delivery | None:
        """A missing fact whose every cited sentence the agent has already spoken."""
        if intent != Intent.MISSING or not sids:
            return None
        for past in self.deliveries:
            if past.intent == Intent.MISSING and set(sids) <= set(past.sids):
                return past
        return None

    # --- internals ----------------------------------------------------------------------

    def _add(self, turn: int, verdict: Verdict) -> Claim:
        cid, self._next_cid = self._next_cid, self._next_cid + 1
        claim = Claim(
            cid=cid, text=verdict.claim, status=verdict.status,
            key=verdict.key or claim_key(verdict.claim), sids=set(),
            persistence=1, opened_turn=turn, last_mention=turn, raised_turns=[turn],
            texts=[verdict.claim] if verdict.claim else [], confirmed=verdict.confirmed,
        )
        self._take_grounding(claim, verdict)
        self.claims[cid] = claim
        return claim

    def _remember_wording(self, claim: Claim, verdict: Verdict, turn: int) -> None:
        claim.last_mention = turn
        if verdict.claim and verdict.claim not in claim.texts:
            claim.texts.append(verdict.claim)

    def _take_grounding(self, claim: Claim, verdict: Verdict) -> None:
        claim.sids.update(verdict.sids)
        if verdict.predicted_answer:
            claim.predicted_answer = verdict.predicted_answer
            if verdict.predicted_answer not in claim.answers:
                claim.answers.append(verdict.predicted_answer)
        if verdict.evidence and not claim.evidence:
            claim.evidence = verdict.evidence  # the words that raised it, not the latest

    def _same_claim_text(self, cid: int, past: Delivery) -> bool:
        claim = self.claims.get(cid)
        return claim is not None and bool(claim.sids & set(past.sids))
