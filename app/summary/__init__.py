"""After the meeting: a cited summary, what the agent contributed, the questions left open
(and the document's answers), action items and a clean transcript, from a session record."""
