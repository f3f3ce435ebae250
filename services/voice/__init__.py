"""Voice intake: calls, their transcripts and the voice webhook."""
