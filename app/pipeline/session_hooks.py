"""What goes into the session record: turns, decisions, interventions with receipts.

Every intervention's fate is recorded: decided, held, handed to the voice, heard (in full
or in part) or dropped with the floor's reason, so an export after a crash can say what
was still pending (``app.session.delivery``). Every setting changed on the running agent
and every snooze is kept too, so the record says why the agent spoke when it did, and
kept meeting audio by its path (``meeting_audio`` entries, for ``jarvis retranscribe``).
"""

from __future__ import annotations

import logging
from typing import Any

from app.events import (
    AgentState,
    Decision,
    Intervention,
    MeetingAudio,
    PlaybackReceipt,
    ReceiptStatus,
    SettingsChanged,
    SpeakerRenamed,
    Turn,
    WakeEvent,
)
from app.floor.outputs import Dropped, Play, SnoozeChanged
from app.pipeline.events import (
    ComponentStatus,
    DocumentLoaded,
    HighlightCitation,
    InterventionOffered,
    PendingIntervention,
    PipelineError,
)
from app.session.record import SessionRecord, to_plain

log = logging.getLogger(__name__)


class SessionHooks:
    """Chooses the events worth keeping and writes them (flushed) to the record."""

    def __init__(self, record: SessionRecord) -> None:
        self.record = record
        self._interventions: dict[str, Intervention] = {}

    def on_event(self, event: Any) -> None:
        if self.record.closed:
            return
        try:
            self._keep(event)
        except ValueError:  # closed by another thread since the check: the end is written
            log.debug("session record closed; %s not recorded", type(event).__name__)

    def _keep(self, event: Any) -> None:
        if isinstance(event, (Turn, Decision, SpeakerRenamed, WakeEvent, SettingsChanged,
                              SnoozeChanged, MeetingAudio)):
            self.record.record(event)
            if isinstance(event, Decision) and event.intervention is not None:
                self._interventions[event.intervention.id] = event.intervention
        elif isinstance(event, PendingIntervention) and event.intervention is not None:
            self._interventions[event.intervention.id] = event.intervention
            self.record.append("intervention_pending", event.intervention)
        elif isinstance(event, InterventionOffered):
            self._interventions[event.intervention.id] = event.intervention
            self.record.append("intervention_offered", event.intervention)
        elif isinstance(event, Play):
            self._interventions[event.intervention.id] = event.intervention
            self.record.append(
                "intervention_playing", event.intervention, from_sentence=event.resume_sentence
            )
        elif isinstance(event, Dropped):
            self.record.append(
                "intervention_dropped",
                intervention_id=event.intervention_id,
                reason=event.reason,
                detail=event.detail,
            )
        elif isinstance(event, HighlightCitation) and event.active and event.citation:
            self.record.append(
                "citation_shown", event.citation, intervention_id=event.intervention_id
            )
        elif isinstance(event, PlaybackReceipt):
            self._receipt(event)
        elif isinstance(event, AgentState):
            self.record.append("agent_state", state=event.value)
        elif isinstance(event, (ComponentStatus, DocumentLoaded)):
            self.record.record(event)
        elif isinstance(event, PipelineError):
            self.record.append("error", event)

    def remember(self, intervention: Intervention) -> None:
        self._interventions[intervention.id] = intervention

    def _receipt(self, receipt: PlaybackReceipt) -> None:
        self.record.record(receipt)
        if receipt.status not in (ReceiptStatus.FINISHED, ReceiptStatus.STOPPED):
            return
        intervention = self._interventions.get(receipt.intervention_id)
        if intervention is None:
            return
        self.record.append(
            "intervention_delivered",
            intervention,
            status=receipt.status,
            delivered_seconds=receipt.delivered_seconds,
            receipt=to_plain(receipt),
        )
